// Drives real VS Code (code-server) in Debian's Chromium with playwright-core
// and checks the Anchorage extension end to end. test/e2e.sh prepares
// everything and runs this with:
//   E2E_URL        code-server's address, opened on a copy of testdata/sampleapp
//   E2E_ARTIFACTS  where screenshots go
//   E2E_CHROMIUM   the browser (default /usr/bin/chromium)
//   E2E_LOGS       code-server's log folder (holds the Anchorage output channel)
//   E2E_ANCHORAGE, E2E_DATA, E2E_ROOT  the server binary, its data directory
//                  (seeded with a rule and a proposal) and the workspace, to
//                  read the memory with the CLI
// Exits non-zero when a check fails.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const url = process.env.E2E_URL;
const artifacts = process.env.E2E_ARTIFACTS;
if (!url || !artifacts) {
  console.error('E2E_URL and E2E_ARTIFACTS are required (run test/e2e.sh)');
  process.exit(2);
}
mkdirSync(artifacts, { recursive: true });

const results = [];
const shots = [];
let page;

async function shot(name) {
  const file = join(artifacts, `${name}.png`);
  try {
    await page.screenshot({ path: file });
    shots.push(file);
    console.log(`   screenshot ${file}`);
  } catch (err) {
    console.log(`   (screenshot ${name} failed: ${err.message})`);
  }
}

/** Runs one check, timing it; a failure is recorded and the run continues when possible. */
async function check(name, fn, { fatal = false } = {}) {
  const t0 = Date.now();
  console.log(`-- ${name}`);
  try {
    const detail = await fn();
    const ms = Date.now() - t0;
    results.push({ name, ok: true, ms, detail });
    console.log(`   PASS ${name} (${(ms / 1000).toFixed(1)}s)${detail ? `: ${detail}` : ''}`);
  } catch (err) {
    const ms = Date.now() - t0;
    results.push({ name, ok: false, ms, detail: err.message });
    console.log(`   FAIL ${name} (${(ms / 1000).toFixed(1)}s): ${err.message}`);
    await shot(`fail-${name.replace(/\W+/g, '-').toLowerCase()}`);
    if (fatal) {
      throw err;
    }
  }
}

/** The Anchorage output channel's log, as code-server writes it. */
function anchorageLog() {
  const root = process.env.E2E_LOGS;
  if (!root) {
    return '';
  }
  let text = '';
  for (const e of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (e.isFile() && /Anchorage\.log$/.test(e.name)) {
      text += readFileSync(join(e.parentPath ?? e.path, e.name), 'utf8');
    }
  }
  return text;
}

/** Runs the anchorage CLI on the seeded memory (--json) and parses its answer. */
function cli(...args) {
  return JSON.parse(
    execFileSync(process.env.E2E_ANCHORAGE, ['--data-dir', process.env.E2E_DATA, '--json', ...args, '--root', process.env.E2E_ROOT], {
      encoding: 'utf8',
    }),
  );
}

/** The status bar text that n pending proposals give. */
const statusWith = (n) => `⚓ Anchorage${n > 0 ? ` · ${n} proposal${n === 1 ? '' : 's'}` : ''}`;

/** How often the server logged a finished indexing of a folder. */
const indexedCount = () => (anchorageLog().match(/anchorage: indexed /g) ?? []).length;

const quickInput = '.quick-input-widget';
const rows = `${quickInput} .quick-input-list .monaco-list-row`;

async function closeQuickInput() {
  if (await page.locator(quickInput).isVisible()) {
    await page.keyboard.press('Escape');
    await page.locator(quickInput).waitFor({ state: 'hidden', timeout: 5000 }).catch(() => {});
  }
}

/** Opens the quick input with a key, retrying when focus moved and closed it. */
async function openQuickInput(key) {
  const input = page.locator(`${quickInput} input`);
  for (let attempt = 1; ; attempt++) {
    await closeQuickInput();
    await page.keyboard.press(key);
    try {
      await input.waitFor({ state: 'visible', timeout: 3000 });
      return input;
    } catch (err) {
      if (attempt === 3) {
        throw new Error(`${key} did not open the quick input: ${err.message.split('\n')[0]}`);
      }
    }
  }
}

/** Runs a command from the palette by its title. */
async function runCommand(title) {
  const input = await openQuickInput('F1');
  await input.fill(`>${title}`);
  const row = page.locator(rows, { hasText: title }).first();
  await row.waitFor({ state: 'visible', timeout: 10000 });
  await row.click();
}

/** Opens a workspace file with quick open. */
async function openFile(rel) {
  const base = rel.split('/').pop();
  const dir = rel.split('/').slice(0, -1).join('/');
  // Click the row of that file: the list may still show recent files first.
  const row = page.locator(rows, { hasText: base }).filter({ hasText: dir }).first();
  for (let attempt = 1; ; attempt++) {
    try {
      const input = await openQuickInput('Control+P');
      await input.fill(rel, { timeout: 5000 });
      await row.waitFor({ state: 'visible', timeout: 8000 });
      break;
    } catch (err) {
      // Focus moved, or the file search was not ready: open it again.
      if (attempt === 3) {
        throw new Error(`quick open found no row for ${rel}: ${err.message.split('\n')[0]}`);
      }
    }
  }
  await row.click();
  await page.locator('.tab.active', { hasText: base }).waitFor({ state: 'visible', timeout: 10000 });
  await page.locator('.monaco-editor .view-lines').first().waitFor({ state: 'visible', timeout: 10000 });
}

