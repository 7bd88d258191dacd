#!/usr/bin/env bash
# mattn-suite.sh: mattn/go-sqlite3's own test suite and _example programs, run
# on this driver and on mattn's package, to prove the drop-in promise: every
# test and example that passes on mattn passes here.
#
#   scripts/mattn-suite.sh [-run RE] [-sets untagged|tagged] [-examples=false] [-j N] [-timeout 60s] [-dev] [-list]
#
# What it does (the work is done by scripts/mattnsuite, a Go program):
#   1. fetches github.com/mattn/go-sqlite3@v1.14.53 through the module proxy
#      (go mod download); nothing of mattn's is kept in this repository;
#   2. copies, into a stable scratch directory ($FASTSQLITE_SUITE_DIR, default
#      ~/.cache/fastsqlite-mattn-suite: the Go build cache keys cgo packages by
#      their directory, so keeping it lets later runs reuse the SQLite
#      compiles; runs sharing it wait for each other), two packages with
#      mattn's import path: mattn's non-test files, and this driver's; both
#      get mattn's _test.go files (internal tests of package sqlite3);
#   3. leaves out, by name, the test functions and helpers that do not compile
#      against this driver (they reach mattn's unexported internals), found by
#      type checking (go/types) and dropped on both sides, so that both run the
#      same tests; the list is printed (-list prints only it, in seconds);
#   4. twice, without tags ("untagged") and with mattn's tags sqlite_vtable
#      sqlite_preupdate_hook sqlite_unlock_notify sqlite_math_functions
#      sqlite_column_metadata ("tagged"): builds both test binaries
#      (go test -c) and runs each test in its own process with a time limit,
#      so that a crash or a hang fails that test alone; after the test the
#      process collects garbage and runs finalizers (a TestMain added on both
#      sides), so that a crash in a finalizer fails the test that leaked; a
#      test that passes on mattn and fails here is run once more, alone, and
#      reported as flaky if it then passes;
#   5. builds the _example programs that need no setup against each side (a
#      replace directive; the five tags plus sqlite_trace, which
#      _example/trace needs) and compares exit status; the others are listed
#      with the reason (a C extension to build, the network, not a program);
#   6. prints passed/failed per side, and every test or example that passes on
#      mattn and fails here with the first lines of its output, and exits 1 if
#      there is one that scripts/mattn-suite.exceptions (a test name and the
#      reason, one a line) does not name.
# -dev links this driver's .dev/sqlite3.o (scripts/dev-prebuild.sh): fast
# rebuilds, but the C flags the tags add (unlock notify) are then missing.
# Cold, it compiles SQLite six times (ten to fifteen minutes on two busy
# cores); warm, a run takes about three minutes, most of it two tests that
# hang here until their time limit.
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
