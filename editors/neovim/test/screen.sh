#!/usr/bin/env bash
# Screen test of the Neovim plugin as a person sees it: Neovim in tmux, with
# gopls beside Anchorage on a copy of testdata/sampleapp (memory seeded by
# the CLI: rule 1 anchored on db.Open, proposal 2 pending). It reads the
# screen (tmux capture-pane) and checks:
#   hover-merged       K on db.Open shows gopls's signature and Anchorage's
#                      rule in one float, the cursor stays in the code
#   hover-backticks    the rule's lines show db.Open, not `db.Open`
#   progress           the end of indexing is said with vim.notify
#   dependency-file    a file of GOROOT joins the project's client (no
#                      second server) and gets an outline
#   dependency-callers :AnchorageCallers there says the graph does not know it
#   approve-prompts    :AnchorageApprove's two prompts do not run together
#   missing-binary     a missing binary: one message, no "Error detected
#                      while processing", no press-Enter prompt
# Screens are written to $ANCHORAGE_ARTIFACTS (default: a temp dir).
# Needs tmux, nvim, go and gopls (go install golang.org/x/tools/gopls@v0.23.0;
# GOPLS=path to use another). Exits non-zero when a check fails.
set -euo pipefail
cd "$(dirname "$0")/../../.."
repo=$PWD

for tool in tmux nvim go; do
  command -v "$tool" >/dev/null || { echo "$tool is required" >&2; exit 1; }
done
GOPLS=${GOPLS:-$(command -v gopls || echo "$(go env GOPATH)/bin/gopls")}
[ -x "$GOPLS" ] || { echo "gopls is required (go install golang.org/x/tools/gopls@v0.23.0)" >&2; exit 1; }

tmp=$(mktemp -d)
sock="$tmp/tmux.sock"
cleanup() {
  tmux -S "$sock" kill-server 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
artifacts=${ANCHORAGE_ARTIFACTS:-$(mktemp -d)}
mkdir -p "$artifacts"

if [ -n "${ANCHORAGE_BIN:-}" ]; then
  cp "$ANCHORAGE_BIN" "$tmp/anchorage"
else
  go build -o "$tmp/anchorage" .
fi
cp -R testdata/sampleapp "$tmp/sampleapp"
mkdir -p "$tmp/data" "$tmp/xdg/config" "$tmp/xdg/data" "$tmp/xdg/state" "$tmp/xdg/cache" "$tmp/xdg/run" "$tmp/gocache"
chmod 700 "$tmp/xdg/run"
. editors/test/memory_seed.sh
seed_sample_memory "$tmp/anchorage" "$tmp/data" "$tmp/sampleapp"
goroot=$(go env GOROOT)

status=0
ok() { echo "ok $1"; echo "   $2"; }
fail() { echo "FAIL $1: $2"; status=1; }

# session NAME CMD... starts Neovim in a 140x40 tmux window.
session() {
  local name=$1
  shift
  tmux -S "$sock" new-session -d -s "$name" -x 140 -y 40 \
    env XDG_CONFIG_HOME="$tmp/xdg/config" XDG_DATA_HOME="$tmp/xdg/data" XDG_STATE_HOME="$tmp/xdg/state" \
    XDG_CACHE_HOME="$tmp/xdg/cache" XDG_RUNTIME_DIR="$tmp/xdg/run" GOCACHE="$tmp/gocache" GOFLAGS=-mod=mod \
    GOROOT="$goroot" TERM=xterm-256color "$@"
}
screen() { tmux -S "$sock" capture-pane -p -t "$1"; }
keys() { tmux -S "$sock" send-keys -t "$@"; }
# wait_screen SESSION PATTERN [SECONDS]: until the screen matches (grep -E).
wait_screen() {
  local deadline=$((SECONDS + ${3:-60}))
  while ! screen "$1" | grep -Eq "$2"; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      return 1
    fi
    sleep 0.2
  done
}
# wait_file FILE [SECONDS]: until the file exists (Neovim writes it).
wait_file() {
  local deadline=$((SECONDS + ${2:-60}))
  while [ ! -s "$1" ]; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      return 1
    fi
    sleep 0.2
  done
}
save() { screen "$1" > "$artifacts/$2.txt"; }

cat > "$tmp/init.lua" <<EOF
vim.opt.rtp:prepend('$repo/editors/neovim')
vim.o.swapfile = false
vim.o.shortmess = vim.o.shortmess .. 'I'
vim.o.cmdheight = 2
vim.o.laststatus = 2
vim.o.statusline = "%f %{v:lua.require'anchorage'.status()}"
-- Neovim 0.7 maps no hover key: users map K, as :help lsp suggests.
vim.keymap.set('n', 'K', vim.lsp.buf.hover)
require('anchorage').setup({
  cmd = { os.getenv('SCREEN_ANCHORAGE') or '$tmp/anchorage', '--data-dir', '$tmp/data', 'serve' },
})
-- gopls, as a user of Neovim 0.7 starts it.
local gopls
vim.api.nvim_create_autocmd('FileType', {
  pattern = 'go',
  callback = function(args)
    if os.getenv('SCREEN_NO_GOPLS') then
      return
    end
    gopls = gopls or vim.lsp.start_client({ name = 'gopls', cmd = { '$GOPLS' }, root_dir = '$tmp/sampleapp' })
    vim.lsp.buf_attach_client(args.buf, gopls)
  end,
})
-- Ready when both servers answer a hover on db.Open (line 17).
function _G.screen_ready(file)
  local names = {}
  for _, c in pairs(vim.lsp.buf_get_clients(0)) do
    local res = c.request_sync('textDocument/hover', {
      textDocument = { uri = vim.uri_from_bufnr(0) }, position = { line = 16, character = 6 } }, 5000, 0)
    if res and res.result and res.result.contents then
      table.insert(names, c.name)
    end
  end
  if #names == 2 then
    vim.fn.writefile({ table.concat(names, ' ') }, file)
    return true
  end
  return false
end
-- The floating windows' text, and where the cursor is.
function _G.screen_float(file)
  local out = { 'cursor ' .. vim.api.nvim_win_get_cursor(0)[1] .. ':' .. vim.api.nvim_win_get_cursor(0)[2]
    .. (vim.api.nvim_win_get_config(0).relative ~= '' and ' in a float' or ' in the code') }
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(w).relative ~= '' then
      table.insert(out, '--- float ' .. w .. ' conceallevel ' .. vim.wo[w].conceallevel)
      vim.list_extend(out, vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(w), 0, -1, false))
    end
  end
  vim.fn.writefile(out, file)
