// Command grouped runs the workloads on this driver with group commit on
// (_group_commit=1, issue 30): the DSN of cmd/ours plus the switch.
package main

import (
	_ "github.com/fastsqlite/sqlite3"

	"github.com/fastsqlite/sqlite3/bench/workload"
)

func main() {
	workload.Main(workload.Driver{
		Label:   "grouped",
		SQLName: "sqlite3",
		// _sync (mattn's) sets PRAGMA synchronous at open, on every connection.
		SyncParam: "_sync",
		WALDSN: func(path string) string {
			return "file:" + path + "?_journal_mode=WAL&_busy_timeout=10000&_txlock=immediate&_group_commit=1"
		},
	})
}
