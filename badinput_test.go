//go:build cgo

package sqlite3

// Bad input: every kind of misuse and malformed input the driver can receive,
// through database/sql and directly, with the exact error expected. Each case
// gets a fresh single-connection in-memory database holding table t, opened
// with _strict=1 for the cases named "Strict/...".

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

type badEnv struct {
	db  *sql.DB
	dir string
}

// badWant is what a case must return: nil (ok), or an error matching every
// field set.
type badWant struct {
	ok   bool
	is   error  // errors.Is(err, is)
	code ErrNo  // an Error with this primary code
	msg  string // substring of err.Error()
}

type badCase struct {
	name string
	run  func(t *testing.T, e *badEnv) error
	want badWant
}

func badOK() badWant                    { return badWant{ok: true} }
func badMsg(msg string) badWant         { return badWant{msg: msg} }
func badIs(err error) badWant           { return badWant{is: err} }
func badCode(c ErrNo, m string) badWant { return badWant{code: c, msg: m} }

// badExec returns the error of db.Exec(query, args...).
func badExec(query string, args ...any) func(*testing.T, *badEnv) error {
	return func(t *testing.T, e *badEnv) error {
		_, err := e.db.Exec(query, args...)
		return err
	}
}

// badScan returns the error of scanning the one value of query into dest.
func badScan(query string, dest any) func(*testing.T, *badEnv) error {
	return func(t *testing.T, e *badEnv) error {
		return e.db.QueryRow(query).Scan(dest)
	}
}

// badExpect runs query and compares its single value with want.
func badExpect(e *badEnv, want any, query string, args ...any) error {
	var got any
	if err := e.db.QueryRow(query, args...).Scan(&got); err != nil {
		return err
	}
	if !reflect.DeepEqual(got, want) {
		return fmt.Errorf("%.60s returned %T(%#v), want %T(%#v)", query, got, got, want, want)
	}
	return nil
}

// badRawConn opens a driver connection directly.
func badRawConn(t *testing.T, dsn string) *SQLiteConn {
	t.Helper()
	c, err := (&SQLiteDriver{}).Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c.(*SQLiteConn)
}

type badValuerErr struct{}

func (badValuerErr) Value() (driver.Value, error) { return nil, errors.New("valuer failed") }

type badValuerStruct struct{}

func (badValuerStruct) Value() (driver.Value, error) { return struct{}{}, nil }

type badValuer struct{ s string }

func (v badValuer) Value() (driver.Value, error) { return v.s, nil }

// badQs returns n comma-separated "?".
func badQs(n int) string { return strings.TrimSuffix(strings.Repeat("?,", n), ",") }

