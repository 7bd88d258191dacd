#!/usr/bin/env bash
# buildtime.sh: build time of a small program with this driver and with
# mattn/go-sqlite3, side by side, interleaved (the Build time table of docs/build-time.md).
#
#   scripts/buildtime.sh [RUNS] [MATTN_VERSION]     (defaults: 3, v1.14.53)
#
# For each driver, in a scratch module whose replace points at a copy of the
# driver's source (so that a driver file can be edited): a build with the
# standard library already cached but nothing of the driver (GOCACHE holding
# only `go build std`), then a rebuild after appending a comment to one of the
# driver's Go files. Prints wall and CPU seconds (user + sys of go build and
# everything it ran) per run. Needs the module proxy for mattn's module.
set -euo pipefail
runs=${1:-3} mattn=${2:-v1.14.53}
top=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d); trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT

mdir=$(cd "$work" && GOFLAGS=-mod=mod go mod download -json "github.com/mattn/go-sqlite3@$mattn" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p')
mkdir -p "$work/src/ours" "$work/src/mattn"
git -C "$top" ls-files -z | (cd "$top" && xargs -0 cp --parents -t "$work/src/ours")
cp -r "$mdir/." "$work/src/mattn"; chmod -R u+w "$work/src/mattn"

for d in ours mattn; do
	mod=$([ $d = ours ] && echo github.com/fastsqlite/sqlite3 || echo github.com/mattn/go-sqlite3)
	mkdir -p "$work/app-$d"
	cat > "$work/app-$d/go.mod" <<EOF
module app
go 1.26
require $mod v0.0.0
replace $mod => ../src/$d
EOF
	cat > "$work/app-$d/main.go" <<EOF
package main

import (
	"database/sql"
	"fmt"

	_ "$mod"
)

func main() {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		panic(err)
	}
	var v string
	if err := db.QueryRow("SELECT sqlite_version()").Scan(&v); err != nil {
		panic(err)
	}
	fmt.Println(v)
}
EOF
done

# timed DIR LABEL: one go build, wall and CPU seconds of it and its children.
timed() {
	local out
	out=$( { /usr/bin/time -f '%e %U %S' go build -o /dev/null . >/dev/null; } 2>&1 | tail -1)
	awk -v l="$2" -v d="$3" '{printf "%-6s %-22s wall %6.1f s  cpu %6.1f s\n", d, l, $1, $2 + $3}' <<<"$out"
}

echo "go: $(go version), cc: $($(go env CC) --version | head -1), $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg)"
GOCACHE="$work/cache-std" go build std # once; each run starts from a copy
for r in $(seq "$runs"); do
	for d in ours mattn; do
		cache="$work/cache-$d-$r"
		cp -r "$work/cache-std" "$cache"
		(cd "$work/app-$d" && GOCACHE="$cache" GOFLAGS=-mod=mod timed "$work/app-$d" "std cached (run $r)" $d)
		echo "// edit $r" >> "$work/src/$d/sqlite3.go"
		(cd "$work/app-$d" && GOCACHE="$cache" GOFLAGS=-mod=mod timed "$work/app-$d" "after a Go edit (run $r)" $d)
		rm -rf "$cache"
	done
done
