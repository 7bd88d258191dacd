#!/usr/bin/env bash
# mattn-suite.sh: mattn/go-sqlite3's own test suite and _example programs, run
# on this driver and on mattn's package, to prove the drop-in promise: every
# test and example that passes on mattn passes here.
#
#   scripts/mattn-suite.sh [flags of scripts/mattnsuite: -run RE, -j N, -timeout D, -sets untagged|tagged, -examples=false, -dev]
#
# What it does:
#   1. fetches github.com/mattn/go-sqlite3@v1.14.53 through the module proxy
#      (go mod download); nothing of mattn's is kept in this repository;
#   2. copies, into a stable scratch directory ($FASTSQLITE_SUITE_DIR, default
#      ~/.cache/fastsqlite-mattn-suite: the Go build cache keys cgo packages by
#      their directory, so keeping it lets later runs reuse the four SQLite
#      compiles), two packages with mattn's import path: mattn's non-test files
#      and this driver's; both get mattn's _test.go files (internal tests of
#      package sqlite3);
#   3. leaves out, by name, the test functions and helpers that do not compile
#      against this driver (they reach mattn's unexported internals), found by
#      type checking, and drops them on both sides so both run the same tests;
#      the list is printed;
#   4. twice, without tags and with mattn's tags sqlite_vtable
#      sqlite_preupdate_hook sqlite_unlock_notify sqlite_math_functions
#      sqlite_column_metadata: builds both test binaries (go test -c) and runs
#      each test in its own process with a time limit (60 s), so that a crash
#      or a hang fails that test alone;
#   5. builds mattn's _example programs that run without setup against each
#      side (a replace directive, mattn's five tags) and compares exit status;
#      the others are listed with the reason (a C extension to build, the
#      network, not a program);
#   6. prints passed/failed per side, and every test or example that passes on
#      mattn and fails here with the first lines of its output, and exits 1 if
#      there is one that scripts/mattn-suite.exceptions (a test name and the
#      reason, one a line) does not name.
# Cold, it compiles SQLite six times (about ten minutes on two cores); warm,
# the runs themselves take a few minutes.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
version=v1.14.53
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
mattn=$(cd "$scratch" && GOFLAGS=-mod=mod go mod download -json "github.com/mattn/go-sqlite3@$version" |
	sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
[ -d "$mattn" ] || { echo "mattn-suite: could not fetch github.com/mattn/go-sqlite3@$version" >&2; exit 2; }
cd "$top"
go build -o "$scratch/mattnsuite" ./scripts/mattnsuite
"$scratch/mattnsuite" -mattn "$mattn" -ours "$top" -exceptions "$top/scripts/mattn-suite.exceptions" "$@"
