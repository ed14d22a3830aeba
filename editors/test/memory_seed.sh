# Sourced by the editor tests (editors/*/test/run.sh): memory for a copy of
# testdata/sampleapp, seeded with the CLI as a user's corrections would.

# anchorage_memory BIN DATA ROOT ARGS... runs `anchorage memory ARGS` on
# the workspace ROOT with its state in DATA, quietly. It runs from ROOT:
# --file is taken relative to the current directory.
anchorage_memory() {
  local bin=$1 data=$2 root=$3
  shift 3
  (cd "$root" && "$bin" --data-dir "$data" memory "$@" --root . >/dev/null)
}

# correct_all BIN DATA ROOT FILE TEXT... records each TEXT as a correction
# made in FILE, then proposes the rules they repeat.
correct_all() {
  local bin=$1 data=$2 root=$3 file=$4 text
  shift 4
  for text in "$@"; do
    anchorage_memory "$bin" "$data" "$root" correct "$text" --file "$file"
  done
  anchorage_memory "$bin" "$data" "$root" propose
}

# seed_sample_memory BIN DATA ROOT leaves rule 1 "Wrap errors with context
# ..." approved and anchored in the workspace (hover, code lens) on db.Open,
# where its corrections were made, and proposal 2 "Log every HTTP request
# ..." pending (its hint in api/handlers.go, approved through a code action).
seed_sample_memory() {
  correct_all "$@" internal/db/db.go "Wrap errors with context using fmt.Errorf and %w" \
    "Wrap the error with context with fmt.Errorf and %w" \
    "Always wrap errors with context: fmt.Errorf with %w"
  anchorage_memory "$@" approve 1
  correct_all "$@" api/handlers.go "Log every HTTP request with its duration" \
    "Log each HTTP request and how long it took" \
    "Always log HTTP requests with their duration"
}