var badCases = []badCase{
	// Use after Close, double Close: database/sql.
	{"DB/Exec after Close", func(t *testing.T, e *badEnv) error {
		e.db.Close()
		_, err := e.db.Exec("SELECT 1")
		return err
	}, badMsg("sql: database is closed")},
	{"DB/Ping after Close", func(t *testing.T, e *badEnv) error { e.db.Close(); return e.db.Ping() }, badMsg("sql: database is closed")},
	{"DB/Close twice", func(t *testing.T, e *badEnv) error { e.db.Close(); return e.db.Close() }, badOK()},
	{"Stmt/Exec after Close", func(t *testing.T, e *badEnv) error {
		st, err := e.db.Prepare("SELECT 1")
		if err != nil {
			return err
		}
		st.Close()
		_, err = st.Exec()
		return err
	}, badMsg("sql: statement is closed")},
	{"Stmt/Close twice", func(t *testing.T, e *badEnv) error {
		st, err := e.db.Prepare("SELECT 1")
		if err != nil {
			return err
		}
		st.Close()
		return st.Close()
	}, badOK()},
	{"Stmt/Exec after its Tx committed", func(t *testing.T, e *badEnv) error {
		tx, err := e.db.Begin()
		if err != nil {
			return err
		}
		st, err := tx.Prepare("SELECT 1")
		if err != nil {
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		_, err = st.Exec()
		return err
	}, badMsg("sql: statement is closed")},
	{"Stmt/Tx.Stmt after Commit", func(t *testing.T, e *badEnv) error {
		st, err := e.db.Prepare("SELECT 1")
		if err != nil {
			return err
		}
		defer st.Close()
		tx, err := e.db.Begin()
		if err != nil {
			return err
		}
		tx.Commit()
		_, err = tx.Stmt(st).Exec()
		return err
	}, badIs(sql.ErrTxDone)},
	{"Rows/Scan after Close", func(t *testing.T, e *badEnv) error {
		rows, err := e.db.Query("SELECT a FROM t")
		if err != nil {
			return err
		}
		rows.Next()
		rows.Close()
		var a int
		return rows.Scan(&a)
	}, badMsg("sql: Rows are closed")},
	{"Rows/Next after Close", func(t *testing.T, e *badEnv) error {
		rows, err := e.db.Query("SELECT a FROM t")
		if err != nil {
			return err
		}
		rows.Close()
		if rows.Next() {
			return errors.New("Next returned true after Close")
		}
		return rows.Err()
	}, badOK()},
	{"Rows/Close twice", func(t *testing.T, e *badEnv) error {
		rows, err := e.db.Query("SELECT a FROM t")
		if err != nil {
			return err
		}
		rows.Close()
		return rows.Close()
	}, badOK()},
	{"Rows/Scan before Next", func(t *testing.T, e *badEnv) error {
		rows, err := e.db.Query("SELECT a FROM t")
		if err != nil {
			return err
		}
		defer rows.Close()
		var a int
		return rows.Scan(&a)
	}, badMsg("sql: Scan called without calling Next")},
	{"Rows/Columns after Close", func(t *testing.T, e *badEnv) error {
		rows, err := e.db.Query("SELECT a FROM t")
		if err != nil {
			return err
		}
		rows.Close()
		_, err = rows.Columns()
		return err
	}, badMsg("sql: Rows are closed")},
	{"Conn/Exec after Close", func(t *testing.T, e *badEnv) error {
		conn, err := e.db.Conn(context.Background())
		if err != nil {
			return err
		}
		conn.Close()
		_, err = conn.ExecContext(context.Background(), "SELECT 1")
		return err
	}, badIs(sql.ErrConnDone)},
	{"Conn/Close twice", func(t *testing.T, e *badEnv) error {
		conn, err := e.db.Conn(context.Background())
		if err != nil {
			return err
		}
		conn.Close()
		return conn.Close()
	}, badIs(sql.ErrConnDone)},
	{"Tx/Exec after Commit", func(t *testing.T, e *badEnv) error {
		tx, err := e.db.Begin()
		if err != nil {
			return err
		}
		tx.Commit()
		_, err = tx.Exec("INSERT INTO t(a) VALUES(3)")
		return err
	}, badIs(sql.ErrTxDone)},
	{"Tx/Rollback after Commit", func(t *testing.T, e *badEnv) error {
		tx, err := e.db.Begin()
		if err != nil {
			return err
		}
		tx.Commit()
		return tx.Rollback()
	}, badIs(sql.ErrTxDone)},
	{"Tx/Commit twice", func(t *testing.T, e *badEnv) error {
		tx, err := e.db.Begin()
		if err != nil {
			return err
		}
		tx.Commit()
		return tx.Commit()
	}, badIs(sql.ErrTxDone)},
	{"Tx/Commit after Rollback", func(t *testing.T, e *badEnv) error {
		tx, err := e.db.Begin()
		if err != nil {
			return err
		}
		tx.Rollback()
		return tx.Commit()
	}, badIs(sql.ErrTxDone)},
	{"Strict/Tx/isolation level weaker than SQLite's", func(t *testing.T, e *badEnv) error {
		_, err := e.db.BeginTx(context.Background(), &sql.TxOptions{Isolation: sql.LevelReadCommitted})
		return err
	}, badMsg("sqlite3: isolation level Read Committed is refused with _strict=1: SQLite transactions are serializable (ask for sql.LevelSerializable)")},
	{"Tx/BEGIN inside a transaction", func(t *testing.T, e *badEnv) error {
		tx, err := e.db.Begin()
		if err != nil {
			return err
		}
		defer tx.Rollback()
		_, err = tx.Exec("BEGIN")
		return err
	}, badCode(ErrError, "cannot start a transaction within a transaction")},
	{"Tx/COMMIT without a transaction", badExec("COMMIT"), badCode(ErrError, "cannot commit - no transaction is active")},

	// Scan into the wrong types.
	{"Scan/TEXT into *int", badScan("SELECT 'abc'", new(int)), badMsg(`converting driver.Value type string ("abc") to a int: invalid syntax`)},
	{"Scan/NULL into *int", badScan("SELECT NULL", new(int)), badMsg("converting NULL to int is unsupported")},
	{"Scan/NULL into *string", badScan("SELECT NULL", new(string)), badMsg("converting NULL to string is unsupported")},
	{"Scan/BLOB into *time.Time", badScan("SELECT x'00'", new(time.Time)), badMsg("unsupported Scan, storing driver.Value type []uint8 into type *time.Time")},
	{"Strict/Scan/unparseable DATETIME into *time.Time", badScan("SELECT d FROM t WHERE a = 1", new(time.Time)), badMsg("unsupported Scan, storing driver.Value type string into type *time.Time")},
	{"Scan/300 into *int8", badScan("SELECT 300", new(int8)), badMsg(`converting driver.Value type int64 ("300") to a int8: value out of range`)},
	{"Scan/-1 into *uint", badScan("SELECT -1", new(uint)), badMsg(`converting driver.Value type int64 ("-1") to a uint: invalid syntax`)},
	{"Scan/1.5 into *int", badScan("SELECT 1.5", new(int)), badMsg(`converting driver.Value type float64 ("1.5") to a int: invalid syntax`)},
	{"Scan/2 into *bool", badScan("SELECT 2", new(bool)), badMsg("couldn't convert 2 into type bool")},
	{"Scan/too many destinations", func(t *testing.T, e *badEnv) error {
		var a, b int
		return e.db.QueryRow("SELECT 1").Scan(&a, &b)
	}, badMsg("sql: expected 1 destination arguments in Scan, not 2")},
	{"Scan/nil destination", badScan("SELECT 1", nil), badMsg("destination not a pointer")},
	{"Scan/nil pointer destination", badScan("SELECT 1", (*int)(nil)), badMsg("destination pointer is nil")},
	{"Scan/non-pointer destination", badScan("SELECT 1", 0), badMsg("destination not a pointer")},

	// Parameters.
	{"Params/32767 parameters (over SQLITE_MAX_VARIABLE_NUMBER)", badExec("SELECT 1 WHERE 1 IN (" + badQs(32767) + ")"), badCode(ErrError, "too many SQL variables")},
	{"Params/?32767", badExec("SELECT ?32767", 1), badCode(ErrError, "variable number must be between ?1 and ?32766")},
	{"Params/32766 parameters (the limit) work", func(t *testing.T, e *badEnv) error {
		args := make([]any, 32766)
		for i := range args {
			args[i] = i
		}
		return badExpect(e, int64(1), "SELECT count(*) FROM (SELECT 1) WHERE 32765 IN ("+badQs(32766)+")", args...)
	}, badOK()},
	{"Strict/Params/40000 arguments for one parameter", badExec("SELECT ?", make([]any, 40000)...), badMsg("sqlite3: too many arguments: 40000 positional arguments given, statements use 1")},
	{"Params/too few", badExec("SELECT ?, ?", 1), badMsg("not enough args to execute query: want 2 got 1")},
	{"Strict/Params/too few", badExec("SELECT ?, ?", 1), badMsg("sqlite3: not enough arguments: parameter 2 has no value (the query has 2 parameters in this statement)")},
	{"Strict/Params/too many", badExec("SELECT ?", 1, 2), badMsg("sqlite3: too many arguments: 2 positional arguments given, statements use 1")},
	{"Strict/Params/missing name", badExec("SELECT :a", sql.Named("b", 1)), badMsg("sqlite3: not enough arguments: parameter 1 (:a) has no value")},
	{"Strict/Params/unused name", badExec("SELECT :a", sql.Named("a", 1), sql.Named("b", 2)), badMsg(`sqlite3: no parameter named "b"`)},
	{"Params/invalid name", badExec("SELECT :a", sql.Named("1a", 1)), badMsg(`name "1a" does not begin with a letter`)},
	{"Params/prepared statement, wrong count", func(t *testing.T, e *badEnv) error {
		st, err := e.db.Prepare("SELECT ?, ?")
		if err != nil {
			return err
		}
		defer st.Close()
		_, err = st.Exec(1)
		return err
	}, badMsg("sql: expected 2 arguments, got 1")},

	// Values that cannot be bound, and nil values that can.
	{"Bind/complex128", badExec("SELECT ?", complex(1, 2)), badMsg("unsupported type complex128")},
	{"Bind/struct", badExec("SELECT ?", struct{}{}), badMsg("unsupported type struct {}")},
	{"Bind/[]int", badExec("SELECT ?", []int{1}), badMsg("unsupported type []int")},
	{"Bind/map", badExec("SELECT ?", map[string]int{}), badMsg("unsupported type map[string]int")},
	{"Bind/chan", badExec("SELECT ?", make(chan int)), badMsg("unsupported type chan int")},
	{"Bind/func", badExec("SELECT ?", func() {}), badMsg("unsupported type func()")},
	{"Bind/sql.Out", badExec("SELECT ?", sql.Out{Dest: new(string)}), badMsg("unsupported type sql.Out")},
	{"Bind/uint64 over MaxInt64", badExec("SELECT ?", uint64(math.MaxInt64)+1), badMsg("sqlite3: uint64 value 9223372036854775808 overflows SQLite's 64-bit signed INTEGER")},
	{"Bind/Valuer error", badExec("SELECT ?", badValuerErr{}), badMsg("valuer failed")},
	{"Bind/Valuer returning a struct", badExec("SELECT ?", badValuerStruct{}), badMsg("non-Value type struct {} returned from Value")},
	{"Bind/nil *int is NULL", func(t *testing.T, e *badEnv) error { return badExpect(e, nil, "SELECT ?", (*int)(nil)) }, badOK()},
	{"Bind/nil *Valuer is NULL", func(t *testing.T, e *badEnv) error { return badExpect(e, nil, "SELECT ?", (*badValuer)(nil)) }, badOK()},
	{"Bind/untyped nil is NULL", func(t *testing.T, e *badEnv) error { return badExpect(e, nil, "SELECT ?", nil) }, badOK()},
	{"Bind/invalid UTF-8 kept as given", func(t *testing.T, e *badEnv) error {
		return badExpect(e, "\xff\xfe\x00\xc3(", "SELECT ?", "\xff\xfe\x00\xc3(")
	}, badOK()},

	// SQL text.
	{"SQL/syntax error", func(t *testing.T, e *badEnv) error {
		_, err := e.db.Exec("SELECT 1; SELEC 2")
		var se Error
		if errors.As(err, &se) && se.Offset() != 10 {
			return fmt.Errorf("offset %d, want 10: %w", se.Offset(), err)
		}
		return err
	}, badCode(ErrError, `near "SELEC": syntax error`)},
	{"SQL/unterminated string", badExec("SELECT 'abc"), badCode(ErrError, `unrecognized token: "'abc"`)},
	{"SQL/NUL byte in Exec", badExec("SELECT 1\x00; DROP TABLE t"), badMsg("sqlite3: query contains a NUL byte at offset 8")},
	{"SQL/NUL byte in Query", func(t *testing.T, e *badEnv) error {
		_, err := e.db.Query("SELECT '\x00'")
		return err
	}, badMsg("sqlite3: query contains a NUL byte at offset 8")},
	{"SQL/NUL byte in Prepare", func(t *testing.T, e *badEnv) error {
		_, err := e.db.Prepare("\x00")
		return err
	}, badMsg("sqlite3: query contains a NUL byte at offset 0")},
	{"Strict/SQL/empty Query", func(t *testing.T, e *badEnv) error {
		_, err := e.db.Query("")
		return err
	}, badMsg("sqlite3: query has no SQL statement")},
	{"SQL/comment-only Prepare", func(t *testing.T, e *badEnv) error {
		_, err := e.db.Prepare(" -- nothing\n/* at all */ ;")
		return err
	}, badMsg("sqlite3: query has no SQL statement")},
	{"SQL/empty Exec runs nothing", badExec(" ; "), badOK()},
	{"Strict/SQL/Prepare of two statements", func(t *testing.T, e *badEnv) error {
		_, err := e.db.Prepare("SELECT 1; SELECT 2")
		return err
	}, badMsg("sqlite3: Prepare takes one statement; use Exec or Query to run several")},
	{"SQL/invalid UTF-8 in a literal", func(t *testing.T, e *badEnv) error { return badExpect(e, "\xff\xfe", "SELECT '\xff\xfe'") }, badOK()},
	{"SQL/invalid UTF-8 in an identifier", func(t *testing.T, e *badEnv) error {
		rows, err := e.db.Query("SELECT 1 AS \"\xff\xc0\"")
		if err != nil {
			return err
		}
		defer rows.Close()
		cols, err := rows.Columns()
		if err == nil && (len(cols) != 1 || cols[0] != "\xff\xc0") {
			err = fmt.Errorf("columns %q", cols)
		}
		return err
	}, badOK()},
	{"SQL/1 MB statement", func(t *testing.T, e *badEnv) error {
		big := strings.Repeat("x", 1<<20)
		return badExpect(e, int64(1<<20), "SELECT length('"+big+"')")
	}, badOK()},
	{"SQL/2001 result columns", badExec("SELECT " + strings.Repeat("1,", 2000) + "1"), badCode(ErrError, "too many columns in result set")},
	{"SQL/expression too deep", badExec("SELECT " + strings.Repeat("1+", 1001) + "1"), badCode(ErrError, "Expression tree is too large (maximum depth 1000)")},
	{"SQL/no such table", badExec("SELECT * FROM nope"), badCode(ErrError, "no such table: nope")},
	{"SQL/error in the middle of a scan", func(t *testing.T, e *badEnv) error {
		rows, err := e.db.Query("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 10) SELECT CASE WHEN x = 5 THEN abs(-9223372036854775808) ELSE x END FROM c")
		if err != nil {
			return err
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			n++
		}
		if n != 4 {
			return fmt.Errorf("%d rows before the error, want 4 (%v)", n, rows.Err())
		}
		return rows.Err()
	}, badCode(ErrError, "integer overflow")},
	{"SQL/malformed JSON", badScan("SELECT json('{')", new(string)), badCode(ErrError, "malformed JSON")},
	{"SQL/value over the length limit", badExec("SELECT zeroblob(2000000000)"), badWant{is: ErrTooBig, msg: "string or blob too big"}},
	{"SQL/UNIQUE violation", badExec("CREATE UNIQUE INDEX t_a ON t(a); INSERT INTO t(a) VALUES(1)"), badWant{is: ErrConstraintUnique, msg: "UNIQUE constraint failed: t.a"}},

	// Schema changes under a prepared statement: SQLite re-prepares it.
	{"Schema/ALTER TABLE ADD COLUMN under SELECT *", func(t *testing.T, e *badEnv) error {
		return badSchemaChange(e, "ALTER TABLE t ADD COLUMN e TEXT DEFAULT 'new'", []string{"a", "b", "c", "d", "e"})
	}, badOK()},
	{"Schema/DROP and CREATE with other columns under SELECT *", func(t *testing.T, e *badEnv) error {
		return badSchemaChange(e, "DROP TABLE t; CREATE TABLE t(x, y); INSERT INTO t VALUES(1, 2)", []string{"x", "y"})
	}, badOK()},
	{"Schema/DROP under a prepared statement", func(t *testing.T, e *badEnv) error {
		st, err := e.db.Prepare("SELECT * FROM t")
		if err != nil {
			return err
		}
		defer st.Close()
		if _, err := e.db.Exec("DROP TABLE t"); err != nil {
			return err
		}
		_, err = st.Query()
		return err
	}, badCode(ErrError, "no such table: t")},
	{"Schema/cached SELECT * follows ALTER TABLE", func(t *testing.T, e *badEnv) error {
		cols := func() ([]string, error) {
			rows, err := e.db.Query("SELECT * FROM t")
			if err != nil {
				return nil, err
			}
			defer rows.Close()
			return rows.Columns()
		}
		if _, err := cols(); err != nil {
			return err
		}
		if _, err := e.db.Exec("ALTER TABLE t ADD COLUMN e"); err != nil {
			return err
		}
		got, err := cols()
		if err == nil && len(got) != 5 {
			err = fmt.Errorf("columns after ALTER TABLE: %q", got)
		}
		return err
	}, badOK()},
	{"Schema/recreated with a DATETIME column", func(t *testing.T, e *badEnv) error {
		st, err := e.db.Prepare("SELECT a FROM t WHERE a IS NOT NULL ORDER BY 1 LIMIT 1")
		if err != nil {
			return err
		}
		defer st.Close()
		if _, err := e.db.Exec("DROP TABLE t; CREATE TABLE t(a DATETIME); INSERT INTO t VALUES('2024-05-06 07:08:09')"); err != nil {
			return err
		}
		var v any
		if err := st.QueryRow().Scan(&v); err != nil {
			return err
		}
		if tm, ok := v.(time.Time); !ok || !tm.Equal(time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)) {
			return fmt.Errorf("read %T(%v), want the time.Time of a DATETIME column", v, v)
		}
		return nil
	}, badOK()},
	{"Schema/DROP TABLE while reading it on the same connection", func(t *testing.T, e *badEnv) error {
		conn, err := e.db.Conn(context.Background())
		if err != nil {
			return err
		}
		defer conn.Close()
		rows, err := conn.QueryContext(context.Background(), "SELECT a FROM t")
		if err != nil {
			return err
		}
		defer rows.Close()
		rows.Next()
		_, err = conn.ExecContext(context.Background(), "DROP TABLE t")
		return err
	}, badWant{is: ErrLocked, msg: "database table is locked"}},

	// DSNs.
	{"DSN/bad _txlock", func(t *testing.T, e *badEnv) error {
		_, err := sql.Open("sqlite3", "x.db?_txlock=sometimes")
		return err
	}, badMsg(`sqlite3: invalid DSN parameter _txlock="sometimes": want "deferred", "immediate" or "exclusive"`)},
	{"DSN/bad _busy_timeout", func(t *testing.T, e *badEnv) error {
		_, err := sql.Open("sqlite3", "x.db?_busy_timeout=soon")
		return err
	}, badMsg(`sqlite3: invalid DSN parameter _busy_timeout="soon"`)},
	{"DSN/bad escape", func(t *testing.T, e *badEnv) error {
		_, err := sql.Open("sqlite3", "x.db?_loc=%zz")
		return err
	}, badMsg("sqlite3: invalid DSN parameters")},
	{"DSN/missing directory", func(t *testing.T, e *badEnv) error {
		return badPing(filepath.Join(e.dir, "no", "such", "dir", "x.db"))
	}, badWant{is: ErrCantOpen, msg: "unable to open database file"}},
	{"DSN/mode=ro on a missing file", func(t *testing.T, e *badEnv) error {
		return badPing("file:" + filepath.Join(e.dir, "missing.db") + "?mode=ro")
	}, badWant{is: ErrCantOpen}},
	{"DSN/unknown VFS", func(t *testing.T, e *badEnv) error { return badPing("file:x.db?vfs=nosuchvfs") }, badMsg("no such vfs: nosuchvfs")},
	{"DSN/not a database", func(t *testing.T, e *badEnv) error {
		path := filepath.Join(e.dir, "junk.db")
		if err := os.WriteFile(path, []byte(strings.Repeat("not a database ", 100)), 0o644); err != nil {
			return err
		}
		db, err := sql.Open("sqlite3", path)
		if err != nil {
			return err
		}
		defer db.Close()
		_, err = db.Exec("SELECT * FROM sqlite_schema")
		return err
	}, badWant{is: ErrNotADB, msg: "file is not a database"}},
	{"DSN/NUL byte", func(t *testing.T, e *badEnv) error {
		// C sees the file name only up to the NUL: "nul.db" would be opened.
		path := filepath.Join(e.dir, "nul.db")
		err := badPing(path + "\x00.other")
		switch _, serr := os.Stat(path); {
		case err != nil && strings.HasPrefix(err.Error(), "sqlite3: ") && strings.Contains(err.Error(), "NUL"):
			return nil // refused, as a query with a NUL byte is
		case err == nil && serr == nil:
			return errors.New("a DSN with a NUL byte opened the file named by its first part, " + filepath.Base(path))
		default:
			return fmt.Errorf("a DSN with a NUL byte: %v, want the driver's error naming the NUL byte", err)
		}
	}, badOK()},

	// Driver level, as reached through sql.Conn.Raw or ConnectHook.
	{"Driver/Conn.Close twice", func(t *testing.T, e *badEnv) error {
		c := badRawConn(t, ":memory:")
		c.Close()
		return c.Close()
	}, badOK()},
	{"Driver/Exec after Conn.Close", func(t *testing.T, e *badEnv) error {
		c := badRawConn(t, ":memory:")
		c.Close()
		_, err := c.ExecContext(context.Background(), "SELECT 1", nil)
		return err
	}, badIs(driver.ErrBadConn)},
	{"Driver/Prepare after Conn.Close", func(t *testing.T, e *badEnv) error {
		c := badRawConn(t, ":memory:")
		c.Close()
		_, err := c.Prepare("SELECT 1")
		return err
	}, badIs(driver.ErrBadConn)},
	{"Driver/BeginTx after Conn.Close", func(t *testing.T, e *badEnv) error {
		c := badRawConn(t, ":memory:")
		c.Close()
		_, err := c.BeginTx(context.Background(), driver.TxOptions{})
		return err
	}, badIs(driver.ErrBadConn)},
	{"Driver/Tx.Commit after Conn.Close", func(t *testing.T, e *badEnv) error {
		c := badRawConn(t, ":memory:")
		tx, err := c.BeginTx(context.Background(), driver.TxOptions{})
		if err != nil {
			return err
		}
		c.Close()
		return tx.Commit()
	}, badIs(driver.ErrBadConn)},
	{"Driver/Stmt.Exec after Conn.Close", func(t *testing.T, e *badEnv) error {
		c := badRawConn(t, ":memory:")
		st, err := c.Prepare("SELECT 1")
		if err != nil {
			return err
		}
		c.Close()
		_, err = st.(*SQLiteStmt).ExecContext(context.Background(), nil)
		if cerr := st.Close(); cerr != nil {
			return cerr
		}
		return err
	}, badIs(driver.ErrBadConn)},
	{"Driver/Rows.Next after Conn.Close", func(t *testing.T, e *badEnv) error {
		c := badRawConn(t, ":memory:")
		rows, err := c.QueryContext(context.Background(), "SELECT 1 UNION ALL SELECT 2", nil)
		if err != nil {
			return err
		}
		c.Close()
		err = rows.Next(make([]driver.Value, 1))
		if cerr := rows.Close(); cerr != nil {
			return cerr
		}
		return err
	}, badIs(driver.ErrBadConn)},
	{"Driver/Stmt.Exec after Stmt.Close", func(t *testing.T, e *badEnv) error {
		c := badRawConn(t, ":memory:")
		st, err := c.Prepare("SELECT 1")
		if err != nil {
			return err
		}
		st.Close()
		_, err = st.(*SQLiteStmt).ExecContext(context.Background(), nil)
		return err
	}, badMsg("sqlite3: statement is closed")},
	{"Driver/Rows.Next after Rows.Close", func(t *testing.T, e *badEnv) error {
		c := badRawConn(t, ":memory:")
		rows, err := c.QueryContext(context.Background(), "SELECT 1", nil)
		if err != nil {
			return err
		}
		rows.Close()
		return rows.Next(make([]driver.Value, 1))
	}, badIs(io.EOF)},
	{"Driver/Stmt.Close twice, the statement reused in between", func(t *testing.T, e *badEnv) error {
		// Closing twice is documented as harmless. But the first Close put
		// the statement in the connection's cache, and the query below took
		// it from there: the second Close must not end that query's rows.
		c := badRawConn(t, ":memory:")
		st, err := c.Prepare("SELECT 1")
		if err != nil {
			return err
		}
		st.Close()
		rows, err := c.QueryContext(context.Background(), "SELECT 1", nil)
		if err != nil {
			return err
		}
		defer rows.Close()
		st.Close()
		dest := make([]driver.Value, 1)
		if err := rows.Next(dest); err != nil {
			return fmt.Errorf("rows of another query, after a second Close of a closed statement: %w", err)
		}
		return nil
	}, badOK()},
	{"Driver/Stmt used after Close, the statement reused in between", func(t *testing.T, e *badEnv) error {
		c := badRawConn(t, ":memory:")
		st, err := c.Prepare("SELECT 1")
		if err != nil {
			return err
		}
		st.Close()
		rows, err := c.QueryContext(context.Background(), "SELECT 1", nil)
		if err != nil {
			return err
		}
		defer rows.Close()
		_, err = st.(*SQLiteStmt).ExecContext(context.Background(), nil)
		return err
	}, badMsg("sqlite3: statement is closed")},
}

