// Command ours runs the workloads on this driver, github.com/fastsqlite/sqlite3
// (the parent directory, through go.mod's replace directive).
package main

import (
	_ "github.com/fastsqlite/sqlite3"

	"github.com/fastsqlite/sqlite3/bench/workload"
)

func main() {
	workload.Main(workload.Driver{
		Label:   "ours",
		SQLName: "sqlite3",
		// _sync (mattn's) sets PRAGMA synchronous at open, on every connection.
		SyncParam: "_sync",
		// mattn's DSN parameters, which this driver keeps.
		WALDSN: func(path string) string {
			return "file:" + path + "?_journal_mode=WAL&_busy_timeout=10000&_txlock=immediate"
		},
	})
}
