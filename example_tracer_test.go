//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"fmt"
)

// printTracer prints each operation as it ends. A tracer for spans starts
// one in TraceStart, returns the context that carries it, and ends it in
// TraceEnd.
type printTracer struct{}

func (printTracer) TraceStart(ctx context.Context, ev *TraceEvent) context.Context {
	return ctx
}

func (printTracer) TraceEnd(ctx context.Context, ev *TraceEvent) {
	fmt.Printf("%s %q rows=%d err=%v\n", ev.Kind, ev.SQL, ev.Rows, ev.Err != nil)
}

func ExampleWithTracer() {
	connector, err := NewConnector(":memory:", WithTracer(printTracer{}))
	if err != nil {
		panic(err)
	}
	db := sql.OpenDB(connector)
	defer db.Close()

	db.Exec("CREATE TABLE t(v INT)")
	db.Exec("INSERT INTO t VALUES (1), (2)")
	var n int
	db.QueryRow("SELECT count(*) FROM t").Scan(&n)
	db.Exec("INSERT INTO nowhere VALUES (1)")
	// Output:
	// exec "CREATE TABLE t(v INT)" rows=0 err=false
	// exec "INSERT INTO t VALUES (1), (2)" rows=2 err=false
	// query "SELECT count(*) FROM t" rows=1 err=false
	// exec "INSERT INTO nowhere VALUES (1)" rows=0 err=true
}
