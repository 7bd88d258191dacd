package workload

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Direct-API workloads: a driver's own statement API (prepare, bind, step,
// column reads), without database/sql, on the same fixtures and SQL as the
// database/sql workload of the same name, so that a program for a driver's
// direct API (cmd/direct, cmd/ncrucesdirect) prints lines that line up with
// the C program's and the database/sql drivers'. The fixture is built
// through the driver's database/sql side, and the workload takes one
// connection of it with sql.Conn.Raw. An API without a database/sql driver
// (Driver.Own: zombiezen.com/go/sqlite, in the nested module bench/zombiezen)
// builds the same fixture on a connection of its own from DirectFixture.

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

// OwnFunc runs one workload with a direct API that has no database/sql
// driver, on conn, the connection that Own.Build made of the workload's
// fixture.
type OwnFunc func(b *testing.B, conn io.Closer) error

// Own describes a direct API that has no database/sql driver (Driver.Own).
type Own struct {
	// Build opens a connection to path with the API's defaults (path is
	// ":memory:" or a file in the program's temporary directory), runs
	// f.Steps on it, checking each step's Want with FixtureStep.Check, and
	// returns it; the program closes it at its end. On error it returns a nil
	// connection, having closed it.
	Build func(f Fixture, path string) (io.Closer, error)
	// Workloads are the workloads it runs (names of DirectWorkloads).
	Workloads map[string]OwnFunc
}

// Fixture is the SQL of a direct workload's fixture, for a direct API that
// has no database/sql driver to build it with: the statements, rows and
// checks of the database/sql fixture of the same workload, in order.
type Fixture struct {
	// Key names the database: workloads whose fixtures have the same Key
	// share one.
	Key string
	// File, when set, names the file in the program's temporary directory
	// that holds the database (PointLookup's, in WAL mode); otherwise the
	// database is a private in-memory one.
	File  string
	Steps []FixtureStep
}

// FixtureStep is one statement of a fixture. A step without Want may return
// rows (PRAGMA wal_checkpoint does); they are read and ignored.
type FixtureStep struct {
	SQL string
	// Rows, when set, make SQL an INSERT run once per row, with the row's
	// values (nil, int64, float64 or string) bound to its parameters in order.
	Rows [][]any
	// Want, when set, is the one row SQL returns, each column read as text.
	Want []string
}

// Check reports whether row, the first row of s.SQL with each column read as
// text, is s.Want (compared ignoring case: SQLite spells a journal mode as
// it likes). A step without Want accepts any row.
func (s FixtureStep) Check(row []string) error {
	if s.Want == nil {
		return nil
	}
	ok := len(row) == len(s.Want)
	for i := 0; ok && i < len(row); i++ {
		ok = strings.EqualFold(row[i], s.Want[i])
	}
	if !ok {
		return fmt.Errorf("%.60s: got %q, want %q", s.SQL, row, s.Want)
	}
	return nil
}

// historyTimeFormat writes the "bench" table's datetime column as text, for
// an API that binds no time.Time: the first of mattn's (and this driver's)
// SQLiteTimestampFormats, in which they write a time.Time.
const historyTimeFormat = "2006-01-02 15:04:05.999999999-07:00"

// DirectFixture returns the fixture of the direct workload name (a key of
// DirectWorkloads): the SQL and data that the env's builder of the same
// fixture runs through database/sql, from the same constants.
func DirectFixture(name string) (Fixture, error) {
	if _, ok := DirectWorkloads[name]; !ok {
		return Fixture{}, fmt.Errorf("%q is not a direct workload", name)
	}
	switch name {
	case "Stmt":
		var steps []FixtureStep
		for _, q := range sqlSuiteSchema {
			steps = append(steps, FixtureStep{SQL: q})
		}
		rows := make([][]any, historyRows)
		for k := range rows {
			r := historyRow(k)
			rows[k] = []any{nil, int64(k), r[2], r[3], r[4].(time.Time).Format(historyTimeFormat)}
		}
		return Fixture{Key: "suite", Steps: append(steps, FixtureStep{SQL: sqlHistoryInsert, Rows: rows})}, nil
	case "WideScan/String", "WideScan/RawBytes":
		return Fixture{Key: "wide", Steps: []FixtureStep{
			{SQL: sqlWideCreate}, {SQL: sqlWideFill},
			{SQL: sqlWideCheck, Want: itoa(wideRows, wideWidth, wideWidth)},
		}}, nil
	case "IntScan":
		return Fixture{Key: "ints", Steps: []FixtureStep{{SQL: sqlIntCreate}, {SQL: sqlIntFill}}}, nil
	case "BatchInsert", "BatchInsert/Bulk":
		return Fixture{Key: "batch", Steps: []FixtureStep{{SQL: sqlBatchCreate}}}, nil
	default: // PointLookup/1
		return Fixture{Key: "point", File: "point.db", Steps: []FixtureStep{
			{SQL: sqlWAL, Want: []string{"wal"}},
			{SQL: sqlPointCreate}, {SQL: sqlPointFill}, {SQL: sqlCheckpoint},
			{SQL: sqlPointCount, Want: itoa(pointRows)},
		}}, nil
	}
}

func itoa(ns ...int) []string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return s
}

func runOwn(e *env, name string, f OwnFunc) Result {
	return runOne(e, Workload{Name: name, run: func(b *testing.B, e *env) error {
		fx, err := DirectFixture(name)
		if err != nil {
			return err
		}
		conn, err := once(e, "own "+fx.Key, func() (io.Closer, error) {
			path := ":memory:"
			if fx.File != "" {
				if e.dirErr != nil {
					return nil, e.dirErr
				}
				path = e.dir + string(os.PathSeparator) + fx.File
			}
			c, err := e.d.Own.Build(fx, path)
			if err != nil {
				return nil, err
			}
			e.closers = append(e.closers, c)
			return c, nil
		})
		if err != nil {
			return err
		}
		return f(b, conn)
	}})
}
