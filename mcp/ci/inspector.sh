#!/usr/bin/env bash
# An independent MCP client against "anchorage mcp": the
# @modelcontextprotocol/inspector CLI (installed with npm into a temporary
# directory, nothing global) lists the tools and calls search and
# memory_search on a copy of testdata/sampleapp holding one memory
# document; the answers are checked with node.
set -euo pipefail
cd "$(dirname "$0")/../.."

INSPECTOR_VERSION="${INSPECTOR_VERSION:-0.21.1}"
command -v node >/dev/null && command -v npm >/dev/null || { echo "node and npm are required" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "-- installing @modelcontextprotocol/inspector@$INSPECTOR_VERSION into $work"
npm install --silent --no-audit --no-fund --prefix "$work/npm" "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" >/dev/null
inspector="$work/npm/node_modules/.bin/mcp-inspector"

go build -o "$work/anchorage" .
root="$work/sampleapp"
cp -r testdata/sampleapp "$root"
mkdir -p "$root/.anchorage/memory"
cp mcp/testdata/memory/user-loading.md "$root/.anchorage/memory/"
data="$work/data"
# Index first so that the answers checked below are not partial.
"$work/anchorage" --data-dir "$data" --root "$root" index >/dev/null

# inspect PROFILE ARGS: runs the inspector's CLI with ARGS against the
# server serving the tools of PROFILE.
inspect() {
  local profile=$1
  shift
  "$inspector" --cli "$work/anchorage" mcp --tools "$profile" --data-dir "$data" --root "$root" "$@"
}

# check NAME FILE JS: runs JS with `out`, the parsed JSON of FILE, and
# fails with the output when JS throws.
check() {
  local name=$1 file=$2 js=$3
  if ! node -e "const out = JSON.parse(require('fs').readFileSync('$file', 'utf8')); const assert = require('assert'); $js"; then
    echo "inspector: $name: unexpected answer:" >&2
    cat "$file" >&2
    exit 1
  fi
  echo "ok  $name"
}

inspect all --method tools/list >"$work/list.json"
check "tools/list" "$work/list.json" '
  const names = out.tools.map(t => t.name).sort();
  assert.deepStrictEqual(names, ["blast_radius", "callees", "callers", "inject_context", "list_rules",
    "memory_search", "propose", "record_correction", "route", "search", "symbols"]);
  for (const t of out.tools) {
    assert.ok(t.description.length > 200, t.name + ": short description");
    assert.strictEqual(t.inputSchema.type, "object", t.name);
  }'

inspect core --method tools/list >"$work/core.json"
check "tools/list --tools core" "$work/core.json" '
  assert.deepStrictEqual(out.tools.map(t => t.name).sort(), ["inject_context", "memory_search", "route", "search"]);'

inspect all --method tools/call --tool-name search --tool-arg 'query=what calls FindByID' >"$work/search.json"
check "search (structural)" "$work/search.json" '
  const r = out.structuredContent;
  assert.strictEqual(out.isError, undefined);
  assert.strictEqual(r.strategy, "structural");
  assert.ok(r.results.some(x => x.file === "users/service.go" && x.symbol === "Service.GetUser"), "no Service.GetUser");'

inspect all --method tools/call --tool-name search --tool-arg 'query=how does the worker retry failed jobs' --tool-arg top_k=3 >"$work/search2.json"
check "search (semantic, top_k)" "$work/search2.json" '
  const r = out.structuredContent;
  assert.strictEqual(r.strategy, "semantic");
  assert.ok(r.results.length > 0 && r.results.length <= 3);
  assert.ok(r.results.some(x => x.file.startsWith("worker/")), "no worker file");'

inspect all --method tools/call --tool-name memory_search --tool-arg 'query=how are users loaded by id?' \
  --tool-arg includeContent=true --tool-arg 'anchors=["summary","nope"]' >"$work/memory.json"
check "memory_search (anchors, token_metrics)" "$work/memory.json" '
  const r = out.structuredContent;
  const doc = r.results.find(x => x.id === "doc:.anchorage/memory/user-loading.md");
  assert.ok(doc, "the memory document was not found");
  assert.strictEqual(doc.kind, "document");
  assert.match(doc.content, /UserRepository\.FindByID/);
  assert.doesNotMatch(doc.content, /ANCHOR|soft-deleted/);
  assert.deepStrictEqual(doc.missing_anchors, ["nope"]);
  const m = doc.token_metrics;
  assert.deepStrictEqual(Object.keys(m).sort(), ["full_tokens", "returned_tokens", "savings_pct"]);
  assert.ok(m.returned_tokens > 0 && m.returned_tokens < m.full_tokens && m.savings_pct > 0, JSON.stringify(m));'

inspect all --method tools/call --tool-name inject_context --tool-arg 'file=../../etc/passwd' >"$work/bad.json" || true
check "a path outside the root is refused" "$work/bad.json" '
  assert.strictEqual(out.isError, true);
  assert.match(out.content[0].text, /outside the workspace/);'
