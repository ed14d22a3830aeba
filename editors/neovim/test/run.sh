#!/usr/bin/env bash
# Neovim headless tests: builds anchorage, then
#  1. smoke.lua starts it from Neovim's own LSP client on a copy of
#     testdata/sampleapp and checks workspace/symbol, documentSymbol,
#     anchorage.callers and an edit;
#  2. plugin.lua loads the plugin (editors/neovim) with
#     require('anchorage').setup{...} on another copy and checks that the
#     client attaches, :AnchorageSearch, :AnchorageCallers/Callees/
#     BlastRadius, :AnchorageStatus/Reindex, one client per root, the code
#     lens autocommands and :help anchorage after :helptags; with memory
#     seeded by the CLI: hover and code lens of an anchored rule, approving
#     a proposal through its code action (its lens appears),
#     :AnchorageCorrect, :AnchorageApprove, :AnchorageInject, :AnchorageSlots.
# Installs nothing: needs go, gcc (cgo) and nvim (0.7 or later) on PATH.
# ANCHORAGE_BIN=path tests that binary instead of building one.
set -euo pipefail
cd "$(dirname "$0")/../../.."

command -v nvim >/dev/null || { echo "nvim is required (apt-get install -y neovim)" >&2; exit 1; }
command -v go >/dev/null || { echo "go is required" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ -n "${ANCHORAGE_BIN:-}" ]; then
  echo "using the anchorage binary $ANCHORAGE_BIN (ANCHORAGE_BIN)"
  cp "$ANCHORAGE_BIN" "$tmp/anchorage"
else
  echo "building anchorage"
  go build -o "$tmp/anchorage" .
fi

cp -R testdata/sampleapp "$tmp/sampleapp"
mkdir -p "$tmp/data" "$tmp/xdg/config" "$tmp/xdg/data" "$tmp/xdg/state" "$tmp/xdg/cache" "$tmp/xdg/run"
chmod 700 "$tmp/xdg/run"
result="$tmp/result.txt"
log="$tmp/server.log"

nvim --version | head -n 1

rc=0
# XDG_*: keep Neovim's shada, swap and lsp.log out of the home directory.
env \
  ANCHORAGE_BIN="$tmp/anchorage" \
  ANCHORAGE_ROOT="$tmp/sampleapp" \
  ANCHORAGE_DATA="$tmp/data" \
  ANCHORAGE_RESULT="$result" \
  ANCHORAGE_LOG="$log" \
  XDG_CONFIG_HOME="$tmp/xdg/config" \
  XDG_DATA_HOME="$tmp/xdg/data" \
  XDG_STATE_HOME="$tmp/xdg/state" \
  XDG_CACHE_HOME="$tmp/xdg/cache" \
  XDG_RUNTIME_DIR="$tmp/xdg/run" \
  timeout -k 10 120 nvim --headless -u NONE -i NONE -n \
    -c 'luafile editors/neovim/test/smoke.lua' </dev/null || rc=$?

echo "== smoke results"
if [ -f "$result" ]; then cat "$result"; else echo "(no result file)"; fi

status=0
if [ "$rc" -ne 0 ]; then
  echo "nvim exited with status $rc (smoke.lua)" >&2
  status=1
fi
if [ -f "$result" ] && grep -q '^FAIL' "$result"; then
  status=1
fi
for check in initialize workspace-symbol document-symbol callers edit-workspace-symbol edit-document-symbol; do
  if ! { [ -f "$result" ] && grep -qx "ok $check" "$result"; }; then
    echo "missing: ok $check" >&2
    status=1
  fi
done

