#!/bin/bash
# Builds the training corpus of scripts/codevec in DIR (default
# /tmp/codevec-corpus): (doc sentence, definition) pairs of Go modules
# (gomodules.txt, fetched into a module cache of its own) and Python
# packages of Debian (debian.txt, downloaded and unpacked, never installed).
# None is an evaluation root or a copy of one: the Go tree, the Python
# standard library, npm's bundled packages, the modules of the evaluation
# sets and of this repository's go.mod graph are never read (extract.go's
# excludedModules; pypairs.py's SKIP; debian.txt leaves out packages that
# copy the standard library: regex, future, six, mock, simplejson, dill,
# cloudpickle, gevent, eventlet).
#
#   bash scripts/codevec/corpus.sh [DIR]      # from the repository root
#
# Writes DIR/go.tsv, DIR/py.tsv, DIR/js.tsv (npm packages of npm.txt
# that npm does not bundle) and DIR/dist.tsv (third-party packages of the
# python3 install); then, with the GloVe file of scripts/wordvec,
#   go run ./scripts/codevec train -pairs DIR/go.tsv,DIR/py.tsv,DIR/js.tsv,DIR/dist.tsv
# corpus-lock.txt lists the versions the committed model was trained on.
# The model is trained on permissively licensed sources only: train reads
# scripts/codevec/licences.txt (licences.py's verdict per source) and
# leaves out every source it does not mark kept, a new one included; the
# script writes DIR/licences.txt to compare with it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
dir=${1:-/tmp/codevec-corpus}
mkdir -p "$dir/mod" "$dir/deb" "$dir/py"

# Go modules, into a module cache of their own (never the machine's).
while read -r m; do
	[ -z "$m" ] && continue
	GOMODCACHE="$dir/mod" GOFLAGS=-modcacherw go mod download "$m@latest" >/dev/null 2>&1 || echo "codevec corpus: no $m" >&2
done < "$here/gomodules.txt"
go run ./scripts/codevec extract-go -modcache "$dir/mod" > "$dir/go.tsv"

# Debian Python packages: downloaded and unpacked, not installed.
(cd "$dir/deb" && while read -r p; do
	[ -z "$p" ] && continue
	ls "${p}"_*.deb >/dev/null 2>&1 || apt-get download "$p" >/dev/null 2>&1 || echo "codevec corpus: no $p" >&2
done < "$here/debian.txt")
: > "$dir/py.tsv"
while read -r p; do
	f=$(ls "$dir/deb/${p}"_*.deb 2>/dev/null | head -1) || true
	[ -z "$f" ] && continue
	[ -d "$dir/py/$p" ] || dpkg-deb -x "$f" "$dir/py/$p"
	pk="$dir/py/$p/usr/lib/python3/dist-packages"
	[ -d "$pk" ] || continue
	dirs=$(find "$pk" -mindepth 1 -maxdepth 1 \( -type d ! -name '*.dist-info' ! -name '*.egg-info' ! -name __pycache__ \) -o \( -type f -name '*.py' \) | sort)
	[ -z "$dirs" ] && continue
	# shellcheck disable=SC2086
	python3 "$here/pypairs.py" "$p" $dirs >> "$dir/py.tsv"
done < "$here/debian.txt"
# Third-party packages of the machine's Debian python3 install.
dist=/usr/lib/python3/dist-packages
ddirs=""
for d in pygments cryptography oauthlib pynvim lazr greenlet dbus wheel jwt argcomplete httplib2 \
	msgpack distro blinker pyparsing wadllib OpenSSL crcmod toml softwareproperties apt aptsources \
	cupshelpers gi pip; do
	[ -d "$dist/$d" ] && ddirs="$ddirs $dist/$d"
done
# shellcheck disable=SC2086
python3 "$here/pypairs.py" distpkgs $ddirs > "$dir/dist.tsv"

# npm packages, as tarballs (never installed); npm's bundled ones are left out.
mkdir -p "$dir/npm"
bundled=$(ls "$(npm root -g)/npm/node_modules" 2>/dev/null || true)
(cd "$dir/npm" && while read -r p; do
	[ -z "$p" ] && continue
	grep -qxF "$p" <<<"$bundled" && continue
	npm pack --silent "$p" >/dev/null 2>&1 || echo "codevec corpus: no npm $p" >&2
done < "$here/npm.txt")
go run ./scripts/codevec extract-js "$dir"/npm/*.tgz > "$dir/js.tsv"
wc -l "$dir/go.tsv" "$dir/py.tsv" "$dir/js.tsv" "$dir/dist.tsv" >&2
python3 "$here/licences.py" "$dir" > "$dir/licences.txt"
diff <(cut -f1,3 "$here/licences.txt") <(cut -f1,3 "$dir/licences.txt") >&2 ||
	echo "codevec corpus: licence verdicts differ from scripts/codevec/licences.txt (sources not kept there are not trained on)" >&2
