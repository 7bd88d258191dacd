// Command modernc runs the workloads on modernc.org/sqlite, SQLite translated
// from C to Go (no cgo).
package main

import (
	"database/sql/driver"
	"fmt"

	"modernc.org/sqlite"

	"github.com/fastsqlite/sqlite3/bench/workload"
)

func main() {
	// modernc registers functions for every connection the driver opens
	// afterwards, so custom_add is registered here, before any connection.
	err := sqlite.RegisterScalarFunction("custom_add", 2,
		func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			a, ok1 := args[0].(int64)
			b, ok2 := args[1].(int64)
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("custom_add: want two integers, got %T and %T", args[0], args[1])
			}
			return a + b, nil
		})
	if err != nil {
		panic(err)
	}
	workload.Main(workload.Driver{
		Label:       "modernc",
		SQLName:     "sqlite",
		RegisterAdd: func(any) error { return nil }, // done above
		// modernc's own way, the _pragma list (v1.62 and later also take mattn's
		// _journal_mode and _busy_timeout; _pragma is what its users
		// write). _txlock as mattn's.
		WALDSN: func(path string) string {
			return "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate"
		},
	})
}
