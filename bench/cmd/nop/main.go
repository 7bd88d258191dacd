// Command nop runs the workloads on the do-nothing driver of package
// nopdriver: what database/sql itself costs per operation and per row.
package main

import (
	"github.com/fastsqlite/sqlite3/bench/nopdriver"
	"github.com/fastsqlite/sqlite3/bench/workload"
)

func main() {
	nopdriver.Register("nop", workload.NopAnswers())
	workload.Main(workload.Driver{Label: "nop", SQLName: "nop"})
}