// badSchemaChange prepares SELECT * FROM t, runs change, and checks that the
// statement now returns the columns want.
func badSchemaChange(e *badEnv, change string, want []string) error {
	st, err := e.db.Prepare("SELECT * FROM t")
	if err != nil {
		return err
	}
	defer st.Close()
	if _, err := e.db.Exec(change); err != nil {
		return err
	}
	rows, err := st.Query()
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	if !reflect.DeepEqual(cols, want) {
		return fmt.Errorf("columns %q after %q, want %q", cols, change, want)
	}
	if !rows.Next() {
		return fmt.Errorf("no row: %v", rows.Err())
	}
	dest := make([]any, len(cols))
	for i := range dest {
		dest[i] = new(any)
	}
	return rows.Scan(dest...)
}

// badPing opens dsn and pings it.
func badPing(dsn string) error {
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	return db.Ping()
}

func TestBadInput(t *testing.T) {
	names := map[string]bool{}
	for _, tc := range badCases {
		if names[tc.name] {
			t.Fatalf("duplicate case %q", tc.name)
		}
		names[tc.name] = true
		t.Run(tc.name, func(t *testing.T) {
			params := ""
			if strings.HasPrefix(tc.name, "Strict/") {
				params = "_strict=1" // what the driver refuses only in strict mode (strict_test.go)
			}
			db := testMemDB(t, params)
			testMustExec(t, db, `CREATE TABLE t(a INTEGER, b TEXT, c BLOB, d DATETIME);
				INSERT INTO t VALUES(1, 'abc', x'00', 'not a date'), (2, NULL, NULL, NULL)`)
			err := tc.run(t, &badEnv{db: db, dir: t.TempDir()})
			w := tc.want
			if w.ok {
				if err != nil {
					t.Fatalf("unexpected error: %v (%T)", err, err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error; want %+v", w)
			}
			if w.is != nil && !errors.Is(err, w.is) {
				t.Errorf("errors.Is(%v (%T), %v) = false", err, err, w.is)
			}
			if w.code != 0 {
				var se Error
				if !errors.As(err, &se) || se.Code != w.code {
					t.Errorf("error %v (%T) is not an Error with code %d", err, err, w.code)
				}
			}
			if w.msg != "" && !strings.Contains(err.Error(), w.msg) {
				t.Errorf("error %q does not contain %q", err, w.msg)
			}
		})
	}
	t.Logf("%d bad inputs", len(badCases))
}
