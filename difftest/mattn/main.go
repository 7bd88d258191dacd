// Command mattn runs difftest's programs on github.com/mattn/go-sqlite3
// v1.14.53. The difftest command (the module root) builds it. mattn has no
// direct statement API nor BLOB I/O: the harness runs the same through
// database/sql there.
package main

import (
	"database/sql"
	"errors"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/fastsqlite/sqlite3/difftest/harness"
)

func main() {
	harness.Main(harness.Driver{
		Label: "mattn",
		Code: func(err error) (int, int, bool) {
			var e sqlite3.Error
			if errors.As(err, &e) {
				return int(e.Code), int(e.ExtendedCode), true
			}
			var p *sqlite3.Error
			if errors.As(err, &p) {
				return int(p.Code), int(p.ExtendedCode), true
			}
			return 0, 0, false
		},
		Register: func(name string, hook func(harness.HookConn) error) {
			sql.Register(name, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error { return hook(c) }})
		},
	})
}
