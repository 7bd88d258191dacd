#!/usr/bin/env bash
# vendor-sqlite.sh: re-extract the SQLite amalgamation that github.com/mattn/go-sqlite3
# ships, unmodified, and check that it is the SQLite version we expect.
#
#   scripts/vendor-sqlite.sh [MATTN_VERSION] [SQLITE_VERSION]
#
# Defaults: MATTN_VERSION=v1.14.53 SQLITE_VERSION=3.54.1. Uses `go mod download` (the Go
# module proxy), so it needs no network access beyond what `go` itself has.
set -euo pipefail
mattn=${1:-v1.14.53}
want=${2:-3.54.1}
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
go mod init vendorsqlite >/dev/null 2>&1
dir=$(go mod download -json "github.com/mattn/go-sqlite3@$mattn" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -n "$dir" ] || { echo "vendor-sqlite: go mod download gave no directory" >&2; exit 1; }
version=$(sed -n 's/^#define SQLITE_VERSION[[:space:]]*"\(.*\)"$/\1/p' "$dir/sqlite3-binding.h")
source_id=$(sed -n 's/^#define SQLITE_SOURCE_ID[[:space:]]*"\(.*\)"$/\1/p' "$dir/sqlite3-binding.h")
if [ "$version" != "$want" ]; then
  echo "vendor-sqlite: mattn $mattn ships SQLite $version, want $want" >&2; exit 1
fi
grep -q "version $want\." "$dir/sqlite3-binding.c" || { echo "vendor-sqlite: sqlite3-binding.c is not SQLite $want" >&2; exit 1; }
for f in sqlite3-binding.c sqlite3-binding.h sqlite3ext.h; do
  install -m 0644 "$dir/$f" "$top/$f"
done
echo "vendored SQLite $version ($source_id) from github.com/mattn/go-sqlite3@$mattn"