# 2. The plugin, on a copy of its own (the smoke test edited the first).
plugin_root="$tmp/plugin/sampleapp"
mkdir -p "$tmp/plugin/data" "$tmp/plugin/scratch"
cp -R testdata/sampleapp "$plugin_root"
presult="$tmp/plugin/result.txt"
plog="$tmp/plugin/server.log"
# Memory, seeded with the CLI in the data directory the plugin's server
# uses: rule 1 "Wrap errors with context ..." approved and anchored in the
# workspace (hover, code lens), and proposal 2 pending (its hint at the top
# of api/handlers.go, approved through a code action).
. editors/test/memory_seed.sh
seed_sample_memory "$tmp/anchorage" "$tmp/plugin/data" "$plugin_root"
# Proposal 3 stays pending: :AnchorageApprove lists it with
# anchorage.memory.proposals (the CLI's session is not the server's).
correct_all "$tmp/anchorage" "$tmp/plugin/data" "$plugin_root" worker/runner.py \
  "Use logging instead of print in workers" \
  "Use the logging module instead of print in workers" \
  "Always use logging instead of print in workers"
prc=0
start=$(date +%s)
env \
  ANCHORAGE_BIN="$tmp/anchorage" \
  ANCHORAGE_ROOT="$plugin_root" \
  ANCHORAGE_DATA="$tmp/plugin/data" \
  ANCHORAGE_PLUGIN="$PWD/editors/neovim" \
  ANCHORAGE_SCRATCH="$tmp/plugin/scratch" \
  ANCHORAGE_RESULT="$presult" \
  ANCHORAGE_LOG="$plog" \
  XDG_CONFIG_HOME="$tmp/xdg/config" \
  XDG_DATA_HOME="$tmp/xdg/data" \
  XDG_STATE_HOME="$tmp/xdg/state" \
  XDG_CACHE_HOME="$tmp/xdg/cache" \
  XDG_RUNTIME_DIR="$tmp/xdg/run" \
  timeout -k 10 150 nvim --headless -u NONE -i NONE -n \
    -c 'luafile editors/neovim/test/plugin.lua' </dev/null || prc=$?

echo "== plugin results ($(( $(date +%s) - start )) s)"
if [ -f "$presult" ]; then cat "$presult"; else echo "(no result file)"; fi

pstatus=0
if [ "$prc" -ne 0 ]; then
  echo "nvim exited with status $prc (plugin.lua)" >&2
  pstatus=1
fi
if [ -f "$presult" ] && grep -q '^FAIL' "$presult"; then
  pstatus=1
fi
for check in root-markers setup-validate missing-binary attach indexed status callers blast-radius callees \
  search search-open search-used search-input search-format editor-helpers command-errors hover codelens approve-code-action approve-lens \
  correct correct-range list-pending approve-command inject slots memory-format reuse-root codelens-guard reindex help \
  lsp-config-file no-errors no-globals; do
  if ! { [ -f "$presult" ] && grep -qx "ok $check" "$presult"; }; then
    echo "missing: ok $check" >&2
    pstatus=1
  fi
done

# The plugin never writes into its own folder (help tags go to a copy).
if [ -e editors/neovim/doc/tags ] && [ editors/neovim/doc/tags -nt "$tmp/anchorage" ]; then
  echo "the test wrote editors/neovim/doc/tags" >&2
  pstatus=1
fi

lsplog=$(find "$tmp/xdg" -name 'lsp.log' 2>/dev/null | head -n 1)
if [ "$status" -ne 0 ]; then
  echo "== smoke: server log (last 40 lines)"
  tail -n 40 "$log" 2>/dev/null || echo "(no server log)"
fi
if [ "$pstatus" -ne 0 ]; then
  echo "== plugin: server log (last 40 lines)"
  tail -n 40 "$plog" 2>/dev/null || echo "(no server log)"
fi
if [ "$status" -ne 0 ] || [ "$pstatus" -ne 0 ]; then
  if [ -n "$lsplog" ]; then
    echo "== neovim lsp.log (last 40 lines)"
    tail -n 40 "$lsplog"
  fi
fi

if [ "$status" -ne 0 ]; then
  echo "neovim smoke test: FAILED" >&2
else
  echo "neovim smoke test: ok"
fi
if [ "$pstatus" -ne 0 ]; then
  echo "neovim plugin test: FAILED" >&2
else
  echo "neovim plugin test: ok"
fi
if [ "$status" -ne 0 ] || [ "$pstatus" -ne 0 ]; then
  exit 1
fi