async function goToLine(line, column) {
  const input = await openQuickInput('Control+G');
  await input.fill(`:${line}:${column}`);
  await page.keyboard.press('Enter');
  await page.locator(quickInput).waitFor({ state: 'hidden', timeout: 5000 }).catch(() => {});
}

async function rowTexts() {
  return (await page.locator(rows).allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
}

// The extension's status bar item, found by its accessible label.
const statusItem = () => page.locator('[aria-label^="Anchorage language server"]').first();

let browser;
const t0 = Date.now();
try {
  browser = await chromium.launch({
    executablePath: process.env.E2E_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, reducedMotion: 'reduce' });
  // Copy AI Context writes the clipboard; the check reads it back.
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(url).origin }).catch(() => {});
  page = await context.newPage();
  page.setDefaultTimeout(20000);

  await check(
    'workbench opens and the extension starts the server',
    async () => {
      await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 90000 });
      await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60000 });
      await page.locator('.explorer-folders-view .monaco-list-row').first().waitFor({ state: 'visible', timeout: 60000 });
      const item = statusItem();
      await item.waitFor({ state: 'visible', timeout: 30000 });
      // Idle: "⚓ Anchorage" once the server runs and indexing ended.
      const deadline = Date.now() + 60000;
      let text = '';
      let seen = new Set();
      for (;;) {
        text = (await item.innerText()).trim();
        seen.add(text);
        if (text.startsWith('⚓ Anchorage')) {
          break;
        }
        if (/not installed/.test(text) || (await page.locator('.statusbar-item .codicon-error', { hasText: 'Anchorage' }).count()) > 0) {
          throw new Error(`status bar says the server is missing or failed: "${text}"`);
        }
        if (Date.now() > deadline) {
          throw new Error(`status bar never became idle; last text "${text}"`);
        }
        await page.waitForTimeout(100);
      }
      await shot('01-workbench');
      // The tooltip holds anchorage.index.status.
      await item.hover();
      const hover = page.locator('.monaco-hover, .workbench-hover, .context-view .hover-contents').filter({ hasText: 'Index:' }).first();
      await hover.waitFor({ state: 'visible', timeout: 10000 });
      const tip = (await hover.innerText()).replace(/\s+/g, ' ').trim();
      if (!/\d+ files, \d+ symbols/.test(tip)) {
        throw new Error(`status tooltip has no index summary: "${tip}"`);
      }
      await shot('02-status-tooltip');
      await page.mouse.move(700, 450);
      return `status texts seen: ${[...seen].map((s) => JSON.stringify(s)).join(' → ')}; tooltip: ${tip.slice(0, 160)}`;
    },
    { fatal: true },
  );

  await check('a file outside the workspace (GOROOT) gets an outline, no error pop-ups, and Show Callers says why it has none', async () => {
    const file = process.env.E2E_OUTSIDE;
    if (!file) {
      return 'skipped: E2E_OUTSIDE not set';
    }
    const base = file.split('/').pop();
    const input = await openQuickInput('Control+P');
    await input.fill(file);
    const row = page.locator(rows, { hasText: base }).first();
    await row.waitFor({ state: 'visible', timeout: 15000 });
    await row.click();
    await page.locator('.tab.active', { hasText: base }).waitFor({ state: 'visible', timeout: 10000 });
    // The outline comes from the server (documentSymbol of the open text).
    await runCommand('Explorer: Focus on Outline View');
    const outline = page.locator('.pane', { has: page.locator('.pane-header', { hasText: /^Outline/ }) }).first();
    // (Its first symbols: the list shows the rows that fit.)
    const symbol = outline.locator('.monaco-list-row', { hasText: process.env.E2E_OUTSIDE_SYMBOL || 'ServeHTTP' }).first();
    await symbol.waitFor({ state: 'visible', timeout: 30000 });
    const symbolText = (await symbol.innerText()).replace(/\s+/g, ' ').trim();
    await runCommand('Anchorage: Show Callers');
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: `${base} is outside the workspace.` }).first();
    await toast.waitFor({ state: 'visible', timeout: 10000 });
    const toasts = (await page.locator('.notifications-toasts .notification-toast').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    // No error pop-ups (a request that failed "outside the workspace").
    const errors = toasts.filter((t) => /failed|error/i.test(t));
    if (errors.length > 0) {
      throw new Error(`error notifications: ${JSON.stringify(errors)}`);
    }
    await shot('01b-outside-workspace');
    // The server was not asked to index GOROOT: one folder, sampleapp's size.
    const roots = [...anchorageLog().matchAll(/indexed (\S+): \d+ files/g)].map((m) => m[1]);
    const others = roots.filter((r) => r !== process.env.E2E_ROOT);
    if (others.length > 0) {
      throw new Error(`the server indexed ${JSON.stringify(others)}`);
    }
    await page.locator('.notifications-toasts .notification-toast .codicon-notifications-clear, .notifications-toasts .notification-toast .codicon-close').first().click().catch(() => {});
    await page.keyboard.press('Control+W');
    return `outline has ${symbolText}; notifications: ${JSON.stringify(toasts)}`;
  });

  await check('Show Callers of UserRepository.FindByID in users/repo.go', async () => {
    await openFile('users/repo.go');
    await goToLine(25, 28); // func (r *UserRepository) Fi|ndByID(...)
    await runCommand('Anchorage: Show Callers');
    const title = page.locator(`${quickInput} .quick-input-title`);
    await title.filter({ hasText: 'Callers of UserRepository.FindByID' }).waitFor({ state: 'visible', timeout: 15000 });
    await page.locator(rows).first().waitFor({ state: 'visible', timeout: 10000 });
    const texts = await rowTexts();
    if (texts.length === 0) {
      throw new Error('no items');
    }
    if (!texts.some((t) => t.includes('Service.GetUser') && t.includes('users/service.go:25'))) {
      throw new Error(`Service.GetUser (users/service.go:25) not among ${JSON.stringify(texts)}`);
    }
    await shot('03-show-callers');
    // Accepting opens the call site.
    await page.locator(rows, { hasText: 'Service.GetUser' }).first().click();
    await page.locator('.tab.active', { hasText: 'service.go' }).waitFor({ state: 'visible', timeout: 10000 });
    await shot('04-callers-opened');
    return `${(await title.innerText()).trim()}: ${texts.join(' | ')}`;
  });

  await check('Show Blast Radius of UserRepository.FindByID', async () => {
    await openFile('users/repo.go');
    await goToLine(25, 28);
    await runCommand('Anchorage: Show Blast Radius');
    const title = page.locator(`${quickInput} .quick-input-title`);
    await title.filter({ hasText: 'Blast radius of UserRepository.FindByID' }).waitFor({ state: 'visible', timeout: 15000 });
    const texts = await rowTexts();
    if (!texts.some((t) => /depth 2/.test(t))) {
      throw new Error(`no depth-2 dependents among ${JSON.stringify(texts)}`);
    }
    await shot('05-blast-radius');
    await closeQuickInput();
    return texts.join(' | ');
  });

  await check('Search Codebase: the strategy once in a one-line title, doc lines in rows, opens at the name', async () => {
    await runCommand('Anchorage: Search Codebase');
    const input = page.locator(`${quickInput} input`);
    await input.waitFor({ state: 'visible', timeout: 10000 });
    await input.pressSequentially('where are users loaded', { delay: 20 });
    const title = page.locator(`${quickInput} .quick-input-title`);
    const strategy = /^Anchorage: (semantic|structural|keyword|hybrid) \d+%/;
    const deadline = Date.now() + 20000;
    let texts = [];
    for (;;) {
      texts = await rowTexts();
      const t = (await title.innerText().catch(() => '')).trim();
      // The palette searches while the query is typed (debounced): a
      // half-typed query may answer "No results" before the whole one does.
      const answered = texts.length > 0 && !texts.some((x) => /No results/.test(x));
      const typed = (await input.inputValue().catch(() => '')) === 'where are users loaded';
      if (strategy.test(t) && answered && typed) {
        break;
      }
      if (texts.some((x) => /cannot search|Search failed/.test(x)) || Date.now() > deadline) {
        await shot('06-search');
        throw new Error(`no routed results; title "${t}", the palette shows ${JSON.stringify(texts)}`);
      }
      await page.waitForTimeout(100);
    }
    const titleText = (await title.innerText()).trim();
    // Said once, in the title: no row repeats it.
    const badged = texts.filter((t) => /\[(semantic|structural|keyword|hybrid)\]/.test(t));
    if (badged.length > 0) {
      throw new Error(`rows repeat the strategy: ${JSON.stringify(badged)}`);
    }
    // The title fits on one line.
    const box = await title.boundingBox();
    const lineHeight = await title.evaluate((e) => parseFloat(getComputedStyle(e).lineHeight) || 22);
    if (!box || box.height > lineHeight * 1.5) {
      throw new Error(`the title wraps: ${box?.height}px for a ${lineHeight}px line: "${titleText}"`);
    }
    // A symbol's row shows its doc, not its definition line.
    const first = texts[0];
    if (/^\S*\s*(export |async )?(func|def|function|class) /.test(first.split(' ').slice(2).join(' ')) || !/Loads|loads|users?/i.test(first)) {
      throw new Error(`first row does not show a doc line: "${first}"`);
    }
    await shot('06-search');
    // Enter opens the first row on the symbol's name: its line, within
    // the result's lines, and a column past the start.
    const m = /([\w./-]+\.\w+):(\d+)(?:-(\d+))?/.exec(first);
    if (!m) {
      throw new Error(`first row has no file:line: "${first}"`);
    }
    const [, file, from, to] = m;
    await page.keyboard.press('Enter');
    await page.locator('.tab.active', { hasText: file.split('/').pop() }).waitFor({ state: 'visible', timeout: 10000 });
    await page.waitForFunction(
      ([lo, hi]) => {
        const t = [...document.querySelectorAll('.statusbar-item')].map((e) => e.textContent ?? '').join(' ');
        const mm = /Ln (\d+), Col (\d+)/.exec(t);
        return !!mm && +mm[1] >= lo && +mm[1] <= hi && +mm[2] > 1;
      },
      [Number(from), Number(to ?? from) + 1],
      { timeout: 10000 },
    );
    const where = (await page.locator('.statusbar-item', { hasText: /Ln \d+, Col \d+/ }).first().innerText()).trim();
    const word = await page.evaluate(() => {
      const sel = document.querySelector('.monaco-editor .cursors-layer .cursor');
      return sel ? 'cursor shown' : 'no cursor';
    });
    await shot('06b-search-opened');
    return `title "${titleText}"; ${texts.length} rows; first: ${first}; opened at ${where} (${word})`;
  });

  // ---- memory: the data directory was seeded by e2e.sh with rule 1 "Wrap
  // errors with context …" (anchored on db.Open in internal/db/db.go,
  // where its corrections were made) and
  // pending proposal 2 "… log HTTP requests with their duration" (a hint
  // at the top of api/handlers.go).

  await check('hover over an anchored symbol shows its rule at the first Ctrl+K Ctrl+I', async () => {
    await openFile('internal/db/db.go');
    // The editor knows the file's language server answers once the lens is
    // drawn: the document is open on the server, its rules resolved.
    await page
      .locator('.monaco-editor .codelens-decoration', { hasText: 'Wrap errors with context' })
      .first()
      .waitFor({ state: 'visible', timeout: 20000 });
    await goToLine(17, 7); // func O|pen(ctx context.Context, …)
    const hover = page.locator('.monaco-hover').filter({ hasText: 'Wrap errors with context' }).first();
    const t0 = Date.now();
    await page.keyboard.press('Control+K');
    await page.keyboard.press('Control+I'); // editor.action.showHover
    try {
      await hover.waitFor({ state: 'visible', timeout: 15000 });
    } catch {
      const seen = await page.locator('.monaco-hover').allInnerTexts().catch(() => []);
      throw new Error(`the first Ctrl+K Ctrl+I showed no hover with the rule; hovers seen: ${JSON.stringify(seen)}`);
    }
    const ms = Date.now() - t0;
    const text = (await hover.innerText()).replace(/\s+/g, ' ').trim();
    if (!/is the example of 1 rule/.test(text) || !/scope language:go/.test(text)) {
      throw new Error(`hover text: ${text}`);
    }
    await shot('08-hover-rule');
    await page.keyboard.press('Escape');
    return `shown ${ms} ms after the keys: ${text.slice(0, 200)}`;
  });

  await check('the code lens of the anchored symbol is there', async () => {
    const lens = page.locator('.monaco-editor .codelens-decoration', { hasText: '⚓ 1 rule: Wrap errors with context' }).first();
    await lens.waitFor({ state: 'visible', timeout: 20000 });
    const text = (await lens.innerText()).trim();
    await shot('09-code-lens');
    return text;
  });

  await check('the Memories view lists the rule under its scope', async () => {
    const pane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Anchorage Memories' }) }).first();
    await pane.waitFor({ state: 'attached', timeout: 10000 });
    const header = pane.locator('.pane-header').first();
    if ((await header.getAttribute('aria-expanded')) !== 'true') {
      await header.click();
    }
    const row = pane.locator('.monaco-list-row', { hasText: 'Wrap errors with context' }).first();
    await row.waitFor({ state: 'visible', timeout: 15000 });
    const texts = (await pane.locator('.monaco-list-row').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    // "Wrap errors … fmt.Errorf and %w" is a Go practice: its scope is inferred as language:go.
    if (!texts.some((t) => /Language: go \(1\)/.test(t))) {
      throw new Error(`no "Language: go (1)" group: ${JSON.stringify(texts)}`);
    }
    if (!texts.some((t) => /db\.Open · internal\/db\/db\.go:17/.test(t))) {
      throw new Error(`the rule does not name its example: ${JSON.stringify(texts)}`);
    }
    await shot('10-memories-view');
    // Its tooltip holds the whole rule, however long the label.
    await page.mouse.move(700, 450);
    await row.hover();
    const tip = page
      .locator('.workbench-hover:visible, .monaco-hover:visible, .context-view .hover-contents:visible')
      .filter({ hasText: 'from 3 corrections' })
      .first();
    await tip.waitFor({ state: 'visible', timeout: 10000 });
    const tipText = (await tip.innerText()).replace(/\s+/g, ' ').trim();
    if (!tipText.includes('Wrap errors with context using fmt.Errorf and %w')) {
      throw new Error(`tooltip: ${tipText}`);
    }
    await shot('10a-memories-tooltip');
    await page.mouse.move(700, 450);
    // Clicking the rule opens its example.
    await openFile('users/repo.go');
    await row.click();
    await page.locator('.tab.active', { hasText: 'db.go' }).waitFor({ state: 'visible', timeout: 10000 });
    return texts.join(' | ');
  });

  await check('approving the pending proposal through its quick fix makes its lens appear', async () => {
    await openFile('api/handlers.go');
    const item = statusItem();
    // The status bar counts the pending proposals (the server's count).
    const wantBefore = statusWith(cli('memory', 'stats').proposals.pending);
    await page.waitForFunction(
      (want) => [...document.querySelectorAll('[aria-label^="Anchorage language server"]')].some((e) => (e.textContent ?? '').trim() === want),
      wantBefore,
      { timeout: 15000 },
    );
    const before = (await item.innerText()).trim();
    // The proposal is an Information diagnostic with the rule's text: the
    // Problems panel lists it.
    await runCommand('View: Focus Problems');
    const problem = page.locator('.markers-panel .monaco-list-row', { hasText: 'Proposed rule: Always log HTTP requests with their duration' }).first();
    await problem.waitFor({ state: 'visible', timeout: 15000 });
    const problems = (await page.locator('.markers-panel .monaco-list-row').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    const info = await problem.locator('.codicon-info, .codicon-warning, .codicon-error').first().getAttribute('class').catch(() => '');
    if (!/codicon-info/.test(info ?? '')) {
      throw new Error(`the proposal is not listed at Information severity: icon "${info}" in ${JSON.stringify(problems)}`);
    }
    await shot('10b-problems-proposal');
    // Opening it puts the cursor on its line: the Quick Fix is there.
    await problem.dblclick();
    await page.locator('.tab.active', { hasText: 'handlers.go' }).waitFor({ state: 'visible', timeout: 10000 });
    const action = page.locator('.action-widget .monaco-list-row', { hasText: 'Approve rule: Always log HTTP requests' }).first();
    for (let attempt = 1; ; attempt++) {
      await page.keyboard.press('Control+.'); // Quick Fix
      try {
        await action.waitFor({ state: 'visible', timeout: 5000 });
        break;
      } catch (err) {
        await page.keyboard.press('Escape');
        if (attempt === 4) {
          const seen = (await page.locator('.action-widget .monaco-list-row').allInnerTexts().catch(() => [])).join(' | ');
          throw new Error(`the Quick Fix menu has no "Approve rule: Always log HTTP requests…" action: ${seen}`);
        }
      }
    }
    const actions = (await page.locator('.action-widget .monaco-list-row').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    // Two proposals are pending (this one and the CLI's worker one): approving all is a quick fix too.
    if (!actions.some((t) => /^Approve all 2 pending rules/.test(t)) || !actions.some((t) => /^Reject rule: Always log HTTP requests/.test(t))) {
      throw new Error(`quick fixes: ${JSON.stringify(actions)}`);
    }
    await shot('11-quick-fix');
    await action.click();
    // The extension sees the answer: a notification names the rule and its example.
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'approved as rule 2' }).first();
    await toast.waitFor({ state: 'visible', timeout: 20000 });
    const toastText = (await toast.innerText()).replace(/\s+/g, ' ').trim();
    await shot('12-approved');
    // The memory has the rule, anchored.
    const shown = cli('memory', 'show');
    const rule = shown.rules.find((r) => r.id === 2);
    if (!rule?.anchor) {
      throw new Error(`rule 2 is not stored with an anchor: ${JSON.stringify(shown.rules.map((r) => [r.id, r.anchor]))}`);
    }
    // The toast names the example's file relative to the workspace.
    if (!toastText.includes(`(${rule.anchor.file}:`)) {
      throw new Error(`the notification does not name ${rule.anchor.file}: "${toastText}"`);
    }
    await toast.locator('.monaco-button', { hasText: 'Open Example' }).click();
    const base = rule.anchor.file.split('/').pop();
    await page.locator('.tab.active', { hasText: base }).waitFor({ state: 'visible', timeout: 10000 });
    const lens = page.locator('.monaco-editor .codelens-decoration', { hasText: rule.content.slice(0, 30) }).first();
    await lens.waitFor({ state: 'visible', timeout: 20000 });
    const lensText = (await lens.innerText()).trim();
    // The status counts what is still pending: the approval published the
    // other hints (the worker proposal seeded by the CLI).
    const pending = cli('memory', 'stats').proposals.pending;
    const want = statusWith(pending);
    await page.waitForFunction(
      (want) => [...document.querySelectorAll('[aria-label^="Anchorage language server"]')].some((e) => (e.textContent ?? '').trim() === want),
      want,
      { timeout: 15000 },
    );
    await shot('13-approved-lens');
    return `status "${before}" → "${want}"; actions ${JSON.stringify(actions)}; "${toastText}"; lens in ${rule.anchor.file}: "${lensText}"`;
  });

  await check('Copy AI Context copies the rules of the file', async () => {
    await openFile('internal/db/db.go');
    await runCommand('Anchorage: Copy AI Context');
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'copied' }).first();
    await toast.waitFor({ state: 'visible', timeout: 15000 });
    const text = (await toast.innerText()).replace(/\s+/g, ' ').trim();
    if (!/copied [12] rules? \(\d+ of 1500 tokens\) for internal\/db\/db\.go/.test(text)) {
      throw new Error(`notification: ${text}`);
    }
    // The page may read the clipboard (permission granted above).
    const clip = await page.evaluate(() => navigator.clipboard.readText());
    if (!clip.startsWith('## Coding rules') || !clip.includes('Wrap errors with context') || !clip.includes('internal/db/db.go')) {
      throw new Error(`the clipboard holds: ${clip.slice(0, 200)}`);
    }
    await shot('14-copy-context');
    return `${text}; clipboard: ${clip.slice(0, 80).replace(/\n/g, '⏎')}`;
  });

  await check('Record Correction takes the selection and records it', async () => {
    await openFile('users/repo.go');
    await goToLine(25, 1);
    await page.keyboard.press('Shift+End');
    await runCommand('Anchorage: Record Correction');
    const input = page.locator(`${quickInput} input`);
    await input.waitFor({ state: 'visible', timeout: 10000 });
    const title = (await page.locator(`${quickInput} .quick-input-title`).innerText().catch(() => '')).trim();
    if (!/about users\/repo\.go:25/.test(title)) {
      throw new Error(`input title does not name the selection: "${title}"`);
    }
    await input.fill('Check for an empty id before saving a user');
    await page.keyboard.press('Enter');
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'recorded correction' }).first();
    await toast.waitFor({ state: 'visible', timeout: 15000 });
    const text = (await toast.innerText()).replace(/\s+/g, ' ').trim();
    if (!/recorded correction \d+ \(users\/repo\.go\); 1 open correction/.test(text)) {
      throw new Error(`notification: ${text}`);
    }
    await shot('15-record-correction');
    // Two more alike, typed into the input box, make a proposal. The
    // notification of the first is still up: they do not stack more.
    for (const [i, more] of ['Check for an empty user id before saving a user', 'Always check for an empty id before saving a user'].entries()) {
      await runCommand('Anchorage: Record Correction');
      await input.waitFor({ state: 'visible', timeout: 10000 });
      await input.fill(more);
      await page.keyboard.press('Enter');
      await page
        .locator('.statusbar-item, .notifications-toasts .notification-toast', { hasText: `${i + 2} open corrections` })
        .first()
        .waitFor({ state: 'visible', timeout: 15000 });
    }
    const stacked = await page.locator('.notifications-toasts .notification-toast', { hasText: 'recorded correction' }).count();
    if (stacked !== 1) {
      throw new Error(`${stacked} "recorded correction" notifications, want 1`);
    }
    await shot('15b-corrections-collapsed');
    await page.locator('.notifications-toasts .notification-toast', { hasText: 'recorded correction' }).first().hover();
    await page.locator('.notifications-toasts .notification-toast .codicon-notifications-clear, .notifications-toasts .notification-toast .codicon-close').first().click().catch(() => {});
    return `title "${title}"; ${text}; then 3 open corrections`;
  });

  await check('Approve Memory Proposals: multi-select, then the scope', async () => {
    await runCommand('Anchorage: Approve Memory Proposals');
    const title = page.locator(`${quickInput} .quick-input-title`);
    // The three corrections make one proposal (or two when the clustering
    // splits them); the CLI's worker proposal is listed too, whole, by
    // anchorage.memory.proposals (its confidence, not "from another session").
    await title.filter({ hasText: /approve memory proposals \(\d pending\)/ }).waitFor({ state: 'visible', timeout: 15000 });
    const texts = await rowTexts();
    const ours = texts.filter((t) => /empty (user )?id before saving/.test(t) && /project:sampleapp · \d corrections?/.test(t));
    const cliMade = texts.filter((t) => /instead of print in workers/.test(t) && /confidence 0\.\d\d/.test(t));
    if (ours.length === 0 || cliMade.length === 0 || ours.length + cliMade.length !== texts.length) {
      throw new Error(`want the proposals of the 3 corrections and the CLI's: ${JSON.stringify(texts)}`);
    }
    // The multi-select's count badge: "2 Selected".
    const checked = (await page.locator(`${quickInput} .quick-input-count`).innerText().catch(() => '')).trim();
    if (checked !== `${texts.length} Selected`) {
      throw new Error(`every proposal should be selected: badge "${checked}" for ${texts.length} rows`);
    }
    await shot('18-approve-proposals');
    await page.keyboard.press('Enter');
    await title.filter({ hasText: 'with the scope' }).waitFor({ state: 'visible', timeout: 10000 });
    const scopes = await rowTexts();
    await shot('19-approve-scope');
    await page.locator(rows, { hasText: 'Universal' }).first().click();
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: new RegExp(`approved ${texts.length} rules: “`) }).first();
    await toast.waitFor({ state: 'visible', timeout: 20000 });
    const msg = (await toast.innerText()).replace(/\s+/g, ' ').trim();
    const rules = cli('memory', 'show').rules.filter((r) => r.id >= 3);
    if (rules.length !== texts.length || !rules.every((r) => r.scope === 'universal') || !rules.some((r) => /instead of print in workers/.test(r.content))) {
      throw new Error(`want ${texts.length} universal rules, the worker one among them: ${JSON.stringify(rules.map((r) => [r.id, r.scope, r.content]))}`);
    }
    if (cli('memory', 'stats').proposals.pending !== 0) {
      throw new Error('proposals are still pending');
    }
    // The message says each rule's text, not "rule 3, rule 4".
    if (!rules.every((r) => msg.includes(r.content.slice(0, 40)))) {
      throw new Error(`the notification does not name every rule: "${msg}"`);
    }
    await shot('20-approved-universal');
    return `proposals ${JSON.stringify(texts)} (selected); scopes ${JSON.stringify(scopes)}; ${msg}`;
  });

  await check('Show Working Memory Slots lists A, B, C and pins one', async () => {
    await runCommand('Anchorage: Show Working Memory Slots');
    const slotA = page.locator(rows, { hasText: 'A: ' }).first();
    await slotA.waitFor({ state: 'visible', timeout: 15000 });
    const texts = await rowTexts();
    if (texts.length !== 3 || !/A: /.test(texts[0]) || !/B: /.test(texts[1]) || !/C: /.test(texts[2])) {
      throw new Error(`want slots A, B, C: ${JSON.stringify(texts)}`);
    }
    await shot('16-slots');
    // Hover and approvals above gave slot A an anchor: pin it.
    if (/A: \(empty\)/.test(texts[0])) {
      throw new Error(`slot A holds nothing after hovering an anchored rule: ${texts[0]}`);
    }
    await slotA.click();
    const pin = page.locator(rows, { hasText: 'Pin slot A' }).first();
    await pin.waitFor({ state: 'visible', timeout: 10000 });
    await pin.click();
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'slot A pinned to' }).first();
    await toast.waitFor({ state: 'visible', timeout: 15000 });
    const msg = (await toast.innerText()).replace(/\s+/g, ' ').trim();
    await shot('17-slot-pinned');
    return `${texts.join(' | ')}; ${msg}`;
  });

  await check('Re-index Workspace re-indexes on the server', async () => {
    await closeQuickInput();
    const item = statusItem();
    const seen = new Set();
    const before = indexedCount();
    const start = Date.now();
    await runCommand('Anchorage: Re-index Workspace');
    // Done when the server logged another finished indexing (its
    // window/logMessage lands in the output channel) and the item is idle.
    let after = before;
    for (;;) {
      const label = (await item.getAttribute('aria-label')) ?? '';
      seen.add(label.replace('Anchorage language server: ', ''));
      const toasts = (await page.locator('.notifications-toasts').innerText().catch(() => '')).replace(/\s+/g, ' ');
      if (/cannot re-index|re-indexing failed|not running/i.test(toasts)) {
        throw new Error(`notification: ${toasts}`);
      }
      after = indexedCount();
      if (/: ready( · .*)?$/.test(label) && (after > before || !process.env.E2E_LOGS)) {
        break;
      }
      if (Date.now() - start > 30000) {
        throw new Error(`no new "indexed" line in the Anchorage log (${before} → ${after}); status seen ${[...seen].join(' → ')}`);
      }
      await page.waitForTimeout(50);
    }
    await shot('07-reindexed');
    return `"anchorage: indexed" log lines ${before} → ${after}; status seen: ${[...seen].join(' → ')}`;
  });
  // ---- bad input: the binary goes missing (anchorage.path changes, which
  // restarts the server): one clear message, the status item says so, the
  // Memories view offers the way out. Then a memory with no rules: the
  // view's welcome.
  const machineSettings = process.env.E2E_MACHINE_SETTINGS;
  const writeMachine = (o) => writeFileSync(machineSettings, JSON.stringify(o, null, 2));
  const original = machineSettings ? JSON.parse(readFileSync(machineSettings, 'utf8')) : undefined;

  /** The pids of the language servers running this binary (their command line starts with it). */
  const serverPids = (bin) => {
    const out = [];
    for (const e of readdirSync('/proc')) {
      if (!/^\d+$/.test(e)) {
        continue;
      }
      try {
        const argv = readFileSync(`/proc/${e}/cmdline`, 'utf8').split('\0');
        if (argv[0] === bin && argv[1] === 'serve') {
          out.push(Number(e));
        }
      } catch {
        // gone meanwhile
      }
    }
    return out;
  };
  /** The toasts on screen, whitespace folded. */
  const toastTexts = async () =>
    (await page.locator('.notifications-toasts .notification-toast').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
  /** Waits until the status item's text matches re; returns the texts seen. */
  const statusUntil = async (re, ms) => {
    const seen = [];
    const deadline = Date.now() + ms;
    for (;;) {
      const text = ((await statusItem().textContent().catch(() => '')) ?? '').trim();
      if (seen[seen.length - 1] !== text) {
        seen.push(text);
      }
      if (re.test(text)) {
        return seen;
      }
      if (Date.now() > deadline) {
        throw new Error(`the status item never matched ${re}; seen ${JSON.stringify(seen)}`);
      }
      await page.waitForTimeout(50);
    }
  };
  const memoriesPane = () => page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Anchorage Memories' }) }).first();

  await check('a killed server: restarted, the status item says so, one clear message, the Memories view still lists the rule', async () => {
    const bin = process.env.E2E_ANCHORAGE;
    await closeQuickInput();
    await runCommand('Notifications: Clear All Notifications');
    const before = serverPids(bin);
    if (before.length !== 1) {
      throw new Error(`want one running server of ${bin}, found pids ${JSON.stringify(before)}`);
    }
    process.kill(before[0], 'SIGKILL');
    // The message, then the status item back to idle with a new server
    // ("restarting" shows meanwhile, too briefly to be sure to see it).
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'stopped unexpectedly' }).first();
    await toast.waitFor({ state: 'visible', timeout: 60000 });
    const seen = await statusUntil(/^⚓ Anchorage/, 60000);
    const after = serverPids(bin);
    if (after.length !== 1 || after[0] === before[0]) {
      throw new Error(`want one new server after the kill: pids before ${before}, after ${after}`);
    }
    // The view and the count come back from the new server.
    await runCommand('Anchorage: Refresh Memories');
    await memoriesPane().locator('.monaco-list-row', { hasText: 'Wrap errors' }).first().waitFor({ state: 'visible', timeout: 20000 });
    await page.waitForTimeout(1000); // time for a stack of notifications to show, if any
    const ours = (await toastTexts()).filter((t) => /Anchorage|anchorage/.test(t));
    if (ours.length !== 1) {
      throw new Error(`want one message, got ${JSON.stringify(ours)}`);
    }
    await shot('23-killed-server');
    return `pid ${before[0]} killed, now ${after[0]}; status ${seen.map((t) => JSON.stringify(t)).join(' → ')}; message: ${ours[0]}`;
  });

  await check('an older server (built from git history): the status item, one clear message, the Memories view says to update', async () => {
    const old = process.env.E2E_OLD_ANCHORAGE;
    if (!machineSettings || !old || !process.env.E2E_OLD_DATA) {
      return `skipped: ${!old ? 'E2E_OLD_ANCHORAGE' : 'E2E_MACHINE_SETTINGS'} not set`;
    }
    await closeQuickInput();
    await runCommand('Notifications: Clear All Notifications');
    // On the data the current server wrote, the older one cannot start:
    // the index's schema is newer than it. One message says so.
    writeMachine({ ...original, 'anchorage.path': old });
    await statusUntil(/^Anchorage$/, 60000); // the error icon and the name
    const failed = page.locator('.notifications-toasts .notification-toast', { hasText: 'did not start' }).first();
    await failed.waitFor({ state: 'visible', timeout: 15000 });
    await page.waitForTimeout(1500); // time for a stack of notifications to show, if any
    // The extension's message (with its buttons) is one; the older
    // server also shows its own window/showMessage, which the language
    // client displays as it comes (the extension cannot withdraw it).
    const first = (await toastTexts()).filter((t) => /Source: Anchorage/.test(t) && /did not start/.test(t));
    if (first.length !== 1 || !/newer/.test(first[0])) {
      throw new Error(`an older server on newer data: want one message saying why, got ${JSON.stringify(await toastTexts())}`);
    }
    await shot('24-older-server-newer-data');
    // On data of its own, it runs; the extension says it is outdated.
    await runCommand('Notifications: Clear All Notifications');
    writeMachine({ ...original, 'anchorage.path': old, 'anchorage.dataDir': process.env.E2E_OLD_DATA });
    const seen = await statusUntil(/update the server/, 60000);
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'older than this extension' }).first();
    await toast.waitFor({ state: 'visible', timeout: 15000 });
    const welcome = memoriesPane().locator('.welcome-view-content', { hasText: 'older than this extension' }).first();
    await welcome.waitFor({ state: 'visible', timeout: 20000 });
    // What still works on the older server: the outline of a file.
    await openFile('users/repo.go');
    await page.waitForTimeout(1500); // time for a stack of notifications to show, if any
    const ours = (await toastTexts()).filter((t) => /Anchorage|anchorage/.test(t));
    if (ours.length !== 1 || ours[0].includes('`')) {
      throw new Error(`want one message without backticks, got ${JSON.stringify(ours)}`);
    }
    if ((await memoriesPane().locator('.monaco-list-row', { hasText: 'Cannot list rules' }).count()) > 0) {
      throw new Error('the Memories view shows an error row instead of its welcome');
    }
    await shot('25-older-server');
    // Back to the current server.
    writeMachine(original);
    await statusUntil(/^⚓ Anchorage/, 60000);
    return `newer data: ${first[0]}; own data: status ${seen.map((t) => JSON.stringify(t)).join(' → ')}; message: ${ours[0]}; view: ${(await welcome.innerText().catch(() => '')).replace(/\s+/g, ' ').trim()}`;
  });

  await check('a missing server binary: the status item, one clear message, the Memories view says what to do', async () => {
    if (!machineSettings) {
      return 'skipped: E2E_MACHINE_SETTINGS not set';
    }
    await closeQuickInput();
    await page.locator('.notifications-toasts .notification-toast').first().waitFor({ state: 'hidden', timeout: 1 }).catch(() => {});
    await runCommand('Notifications: Clear All Notifications');
    // Room for the view: no panel, no outline.
    await runCommand('View: Close Panel').catch(() => {});
    const outlineHeader = page.locator('.pane-header', { hasText: /^Outline/ }).first();
    if ((await outlineHeader.getAttribute('aria-expanded').catch(() => null)) === 'true') {
      await outlineHeader.click();
    }
    writeMachine({ ...original, 'anchorage.path': '/nonexistent/anchorage' });
    await page.waitForFunction(
      () => [...document.querySelectorAll('[aria-label^="Anchorage language server"]')].some((e) => /not installed/.test(e.textContent ?? '')),
      null,
      { timeout: 30000 },
    );
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'was not found' }).first();
    await toast.waitFor({ state: 'visible', timeout: 15000 });
    const toasts = (await page.locator('.notifications-toasts .notification-toast').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    const ours = toasts.filter((t) => /Anchorage/.test(t));
    if (ours.length !== 1 || ours[0].includes('`')) {
      throw new Error(`want one message without Markdown backticks: ${JSON.stringify(toasts)}`);
    }
    const pane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Anchorage Memories' }) }).first();
    const welcome = pane.locator('.welcome-view-content', { hasText: 'was not found' }).first();
    await welcome.waitFor({ state: 'visible', timeout: 15000 });
    await shot('21-missing-binary');
    return `${ours[0]}; view: ${(await welcome.innerText()).replace(/\s+/g, ' ').trim()}`;
  });

  await check('a memory without rules: the Memories view welcomes with buttons', async () => {
    if (!machineSettings || !process.env.E2E_EMPTY_DATA) {
      return 'skipped: E2E_MACHINE_SETTINGS or E2E_EMPTY_DATA not set';
    }
    await runCommand('Notifications: Clear All Notifications');
    writeMachine({ ...original, 'anchorage.dataDir': process.env.E2E_EMPTY_DATA });
    await page.waitForFunction(
      () => [...document.querySelectorAll('[aria-label^="Anchorage language server"]')].some((e) => (e.textContent ?? '').trim() === '⚓ Anchorage'),
      null,
      { timeout: 60000 },
    );
    await runCommand('Anchorage: Refresh Memories');
    const pane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Anchorage Memories' }) }).first();
    const welcome = pane.locator('.welcome-view-content', { hasText: 'No rules yet' }).first();
    await welcome.waitFor({ state: 'visible', timeout: 20000 });
    const buttons = (await welcome.locator('.monaco-button').allInnerTexts()).map((t) => t.trim());
    if (!buttons.includes('Record a Correction') || !buttons.includes('Open the Docs')) {
      throw new Error(`welcome buttons: ${JSON.stringify(buttons)}`);
    }
    const ours = (await toastTexts()).filter((t) => /Anchorage|anchorage/.test(t));
    if (ours.length !== 0) {
      throw new Error(`a memory without rules is not an error, yet: ${JSON.stringify(ours)}`);
    }
    await shot('22-memories-welcome');
    return `buttons ${JSON.stringify(buttons)}`;
  });
} catch (err) {
  console.log(`aborted: ${err.message}`);
} finally {
  await browser?.close().catch(() => {});
}

console.log('\n== e2e results');
for (const r of results) {
  console.log(`${r.ok ? 'PASS' : 'FAIL'}  ${(r.ms / 1000).toFixed(1).padStart(5)}s  ${r.name}`);
}
console.log(`browser total ${((Date.now() - t0) / 1000).toFixed(1)}s`);
console.log(`screenshots (${shots.length}):`);
for (const s of shots) {
  console.log(`  ${s}`);
}
const failed = results.filter((r) => !r.ok).length;
if (failed > 0 || results.length === 0) {
  console.log(`${failed || 'all'} check(s) failed`);
  process.exit(1);
}
