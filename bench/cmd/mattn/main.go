// Command mattn runs the workloads on github.com/mattn/go-sqlite3.
package main

import (
	_ "github.com/mattn/go-sqlite3"

	"github.com/fastsqlite/sqlite3/bench/workload"
)

func main() {
	// CustomFunctions uses SQLiteConn.RegisterFunc, found by the workload.
	workload.Main(workload.Driver{Label: "mattn", SQLName: "sqlite3"})
}
