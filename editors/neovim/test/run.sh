#!/usr/bin/env bash
# Neovim headless smoke test: builds anchorage, starts it from Neovim's own
# LSP client on a copy of testdata/sampleapp, and checks workspace/symbol,
# documentSymbol, anchorage.callers and an edit (see smoke.lua).
# Installs nothing: needs go, gcc (cgo) and nvim (0.7 or later) on PATH.
set -euo pipefail
cd "$(dirname "$0")/../../.."

command -v nvim >/dev/null || { echo "nvim is required (apt-get install -y neovim)" >&2; exit 1; }
command -v go >/dev/null || { echo "go is required" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "building anchorage"
go build -o "$tmp/anchorage" .

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

echo "== results"
if [ -f "$result" ]; then cat "$result"; else echo "(no result file)"; fi

status=0
if [ "$rc" -ne 0 ]; then
  echo "nvim exited with status $rc" >&2
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

if [ "$status" -ne 0 ]; then
  echo "== server log (last 40 lines)"
  tail -n 40 "$log" 2>/dev/null || echo "(no server log)"
  lsplog=$(find "$tmp/xdg" -name 'lsp.log' 2>/dev/null | head -n 1)
  if [ -n "$lsplog" ]; then
    echo "== neovim lsp.log (last 40 lines)"
    tail -n 40 "$lsplog"
  fi
  echo "neovim smoke test: FAILED" >&2
  exit 1
fi
echo "neovim smoke test: ok"