end
function _G.screen_state(file)
  local names = {}
  for _, c in pairs(vim.lsp.get_active_clients()) do
    table.insert(names, c.name .. '@' .. tostring(c.config.root_dir))
  end
  local syms = vim.lsp.buf_request_sync(0, 'textDocument/documentSymbol', { textDocument = { uri = vim.uri_from_bufnr(0) } }, 10000) or {}
  local n = 0
  for id, r in pairs(syms) do
    local c = vim.lsp.get_client_by_id(id)
    if c and c.name == 'anchorage' and r.result then
      n = #r.result
    end
  end
  vim.fn.writefile({ table.concat(names, ' '), 'anchorage outline: ' .. n,
    'attached: ' .. #vim.tbl_keys(vim.lsp.buf_get_clients(0)) }, file)
end
EOF

# ---- hover beside gopls, progress --------------------------------------------
session main nvim -u "$tmp/init.lua" -i NONE "$tmp/sampleapp/internal/db/db.go"
save main 01-started
# Wait until both servers answer a hover there (gopls loads the module).
keys main ":lua for _ = 1, 60 do if screen_ready('$tmp/ready') then break end vim.wait(500) end" Enter
if ! wait_file "$tmp/ready" 120; then
  fail hover-merged "gopls and anchorage did not both answer a hover: $(screen main | tail -3)"
else
  # Keys are read in order: K comes after the move. Both answers are in
  # once the float holds gopls's signature and the rule.
  keys main Escape ":17" Enter "06l" K
  if ! wait_screen main 'is the example of' 30 || ! wait_screen main 'connects to the database named by dsn\.' 30; then
    save main 02-hover
    fail hover-merged "no float with both answers: $(screen main | sed -n 14,34p)"
  else
    save main 02-hover
    pos=$(tmux -S "$sock" display -p -t main '#{cursor_y}:#{cursor_x}')
    keys main ":lua screen_float('$tmp/float')" Enter
    wait_file "$tmp/float" 30 || true
    floats=$(grep -c '^--- float' "$tmp/float" || true)
    cp "$tmp/float" "$artifacts/02-hover-float.txt"
    if [ "$pos" != "16:6" ] || ! grep -q '^cursor 17:6 in the code' "$tmp/float"; then
      fail hover-merged "the cursor moved: screen $pos (want 16:6), $(head -1 "$tmp/float")"
    elif [ "$floats" -ne 1 ] || ! grep -q 'func Open(ctx context.Context, dsn string) (\*Conn, error)' "$tmp/float" ||
      ! grep -q 'is the example of 1 rule' "$tmp/float"; then
      fail hover-merged "want one float with gopls's signature and the rule: $(tr '\n' '|' < "$tmp/float")"
    else
      ok hover-merged "one float, gopls's signature first, the rule after; cursor stays at $pos"
    fi
    # Anchorage's part (gopls's own link line is Neovim 0.7's rendering of
    # its Markdown, as without Anchorage).
    ours=$(screen main | grep -E 'is the example of|scope project:sampleapp' || true)
    if [ -z "$ours" ] || printf '%s' "$ours" | grep -q '`'; then
      fail hover-backticks "raw backticks in the rule's lines: $ours"
    else
      ok hover-backticks "$(printf '%s' "$ours" | sed 's/^ *//' | tr '\n' '|')"
    fi
  fi
fi

# The end of indexing was said (the message may have been drawn over
# since): Neovim's message history, read until it has it.
said=""
deadline=$((SECONDS + 90))
keys main Escape
while [ -z "$said" ] && [ "$SECONDS" -lt "$deadline" ]; do
  rm -f "$tmp/progress"
  keys main ":lua vim.fn.writefile(vim.split(vim.fn.execute('messages'), '\\n'), '$tmp/progress')" Enter
  wait_file "$tmp/progress" 30 || true
  said=$(grep -Eo 'anchorage: Indexing sampleapp: [0-9]+ files.*' "$tmp/progress" 2>/dev/null | head -1 || true)
  [ -n "$said" ] || sleep 0.5 # polls the history, not a window of time
done
if [ -n "$said" ]; then
  ok progress "$said"
else
  fail progress "no message at the end of indexing: $(cat "$tmp/progress" 2>/dev/null)"
fi

# ---- a file of GOROOT ---------------------------------------------------------
keys main Escape Escape ":edit $goroot/src/net/http/server.go" Enter
keys main ":lua screen_state('$tmp/state')" Enter
if ! wait_file "$tmp/state" 60; then
  fail dependency-file "no state written: $(screen main | tail -3)"
else
  state=$(tr '\n' ' ' < "$tmp/state")
  n=$(grep -o 'anchorage@' "$tmp/state" | wc -l)
  outline=$(sed -n 's/^anchorage outline: //p' "$tmp/state")
  if [ "$n" -ne 1 ] || ! grep -q "anchorage@$tmp/sampleapp" "$tmp/state" || [ "${outline:-0}" -lt 10 ]; then
    fail dependency-file "$state"
  else
    ok dependency-file "$state"
  fi
fi
# :AnchorageCallers there says why it has nothing (not the callers of a
# symbol of the project named alike).
keys main "/func (srv \\*Server) ListenAndServe(" Enter "w" ":AnchorageCallers" Enter
if wait_screen main 'outside the workspace: the code graph does not know its callers' 30; then
  ok dependency-callers "$(screen main | grep -Eo 'anchorage: [^│]*outside the workspace[^│]*' | head -1)"
else
  fail dependency-callers "$(screen main | tail -3)"
fi
save main 03-goroot-file

# ---- :AnchorageApprove's two prompts ------------------------------------------
keys main ":buffer $tmp/sampleapp/internal/db/db.go" Enter ":AnchorageApprove" Enter
if ! wait_screen main 'Approve which rule' 30; then
  fail approve-prompts "no first prompt: $(screen main | tail -5)"
else
  save main 04-approve-first
  keys main 1 Enter
  if ! wait_screen main 'Scope of the approved rule' 30; then
    fail approve-prompts "no second prompt: $(screen main | tail -5)"
  else
    save main 05-approve-scope
    if screen main | grep -Eq 'cancels\): *1 *Scope'; then
      fail approve-prompts "the prompts run together: $(screen main | grep -E 'Scope' | head -1)"
    else
      keys main 1 Enter
      if wait_screen main 'approved as rule 2' 30; then
        save main 06-approved
        ok approve-prompts "the scope prompt starts on its own line; $(screen main | grep -Eo 'approved as rule 2[^│]*' | head -1)"
      else
        fail approve-prompts "no approval message: $(screen main | tail -4)"
      fi
    fi
  fi
fi
keys main Escape ":qa!" Enter

# ---- a missing binary -----------------------------------------------------------
session missing env SCREEN_ANCHORAGE="$tmp/no-such-anchorage" SCREEN_NO_GOPLS=1 \
  nvim -u "$tmp/init.lua" -i NONE "$tmp/sampleapp/users/repo.go"
if ! wait_screen missing 'was not found' 30; then
  fail missing-binary "no message: $(screen missing | tail -4)"
else
  save missing 07-missing-binary
  bad=$(screen missing | grep -E 'Error detected while processing|Press ENTER' || true)
  # Every message Neovim gave, once what was scheduled has run.
  keys missing ":redir! > $tmp/messages | silent messages | redir END" Enter
  wait_file "$tmp/messages" 30 || true
  n=$(grep -c 'was not found' "$tmp/messages" || true)
  if [ -n "$bad" ]; then
    fail missing-binary "$bad"
  elif [ "$n" -ne 1 ] || grep -q 'Error detected' "$tmp/messages"; then
    fail missing-binary "want one message: $(cat "$tmp/messages")"
  else
    ok missing-binary "$(grep 'was not found' "$tmp/messages")"
  fi
fi
keys missing ":qa!" Enter

echo "screens: $artifacts"
exit "$status"
