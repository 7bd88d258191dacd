// Command ncruces025 runs the workloads on github.com/ncruces/go-sqlite3
// v0.25.1, SQLite compiled to Wasm and run by wazero (no cgo): the version
// that independent suites pinned when issue 41 measured it, kept beside the
// newest (cmd/ncruces) in a module of its own so that the two can be set side
// by side. Run it by name: go run ./cmd/compare -drivers ours,ncruces025,...
package main

import (
	"fmt"

	"github.com/ncruces/go-sqlite3"
	_ "github.com/ncruces/go-sqlite3/driver"
	_ "github.com/ncruces/go-sqlite3/embed"

	"github.com/fastsqlite/sqlite3/bench/workload"
)

func main() {
	workload.Main(workload.Driver{
		Label:   "ncruces025",
		SQLName: "sqlite3",
		Skip: map[string]string{
			"QueryStep": `db.Query of a multi-statement script fails ("sqlite3: multiple statements")`,
		},
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
