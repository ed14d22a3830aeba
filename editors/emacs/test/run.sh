#!/usr/bin/env bash
# Checks the README's Emacs configuration (eglot-server-programs) headless
# against a real `anchorage serve` on a copy of testdata/sampleapp, with
# memory seeded by the CLI: the capabilities eglot sees, hover on an
# anchored symbol, code lenses (answered; eglot does not draw them), routed
# search, a proposal's hint in flymake and approving it with its code action.
#
# The README's Helix languages.toml and Zed settings are parsed and checked
# too (python3 3.11+).
#
# Needs go (unless ANCHORAGE_BIN is set) and Emacs with eglot (Emacs 29+, or
# Debian's emacs-nox + elpa-eglot on Emacs 28). Installs nothing.
set -euo pipefail
cd "$(dirname "$0")/../../.."

command -v emacs >/dev/null || { echo "emacs is required (apt-get install -y emacs-nox elpa-eglot)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -n "${ANCHORAGE_BIN:-}" ]; then
  cp "$ANCHORAGE_BIN" "$tmp/anchorage"
else
  go build -o "$tmp/anchorage" .
fi
cp -R testdata/sampleapp "$tmp/sampleapp"
mkdir -p "$tmp/data" "$tmp/home"
# eglot's project is project.el's: the version-control root, as a user's
# checkout has one.
git -C "$tmp/sampleapp" init -q

. editors/test/memory_seed.sh
seed_sample_memory "$tmp/anchorage" "$tmp/data" "$tmp/sampleapp"

# The README's configurations, as written there: the eglot form is loaded
# by eglot-check.el; the Helix and Zed ones are parsed and checked here.
python3 - README.md "$tmp/readme-eglot.el" <<'PY'
import json, re, sys, tomllib
readme = open(sys.argv[1], encoding="utf-8").read()
def block(after, lang):
    i = readme.index(after)
    m = re.compile(r"```" + lang + r"\n(.*?)```", re.S).search(readme, i)
    return m.group(1)
helix = tomllib.loads(block("**Helix**", "toml"))
server = helix["language-server"]["anchorage"]
assert server["command"] == "anchorage" and server["args"] == ["serve"], server
assert isinstance(server["config"]["anchorage"], dict), server
langs = {l["name"]: l["language-servers"] for l in helix["language"]}
assert all("anchorage" in s for s in langs.values()) and "go" in langs, langs
zed = json.loads(block("**Zed**", "json"))
assert all("anchorage" in l["language_servers"] for l in zed["languages"].values()), zed
assert zed["lsp"]["anchorage"]["binary"]["arguments"] == ["serve"], zed
open(sys.argv[2], "w", encoding="utf-8").write(block("**Emacs**", "elisp"))
print("README: Helix languages.toml (%s) and Zed settings parse; the eglot form is extracted" % ", ".join(sorted(langs)))
PY

emacs --version | head -n 1
rc=0
# HOME: keep Emacs's own files out of the real home directory. --batch skips the
# init file but loads site-start (Debian's elpa packages such as eglot).
HOME="$tmp/home" ANCHORAGE_BIN="$tmp/anchorage" ANCHORAGE_DATA="$tmp/data" ANCHORAGE_ROOT="$tmp/sampleapp" \
  ANCHORAGE_RESULT="$tmp/result.txt" ANCHORAGE_README_EL="$tmp/readme-eglot.el" \
  timeout -k 10 120 emacs --batch -l editors/emacs/test/eglot-check.el 2>"$tmp/emacs.log" || rc=$?

echo "== eglot results"
if [ -f "$tmp/result.txt" ]; then cat "$tmp/result.txt"; else echo "(no result file)"; fi
status=0
[ "$rc" -eq 0 ] || { echo "emacs exited with status $rc" >&2; status=1; }
for check in capabilities hover codelens search proposal-hint approve-code-action hint-cleared; do
  grep -qx "ok $check" "$tmp/result.txt" 2>/dev/null || { echo "missing: ok $check" >&2; status=1; }
done
if [ "$status" -ne 0 ]; then
  echo "== emacs log (last 40 lines)"
  tail -n 40 "$tmp/emacs.log"
  echo "emacs eglot check: FAILED" >&2
  exit 1
fi
echo "emacs eglot check: ok"
