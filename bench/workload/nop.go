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
	for i := range 100 {
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
	return a
}
