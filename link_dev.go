//go:build fastsqlite_dev && !libsqlite3

package sqlite3

// Development loop only (go test -tags fastsqlite_dev): link the amalgamation
// from .dev/sqlite3.o, built once by scripts/dev-prebuild.sh with the flags of
// compile_options.go, so that editing a Go file does not recompile SQLite. The
// default build never uses this file.

/*
#cgo CFLAGS: -DUSE_LIBSQLITE3 -I${SRCDIR}/.dev
#cgo LDFLAGS: ${SRCDIR}/.dev/sqlite3.o -lm -ldl
*/
import "C"
