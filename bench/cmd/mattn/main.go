// Command mattn runs the workloads on github.com/mattn/go-sqlite3.
package main

import (
	_ "github.com/mattn/go-sqlite3"

	"github.com/fastsqlite/sqlite3/bench/workload"
)

func main() {
	// CustomFunctions uses SQLiteConn.RegisterFunc, found by the workload.
	workload.Main(workload.Driver{
		Label:   "mattn",
		SQLName: "sqlite3",
		// _sync (mattn's) sets PRAGMA synchronous at open, on every connection.
		SyncParam: "_sync",
		WALDSN: func(path string) string {
			return "file:" + path + "?_journal_mode=WAL&_busy_timeout=10000&_txlock=immediate"
		},
	})
}
