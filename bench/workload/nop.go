package workload

import (
	"database/sql/driver"
	"fmt"
	"time"

	"github.com/fastsqlite/sqlite3/bench/nopdriver"
)

// NopAnswers returns the canned answers that let every workload run on the
// nop driver: the rows each query would return from SQLite, built once.
func NopAnswers() map[string]*nopdriver.Answer {
	// one answers a single row; the column names do not matter to the
	// workloads, only their number.
	one := func(vals ...driver.Value) *nopdriver.Answer {
		cols := make([]string, len(vals))
		for i := range cols {
			cols[i] = fmt.Sprintf("c%d", i)
		}
		return &nopdriver.Answer{Columns: cols, Rows: [][]driver.Value{vals}}
	}
	bench := &nopdriver.Answer{Columns: []string{"n", "i", "d", "s", "t"}}
	now := time.Now()
	for i := range historyRows {
		bench.Rows = append(bench.Rows, []driver.Value{nil, int64(i), float64(i), fmt.Sprint(i), now})
	}
	wide := make([]driver.Value, wideCols)
	wideNames := make([]string, wideCols)
	for i := range wide {
		wide[i] = fmt.Sprintf("%02d%0*d", i, wideWidth-2, 1)
		wideNames[i] = fmt.Sprintf("c%02d", i)
	}
	const stepInserted = stepStmts - 2
	blob := make([]byte, len(blobHex)/2)
	for i := range blob {
		blob[i] = byte(i)
	}
	a := map[string]*nopdriver.Answer{
		sqlQuery:      one(nil, int64(1), 1.1, "foo"),
		sqlParams:     one(nil, int64(1), 1.1, "foo"),
		sqlRows:       bench,
		sqlStmt10Cols: one(int64(42), int64(-7), int64(9007199254740993), 3.25, -0.000125, "alpha", s10t2, s10t3, blob, nil),
		sqlStepCount:  one(int64(stepStmts - 1)),
		sqlQueryStep:  one(int64(stepInserted), int64(stepInserted*(stepInserted-1)/2)),
		sqlParallel:   one(int64(1), int64(2), int64(3), int64(4)),
		sqlCustomAdd:  one(int64(3)),
		sqlTiny:       one(int64(1000)),

		sqlWideCheck:   one(int64(wideRows), int64(wideWidth), int64(wideWidth)),
		sqlWideScan:    {Columns: wideNames, Rows: [][]driver.Value{wide}, Count: wideRows},
		sqlIntScan:     {Columns: []string{"a", "b", "c"}, Rows: [][]driver.Value{{int64(1), int64(-997), 0.25}}, Count: intRows},
		sqlBatchCount:  one(int64(batchRows)),
		sqlWAL:         one("wal"),
		sqlPointCount:  one(int64(pointRows)),
		sqlPointLookup: one("value-1"),
		sqlContext:     one(int64(contextCount)),
		sqlCancel:      {Columns: []string{"count(*)"}, Block: true},
	}
	addShapeAnswers(a, one)
	return a
}

// FloorOps are the C program's workloads one op at a time (package cfloor:
// bench/c/bench.c's op functions, one cgo call each), for FloorAnswers.
type FloorOps struct {
	// The large fixtures, built when the workload fills its own (untimed).
	WideSetup, IntSetup, PointSetup func() error

	Exec, Query, Params, Rows, Stmt10Cols, ExecStep, QueryStep func() error
	Custom, WideScan, IntScan                                  func() error
	Tiny                                                       func(key int64) error
	BatchExec                                                  func(sql string) error
	BatchRow                                                   func(id int64) error
	PointOpen                                                  func() (any, error)
	Point                                                      func(worker any, key int64) error
	PointClose                                                 func(worker any)
}

// FloorSkip names the workloads the floor program cannot run: those the C
// program does not run, and those whose C op is a whole query already timed
// against C alone (the CTE, cancellation).
var FloorSkip = map[string]string{
	"QueryParallel":       "the C program does not run it",
	"Context/Background":  "SQLite's own work, measured against C directly",
	"Context/Cancellable": "SQLite's own work, measured against C directly",
	"CancelLatency":       "no database/sql floor to add",
	"BatchInsert/Bulk":    "a direct-API workload",
}

func init() {
	for _, name := range shapeNames {
		FloorSkip[name] = "the C program does not run it"
	}
}

// FloorAnswers returns the nop driver's answers with each workload's C op
// attached as its Work, the transaction hook for BatchInsert and the close
// hook that frees a connection's point-lookup worker: database/sql
// on the nop driver plus SQLite's work in one cgo call per operation, the
// floor under any cgo driver, measured in one process so that the two parts
// share the caches, branch predictors and scheduler as they do in a driver.
func FloorAnswers(ops FloorOps) (map[string]*nopdriver.Answer, func(state *any, sql string) error, func(state any)) {
	a := NopAnswers()
	work := func(f func() error) func(*any, []driver.NamedValue) error {
		return func(*any, []driver.NamedValue) error { return f() }
	}
	set := func(query string, w func(*any, []driver.NamedValue) error) {
		ans := a[query]
		if ans == nil {
			ans = &nopdriver.Answer{}
			a[query] = ans
		}
		ans.Work = w
	}
	set(sqlWideFill, work(ops.WideSetup))
	set(sqlIntFill, work(ops.IntSetup))
	set(sqlPointFill, work(ops.PointSetup))
	set(sqlExec, work(ops.Exec))
	set(sqlQuery, work(ops.Query))
	set(sqlParams, work(ops.Params))
	set(sqlRows, work(ops.Rows))
	set(sqlStmt10Cols, work(ops.Stmt10Cols))
	set(sqlExecStep, work(ops.ExecStep))
	set(sqlQueryStep, work(ops.QueryStep))
	set(sqlCustomAdd, work(ops.Custom))
	set(sqlWideScan, work(ops.WideScan))
	set(sqlIntScan, work(ops.IntScan))
	set("DELETE FROM batch", func(*any, []driver.NamedValue) error { return ops.BatchExec("DELETE FROM batch") })
	set(sqlTiny, func(_ *any, args []driver.NamedValue) error {
		key, ok := args[0].Value.(int64)
		if !ok {
			return fmt.Errorf("tiny key is %T", args[0].Value)
		}
		return ops.Tiny(key)
	})
	set(sqlBatchInsert, func(_ *any, args []driver.NamedValue) error {
		id, ok := args[0].Value.(int) // the nop driver converts no argument
		if !ok {
			return fmt.Errorf("batch id is %T", args[0].Value)
		}
		return ops.BatchRow(int64(id))
	})
	set(sqlPointLookup, func(state *any, args []driver.NamedValue) error {
		if *state == nil {
			w, err := ops.PointOpen()
			if err != nil {
				return err
			}
			*state = w
		}
		return ops.Point(*state, args[0].Value.(int64))
	})
	tx := func(_ *any, sql string) error { return ops.BatchExec(sql) }
	return a, tx, ops.PointClose
}
