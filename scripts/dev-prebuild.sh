#!/usr/bin/env bash
# dev-prebuild.sh: compile the vendored amalgamation once into .dev/sqlite3.o,
# with exactly the package's cgo flags, for the fast development loop:
#
#   scripts/dev-prebuild.sh && go test -tags fastsqlite_dev ./...
#
# Re-run it after changing compile_options.go or the vendored SQLite. Build
# tags that change SQLite's flags go in TAGS, e.g.
#
#   TAGS=sqlite_unlock_notify scripts/dev-prebuild.sh
#   go test -tags 'sqlite_unlock_notify fastsqlite_dev' ./...
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd); cd "$top"
mkdir -p .dev
flags=$(go list -tags "${TAGS:-}" -f '{{join .CgoCFLAGS " "}}' .)
cc=$(go env CC)
printf '#undef USE_LIBSQLITE3\n#include "../sqlite3-binding.h"\n' > .dev/sqlite3.h
printf '#undef USE_LIBSQLITE3\n#include "../sqlite3ext.h"\n' > .dev/sqlite3ext.h
# shellcheck disable=SC2086
$cc -O2 -g $flags -UUSE_LIBSQLITE3 -c sqlite3-binding.c -o .dev/sqlite3.o
echo "built .dev/sqlite3.o with: $flags"
