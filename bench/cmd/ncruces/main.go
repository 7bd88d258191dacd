// Command ncruces runs the workloads on github.com/ncruces/go-sqlite3, SQLite
// compiled to Wasm and translated to Go with wasm2go (no cgo). Since v0.37
// the embed package is no longer needed (importing it only prints a warning).
package main

import (
	"fmt"

	"github.com/ncruces/go-sqlite3"
	_ "github.com/ncruces/go-sqlite3/driver"

	"github.com/fastsqlite/sqlite3/bench/workload"
)

func main() {
	workload.Main(workload.Driver{
		Label:   "ncruces",
		SQLName: "sqlite3",
		Skip: map[string]string{
			"QueryStep": `db.Query of a multi-statement script fails ("sqlite3: multiple statements")`,
		},
		// ncruces reads _pragma and _txlock only from a "file:" URI. Its
		// default busy timeout (1 minute) applies only when no _pragma is
		// given, so busy_timeout is set here; immediate is its default
		// _txlock, named anyway.
		WALDSN: func(path string) string {
			return "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_txlock=immediate"
		},
		RegisterAdd: func(dc any) error {
			c, ok := dc.(interface{ Raw() *sqlite3.Conn })
			if !ok {
				return fmt.Errorf("%T has no Raw method", dc)
			}
			return c.Raw().CreateFunction("custom_add", 2, 0, func(ctx sqlite3.Context, args ...sqlite3.Value) {
				ctx.ResultInt64(args[0].Int64() + args[1].Int64())
			})
		},
	})
}
