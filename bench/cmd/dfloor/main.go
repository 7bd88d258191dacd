// Command dfloor runs the direct-API workloads as the C program's own
// operations, each through one cgo call from Go and nothing else: no
// statement API, no argument or column handling on the Go side (package
// cfloor). It is the floor of any cgo direct API that makes one cgo call per
// operation, as cfloor is the floor of any cgo database/sql driver: what a
// direct API costs above it is its own work, what it costs above C is at
// least this. Scans are not run: their rows can be stepped many per call, so
// their floor is C's. Build it through bench/cmd/compare, which compiles
// SQLite with the driver's options.
package main

import (
	"database/sql"
	"fmt"
	"os"
	"testing"

	"github.com/fastsqlite/sqlite3/bench/cfloor"
	"github.com/fastsqlite/sqlite3/bench/nopdriver"
	"github.com/fastsqlite/sqlite3/bench/workload"
)

func main() {
	if !cfloor.BuiltWithDriverOptions() {
		fmt.Fprintln(os.Stderr, "dfloor: SQLite was not compiled with the driver's options; build it with bench/cmd/compare")
		os.Exit(2)
	}
	ops := cfloor.Ops()
	// The fixtures are made as cmd/cfloor makes them: through the nop
	// driver, whose answers run the C side's setup.
	answers, tx, closeConn := workload.FloorAnswers(ops)
	d := nopdriver.New(answers)
	d.Tx, d.Close = tx, closeConn
	sql.Register("dfloor", d)
	defer cfloor.Cleanup()

	batch := func(b *testing.B, _ *sql.DB) error {
		insert := func() error {
			if err := ops.BatchExec("BEGIN"); err != nil {
				return err
			}
			for i := range int64(workload.BatchRows) {
				if err := ops.BatchRow(i); err != nil {
					return err
				}
			}
			return ops.BatchExec("COMMIT")
		}
		return workload.BatchLoop(b, ops.BatchExec, insert, cfloor.BatchCount)
	}
	workload.Main(workload.Driver{Label: "dfloor", SQLName: "dfloor", Direct: map[string]workload.DirectFunc{
		"Stmt": func(b *testing.B, _ *sql.DB) error { return workload.Loop(b, ops.Params) },
		"PointLookup/1": func(b *testing.B, _ *sql.DB) error {
			w, err := ops.PointOpen()
			if err != nil {
				return err
			}
			defer ops.PointClose(w)
			key := workload.Keys()
			return workload.Loop(b, func() error { return ops.Point(w, key()) })
		},
		"BatchInsert":      batch,
		"BatchInsert/Bulk": batch,
	}})
}
