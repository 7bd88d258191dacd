package workload

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
)

// Direct-API workloads: a driver's own statement API (prepare, bind, step,
// column reads), without database/sql, on the same fixtures and SQL as the
// database/sql workload of the same name, so that a program for a driver's
// direct API (cmd/direct, cmd/ncrucesdirect) prints lines that line up with
// the C program's and the database/sql drivers'. The fixture is built
// through the driver's database/sql side, and the workload takes one
// connection of it with sql.Conn.Raw.

// DirectFunc runs one workload with a driver's direct API on db, the
// workload's fixture.
type DirectFunc func(b *testing.B, db *sql.DB) error

// DirectWorkloads are the workloads a direct API runs, with the fixture each
// one reads.
var DirectWorkloads = map[string]func(e *env) (*sql.DB, error){
	"Stmt":              (*env).suiteDB,
	"WideScan/String":   (*env).wideDB,
	"WideScan/RawBytes": (*env).wideDB,
	"IntScan":           (*env).intDB,
	"BatchInsert":       (*env).batchDB,
	"BatchInsert/Bulk":  (*env).batchDB,
	"PointLookup/1":     (*env).pointDB,
}

// DirectOnly names the workloads only direct APIs run: BatchInsert/Bulk is
// BatchInsert's rows (the same table, SQL and values, in one transaction)
// inserted the fastest way an API offers, a bulk path where it has one (this
// driver's ExecColumns); database/sql has none. The C program's is its
// per-row loop, already C's fastest.
var DirectOnly = map[string]bool{"BatchInsert/Bulk": true}

func directOnly(*testing.B, *env) error {
	return skip("a direct-API workload")
}

// The shapes and SQL of the workloads, for direct implementations.
const (
	WideRows  = wideRows
	WideCols  = wideCols
	WideWidth = wideWidth
	IntRows   = intRows
	BatchRows = batchRows

	SQLStmt        = sqlParams
	SQLWideScan    = sqlWideScan
	SQLIntScan     = sqlIntScan
	SQLBatchInsert = sqlBatchInsert
	SQLPointLookup = sqlPointLookup
)

// Keys returns the PointLookup key generator (the C program's), seeded 1.
func Keys() func() int64 {
	x := xorshift(1)
	return x.key
}

// Loop runs op with b.Loop, reporting allocations and CPU time, as every
// database/sql workload does.
func Loop(b *testing.B, op func() error) error { return loop(b, op) }

// PerRow is Loop for an op that reads rowsPerOp rows, adding ns/row.
func PerRow(b *testing.B, rowsPerOp int, op func() (int, error)) error {
	return perRow(b, rowsPerOp, op)
}

// BatchLoop times insert, which must insert BatchRows rows in a transaction
// on conn, after emptying the table (untimed), as the BatchInsert workload
// does; then it checks the count.
func BatchLoop(b *testing.B, exec func(sql string) error, insert func() error, count func() (int64, error)) error {
	b.ReportAllocs()
	var cpu cpuMeter
	for b.Loop() {
		b.StopTimer()
		if err := exec("DELETE FROM batch"); err != nil {
			return err
		}
		b.StartTimer()
		cpu.begin()
		if err := insert(); err != nil {
			return err
		}
		cpu.end()
	}
	cpu.report(b)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batchRows), "ns/row")
	n, err := count()
	if err == nil && n != batchRows {
		err = fmt.Errorf("batch has %d rows, want %d", n, batchRows)
	}
	return err
}

// Raw runs f on the driver connection of one connection of db.
func Raw(db *sql.DB, f func(driverConn any) error) error {
	conn, err := db.Conn(context.Background())
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(f)
}

func runDirect(e *env, name string, f DirectFunc) Result {
	return runOne(e, Workload{Name: name, run: func(b *testing.B, e *env) error {
		db, err := DirectWorkloads[name](e)
		if err != nil {
			return err
		}
		return f(b, db)
	}})
}
