// Command cfloor runs the workloads on database/sql's floor with SQLite's
// work added: the nop driver (package nopdriver) doing, in one cgo call per
// database/sql operation, what the C program does for that operation (package
// cfloor). It is the limit for any cgo driver measured in one process, where
// "C + nop" adds two processes' numbers. Build it through bench/cmd/compare,
// which compiles SQLite with the driver's options.
package main

import (
	"database/sql"
	"fmt"
	"os"

	"github.com/fastsqlite/sqlite3/bench/cfloor"
	"github.com/fastsqlite/sqlite3/bench/nopdriver"
	"github.com/fastsqlite/sqlite3/bench/workload"
)

func main() {
	if !cfloor.BuiltWithDriverOptions() {
		fmt.Fprintln(os.Stderr, "cfloor: SQLite was not compiled with the driver's options; build it with bench/cmd/compare")
		os.Exit(2)
	}
	answers, tx, closeConn := workload.FloorAnswers(cfloor.Ops())
	d := nopdriver.New(answers)
	d.Tx, d.Close = tx, closeConn
	sql.Register("cfloor", d)
	defer cfloor.Cleanup()
	workload.Main(workload.Driver{Label: "cfloor", SQLName: "cfloor", Skip: workload.FloorSkip})
}
