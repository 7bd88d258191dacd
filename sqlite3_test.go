//go:build cgo

package sqlite3

// Tests of opening, DSN parameters and errors. Every test goes through
// database/sql only; the helpers below are shared with
// sql_behaviour_test.go. Helper names carry a "test" prefix so that they
// cannot collide with unexported identifiers of the driver itself.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// openTestDB opens dsn with the "sqlite3" driver, closes it when the test
// ends and fails the test if sql.Open fails. Note that sql.Open is lazy:
// DSN errors show up at the first use (db.Ping).
func openTestDB(t testing.TB, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		t.Fatalf("sql.Open(%q): %v", dsn, err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Errorf("db.Close(%q): %v", dsn, err)
		}
	})
	return db
}

// testTempPath returns the path of a not yet existing database file in a
// fresh temporary directory.
func testTempPath(t testing.TB) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "test.db")
}

var testMemDBSeq atomic.Int64

// testSharedMemDSN returns a DSN for a named shared-cache in-memory database
// that no other test uses.
func testSharedMemDSN(t testing.TB) string {
	t.Helper()
	return fmt.Sprintf("file:memdb_%d_%d?mode=memory&cache=shared", os.Getpid(), testMemDBSeq.Add(1))
}

// testConn returns a dedicated connection of db, closed at the end of the test.
func testConn(t testing.TB, db *sql.DB) *sql.Conn {
	t.Helper()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatalf("db.Conn: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// testExecer is what *sql.DB, *sql.Tx and *sql.Conn have in common for Exec.
type testExecer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// testQueryer is what *sql.DB, *sql.Tx and *sql.Conn have in common for QueryRow.
type testQueryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func testMustExec(t testing.TB, db testExecer, query string, args ...any) sql.Result {
	t.Helper()
	res, err := db.ExecContext(context.Background(), query, args...)
	if err != nil {
		t.Fatalf("Exec(%.120q): %v", query, err)
	}
	return res
}

func testQueryInt(t testing.TB, db testQueryer, query string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRowContext(context.Background(), query, args...).Scan(&n); err != nil {
		t.Fatalf("QueryRow(%.120q): %v", query, err)
	}
	return n
}

func testQueryString(t testing.TB, db testQueryer, query string, args ...any) string {
	t.Helper()
	var s string
	if err := db.QueryRowContext(context.Background(), query, args...).Scan(&s); err != nil {
		t.Fatalf("QueryRow(%.120q): %v", query, err)
	}
	return s
}

// testAsError extracts the driver's Error from err, failing the test when
// err is nil or carries no Error.
func testAsError(t testing.TB, err error) Error {
	t.Helper()
	if err == nil {
		t.Fatal("expected an error, got nil")
	}
	var e Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) does not carry a sqlite3.Error", err, err)
	}
	return e
}

func TestVersion(t *testing.T) {
	libVersion, libVersionNumber, sourceID := Version()
	if libVersion != "3.54.1" {
		t.Errorf("libVersion = %q, want 3.54.1", libVersion)
	}
	if libVersionNumber != 3054001 {
		t.Errorf("libVersionNumber = %d, want 3054001", libVersionNumber)
	}
	if sourceID == "" {
		t.Error("sourceID is empty")
	}
	db := openTestDB(t, ":memory:")
	if got := testQueryString(t, db, "SELECT sqlite_version()"); got != libVersion {
		t.Errorf("sqlite_version() = %q, Version() says %q", got, libVersion)
	}
	if got := testQueryString(t, db, "SELECT sqlite_source_id()"); got != sourceID {
		t.Errorf("sqlite_source_id() = %q, Version() says %q", got, sourceID)
	}
}

func TestOpenPingClose(t *testing.T) {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		t.Fatalf("sql.Open: %v", err)
	}
	if err := db.Ping(); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	if err := db.PingContext(context.Background()); err != nil {
		t.Fatalf("PingContext: %v", err)
	}
	var n int
	if err := db.QueryRow("SELECT 1 + 1").Scan(&n); err != nil || n != 2 {
		t.Fatalf("SELECT 1 + 1 = %d, %v", n, err)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := db.Ping(); err == nil {
		t.Fatal("Ping after Close succeeded")
	}

	// A file database is created on first use and keeps its data across
	// sql.DB instances.
	path := testTempPath(t)
	db1 := openTestDB(t, path)
	testMustExec(t, db1, "CREATE TABLE t(x); INSERT INTO t VALUES(42)")
	if err := db1.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("database file not created: %v", err)
	}
	db2 := openTestDB(t, path)
	if got := testQueryInt(t, db2, "SELECT x FROM t"); got != 42 {
		t.Fatalf("reopened file database: x = %d, want 42", got)
	}

	// Raw gives access to the driver's connection type.
	conn := testConn(t, db2)
	err = conn.Raw(func(dc any) error {
		if _, ok := dc.(*SQLiteConn); !ok {
			return fmt.Errorf("driver connection is %T, want *SQLiteConn", dc)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestOpenMemoryIsPerConnection(t *testing.T) {
	// Each connection to ":memory:" is its own database.
	db := openTestDB(t, ":memory:")
	ctx := context.Background()
	c1 := testConn(t, db)
	c2 := testConn(t, db)
	testMustExec(t, c1, "CREATE TABLE only_here(x)")
	if _, err := c2.ExecContext(ctx, "INSERT INTO only_here VALUES(1)"); err == nil {
		t.Fatal("a second :memory: connection saw the first one's table")
	}
}

func TestOpenSharedMemoryURI(t *testing.T) {
	dsn := testSharedMemDSN(t)
	db := openTestDB(t, dsn)
	c1 := testConn(t, db)
	c2 := testConn(t, db)
	testMustExec(t, c1, "CREATE TABLE shared(x); INSERT INTO shared VALUES(7)")
	if got := testQueryInt(t, c2, "SELECT x FROM shared"); got != 7 {
		t.Fatalf("second connection read %d, want 7", got)
	}
	testMustExec(t, c2, "INSERT INTO shared VALUES(8)")
	if got := testQueryInt(t, c1, "SELECT sum(x) FROM shared"); got != 15 {
		t.Fatalf("first connection read sum %d, want 15", got)
	}

	// A second sql.DB with the same URI sees the same database, while it is open.
	other := openTestDB(t, dsn)
	if got := testQueryInt(t, other, "SELECT count(*) FROM shared"); got != 2 {
		t.Fatalf("second sql.DB read count %d, want 2", got)
	}

	// A different name is a different database.
	fresh := openTestDB(t, testSharedMemDSN(t))
	if _, err := fresh.Exec("SELECT * FROM shared"); err == nil {
		t.Fatal("a differently named shared memory database saw the table")
	}
}

func TestOpenReadOnlyMode(t *testing.T) {
	path := testTempPath(t)
	rw := openTestDB(t, path)
	testMustExec(t, rw, "CREATE TABLE t(x); INSERT INTO t VALUES(1)")
	if err := rw.Close(); err != nil {
		t.Fatal(err)
	}

	ro := openTestDB(t, "file:"+path+"?mode=ro")
	if err := ro.Ping(); err != nil {
		t.Fatalf("Ping read-only: %v", err)
	}
	if got := testQueryInt(t, ro, "SELECT count(*) FROM t"); got != 1 {
		t.Fatalf("count = %d, want 1", got)
	}
	for _, q := range []string{
		"INSERT INTO t VALUES(2)",
		"CREATE TABLE u(y)",
		"DELETE FROM t",
	} {
		_, err := ro.Exec(q)
		e := testAsError(t, err)
		if e.Code != ErrReadonly {
			t.Errorf("%s: Code = %d (%v), want ErrReadonly", q, e.Code, err)
		}
		if !errors.Is(err, ErrReadonly) {
			t.Errorf("%s: errors.Is(err, ErrReadonly) = false for %v", q, err)
		}
	}
	if got := testQueryInt(t, ro, "SELECT count(*) FROM t"); got != 1 {
		t.Fatalf("count after failed writes = %d, want 1", got)
	}
}

func TestOpenReadOnlyMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "does-not-exist.db")
	db := openTestDB(t, "file:"+path+"?mode=ro")
	err := db.Ping()
	e := testAsError(t, err)
	if e.Code != ErrCantOpen {
		t.Fatalf("Code = %d (%v), want ErrCantOpen", e.Code, err)
	}
	if !errors.Is(err, ErrCantOpen) {
		t.Errorf("errors.Is(err, ErrCantOpen) = false for %v", err)
	}
	if _, statErr := os.Stat(path); !os.IsNotExist(statErr) {
		t.Errorf("mode=ro created the file (stat: %v)", statErr)
	}
}

func TestNewConnector(t *testing.T) {
	path := testTempPath(t)
	c, err := NewConnector(path + "?_fk=1&_busy_timeout=2345")
	if err != nil {
		t.Fatalf("NewConnector: %v", err)
	}
	if c.Driver() == nil {
		t.Fatal("Connector.Driver() is nil")
	}
	db := sql.OpenDB(c)
	t.Cleanup(func() { db.Close() })
	if err := db.Ping(); err != nil {
		t.Fatalf("Ping: %v", err)
	}
	testMustExec(t, db, "CREATE TABLE t(x); INSERT INTO t VALUES(5)")
	if got := testQueryInt(t, db, "SELECT x FROM t"); got != 5 {
		t.Fatalf("x = %d, want 5", got)
	}
	if got := testQueryInt(t, db, "PRAGMA foreign_keys"); got != 1 {
		t.Errorf("foreign_keys = %d, want 1 (DSN parameters must apply through a connector)", got)
	}
	if got := c.(*connector).cfg.busyTimeout; got != 2345 {
		t.Errorf("busy timeout = %d ms, want 2345", got)
	}

	// A bad DSN is reported by NewConnector or, at the latest, by the first connection.
	bad, err := NewConnector(path + "?_txlock=later")
	if err == nil {
		bdb := sql.OpenDB(bad)
		err = bdb.Ping()
		bdb.Close()
	}
	if err == nil {
		t.Fatal("connector with _txlock=later: no error")
	}
	if !strings.Contains(err.Error(), "_txlock") {
		t.Errorf("error %q does not name _txlock", err)
	}
}

// The busy timeout is the driver's context-aware busy handler, so PRAGMA
// busy_timeout (SQLite's own handler) reads 0; the configured values are
// checked here and their effect in TestErrorBusyTimeoutHonoured.
func TestDSNBusyTimeoutDefault(t *testing.T) {
	for dsn, want := range map[string]int{
		":memory:": 5000, ":memory:?_busy_timeout=1234": 1234, ":memory:?_timeout=4321": 4321,
		":memory:?_busy_timeout=0": 0, "file:x.db?_fk=1&_busy_timeout=777&_sync=OFF": 777,
	} {
		cfg, err := parseDSN(dsn)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.busyTimeout != want {
			t.Errorf("%s: busy timeout %d ms, want %d", dsn, cfg.busyTimeout, want)
		}
	}
}

func TestDSNPragmas(t *testing.T) {
	tests := []struct {
		params string
		pragma string
		want   string
	}{

		{"_foreign_keys=1", "foreign_keys", "1"},
		{"_foreign_keys=0", "foreign_keys", "0"},
		{"_fk=1", "foreign_keys", "1"},
		{"_fk=true", "foreign_keys", "1"},
		{"_fk=false", "foreign_keys", "0"},
		{"_fk=yes", "foreign_keys", "1"},
		{"_fk=no", "foreign_keys", "0"},
		{"_fk=on", "foreign_keys", "1"},
		{"_fk=off", "foreign_keys", "0"},
		{"_fk=TRUE", "foreign_keys", "1"},

		{"_journal_mode=WAL", "journal_mode", "wal"},
		{"_journal=wal", "journal_mode", "wal"},
		{"_journal_mode=TRUNCATE", "journal_mode", "truncate"},
		{"_journal=MEMORY", "journal_mode", "memory"},
		{"_journal_mode=PERSIST", "journal_mode", "persist"},
		{"_journal_mode=DELETE", "journal_mode", "delete"},

		{"_synchronous=OFF", "synchronous", "0"},
		{"_synchronous=NORMAL", "synchronous", "1"},
		{"_sync=FULL", "synchronous", "2"},
		{"_sync=extra", "synchronous", "3"},
		{"_sync=0", "synchronous", "0"},
		{"_synchronous=2", "synchronous", "2"},

		{"_cache_size=-4000", "cache_size", "-4000"},
		{"_cache_size=500", "cache_size", "500"},

		{"_query_only=1", "query_only", "1"},
		{"_query_only=false", "query_only", "0"},

		{"_recursive_triggers=1", "recursive_triggers", "1"},
		{"_recursive_triggers=0", "recursive_triggers", "0"},
		{"_rt=on", "recursive_triggers", "1"},

		{"_secure_delete=1", "secure_delete", "1"},
		{"_secure_delete=off", "secure_delete", "0"},
		{"_secure_delete=fast", "secure_delete", "2"},

		{"_locking_mode=EXCLUSIVE", "locking_mode", "exclusive"},
		{"_locking=exclusive", "locking_mode", "exclusive"},
		{"_locking_mode=NORMAL", "locking_mode", "normal"},

		{"_auto_vacuum=full", "auto_vacuum", "1"},
		{"_auto_vacuum=1", "auto_vacuum", "1"},
		{"_vacuum=incremental", "auto_vacuum", "2"},
		{"_vacuum=2", "auto_vacuum", "2"},
		{"_auto_vacuum=none", "auto_vacuum", "0"},

		{"_ignore_check_constraints=1", "ignore_check_constraints", "1"},
		{"_ignore_check_constraints=no", "ignore_check_constraints", "0"},

		{"_writable_schema=1", "writable_schema", "1"},
		{"_writable_schema=0", "writable_schema", "0"},

		{"_fk=1&_busy_timeout=777&_sync=OFF", "foreign_keys", "1"},
		{"_fk=1&_busy_timeout=777&_sync=OFF", "synchronous", "0"},
	}
	for _, tc := range tests {
		t.Run(tc.params+"/"+tc.pragma, func(t *testing.T) {
			db := openTestDB(t, testTempPath(t)+"?"+tc.params)
			// Every pooled connection must get the parameters: ask two.
			c1 := testConn(t, db)
			c2 := testConn(t, db)
			for i, c := range []*sql.Conn{c1, c2} {
				got := testQueryString(t, c, "PRAGMA "+tc.pragma)
				if !strings.EqualFold(got, tc.want) {
					t.Errorf("connection %d: PRAGMA %s = %q, want %q", i+1, tc.pragma, got, tc.want)
				}
				if tc.params == "_locking_mode=EXCLUSIVE" || tc.params == "_locking=exclusive" {
					break // the second connection could not share the file
				}
			}
		})
	}
}

func TestDSNForeignKeysBehaviour(t *testing.T) {
	for _, tc := range []struct {
		params  string
		enforce bool
	}{
		{"_fk=1", true},
		{"_foreign_keys=on", true},
		{"_fk=0", false},
		{"_foreign_keys=off", false},
		{"", false}, // SQLite's default
	} {
		t.Run(tc.params, func(t *testing.T) {
			db := openTestDB(t, testTempPath(t)+"?"+tc.params)
			testMustExec(t, db, "CREATE TABLE p(id INTEGER PRIMARY KEY); CREATE TABLE c(pid INTEGER REFERENCES p(id))")
			_, err := db.Exec("INSERT INTO c VALUES(99)")
			if tc.enforce {
				e := testAsError(t, err)
				if e.ExtendedCode != ErrConstraintForeignKey {
					t.Fatalf("ExtendedCode = %d (%v), want ErrConstraintForeignKey", e.ExtendedCode, err)
				}
			} else if err != nil {
				t.Fatalf("foreign keys not enforced, but insert failed: %v", err)
			}
		})
	}
}

// SQLite clears defer_foreign_keys at the end of every autocommit statement
// and at every COMMIT/ROLLBACK, so the setting only means something inside
// a transaction: that is where it is read back.
func TestDSNDeferForeignKeys(t *testing.T) {
	for _, tc := range []struct {
		params string
		want   int64
	}{
		{"_defer_foreign_keys=1", 1},
		{"_defer_fk=true", 1},
		{"_defer_fk=0", 0},
		{"", 0},
	} {
		t.Run(tc.params, func(t *testing.T) {
			db := openTestDB(t, testTempPath(t)+"?_fk=1&"+tc.params)
			db.SetMaxOpenConns(1)
			testMustExec(t, db, "CREATE TABLE p(id INTEGER PRIMARY KEY); CREATE TABLE c(pid INTEGER REFERENCES p(id))")
			for round := 0; round < 2; round++ { // it must hold in every transaction, not just the first
				tx, err := db.Begin()
				if err != nil {
					t.Fatal(err)
				}
				if got := testQueryInt(t, tx, "PRAGMA defer_foreign_keys"); got != tc.want {
					t.Errorf("round %d: PRAGMA defer_foreign_keys inside a transaction = %d, want %d", round, got, tc.want)
				}
				_, err = tx.Exec("INSERT INTO c VALUES(?)", 10+round)
				if tc.want == 1 && err != nil {
					t.Errorf("round %d: child before parent with deferred foreign keys: %v", round, err)
				}
				if tc.want == 0 && err == nil {
					t.Errorf("round %d: child before parent accepted without deferred foreign keys", round)
				}
				if err := tx.Rollback(); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func TestDSNDeferForeignKeysCommit(t *testing.T) {
	db := openTestDB(t, testTempPath(t)+"?_fk=1&_defer_fk=1")
	db.SetMaxOpenConns(1)
	testMustExec(t, db, "CREATE TABLE p(id INTEGER PRIMARY KEY); CREATE TABLE c(pid INTEGER REFERENCES p(id))")
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	// With deferred foreign keys the child may come before its parent.
	if _, err := tx.Exec("INSERT INTO c VALUES(1)"); err != nil {
		tx.Rollback()
		t.Fatalf("child before parent with _defer_fk=1: %v", err)
	}
	if _, err := tx.Exec("INSERT INTO p VALUES(1)"); err != nil {
		tx.Rollback()
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatalf("Commit: %v", err)
	}

	// A violation still open at COMMIT fails the commit, and the connection
	// is left outside any transaction with nothing written.
	tx, err = db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("INSERT INTO c VALUES(2)"); err != nil {
		tx.Rollback()
		t.Fatalf("child before parent with _defer_fk=1: %v", err)
	}
	err = tx.Commit()
	if e := testAsError(t, err); e.ExtendedCode != ErrConstraintForeignKey {
		t.Errorf("Commit with a dangling child: ExtendedCode %d (%v), want ErrConstraintForeignKey", e.ExtendedCode, err)
	}
	if got := testQueryInt(t, db, "SELECT count(*) FROM c"); got != 1 {
		t.Errorf("rows in c after failed commit = %d, want 1", got)
	}
	tx, err = db.Begin()
	if err != nil {
		t.Fatalf("Begin after failed commit: %v", err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
}

func TestDSNCaseSensitiveLike(t *testing.T) {
	for _, tc := range []struct {
		params string
		want   int64 // 'a' LIKE 'A'
	}{
		{"", 1},
		{"_case_sensitive_like=1", 0},
		{"_case_sensitive_like=true", 0},
		{"_cslike=on", 0},
		{"_cslike=0", 1},
		{"_case_sensitive_like=no", 1},
	} {
		t.Run(tc.params, func(t *testing.T) {
			db := openTestDB(t, testTempPath(t)+"?"+tc.params)
			if got := testQueryInt(t, db, "SELECT 'a' LIKE 'A'"); got != tc.want {
				t.Fatalf("'a' LIKE 'A' = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestDSNQueryOnlyBehaviour(t *testing.T) {
	path := testTempPath(t)
	rw := openTestDB(t, path)
	testMustExec(t, rw, "CREATE TABLE t(x)")
	qo := openTestDB(t, path+"?_query_only=1")
	if got := testQueryInt(t, qo, "SELECT count(*) FROM t"); got != 0 {
		t.Fatalf("count = %d", got)
	}
	_, err := qo.Exec("INSERT INTO t VALUES(1)")
	if err == nil {
		t.Fatal("insert succeeded with _query_only=1")
	}
	if got := testQueryInt(t, rw, "SELECT count(*) FROM t"); got != 0 {
		t.Fatalf("count after refused insert = %d, want 0", got)
	}
}

func TestDSNIgnoreCheckConstraintsBehaviour(t *testing.T) {
	for _, tc := range []struct {
		params string
		ignore bool
	}{
		{"", false},
		{"_ignore_check_constraints=1", true},
		{"_ignore_check_constraints=off", false},
	} {
		t.Run(tc.params, func(t *testing.T) {
			db := openTestDB(t, testTempPath(t)+"?"+tc.params)
			testMustExec(t, db, "CREATE TABLE t(x INTEGER CHECK (x > 0))")
			_, err := db.Exec("INSERT INTO t VALUES(-1)")
			if tc.ignore && err != nil {
				t.Fatalf("CHECK enforced despite _ignore_check_constraints=1: %v", err)
			}
			if !tc.ignore && err == nil {
				t.Fatal("CHECK constraint not enforced")
			}
		})
	}
}

func TestDSNJournalModeWALFile(t *testing.T) {
	path := testTempPath(t)
	db := openTestDB(t, path+"?_journal_mode=WAL")
	testMustExec(t, db, "CREATE TABLE t(x); INSERT INTO t VALUES(1)")
	if got := testQueryString(t, db, "PRAGMA journal_mode"); got != "wal" {
		t.Fatalf("journal_mode = %q, want wal", got)
	}
	if _, err := os.Stat(path + "-wal"); err != nil {
		t.Fatalf("no -wal file next to the database: %v", err)
	}
	// WAL mode is persistent: a plain reopen still reports it.
	db2 := openTestDB(t, path)
	if got := testQueryString(t, db2, "PRAGMA journal_mode"); got != "wal" {
		t.Fatalf("journal_mode after reopen = %q, want wal", got)
	}
}

func TestDSNPragmaParameter(t *testing.T) {
	db := openTestDB(t, testTempPath(t)+"?_pragma=foreign_keys(1)&_pragma=busy_timeout(1234)&_pragma=journal_mode(WAL)")
	if got := testQueryInt(t, db, "PRAGMA foreign_keys"); got != 1 {
		t.Errorf("foreign_keys = %d, want 1", got)
	}
	if got := testQueryInt(t, db, "PRAGMA busy_timeout"); got != 1234 {
		t.Errorf("busy_timeout = %d, want 1234", got)
	}
	if got := testQueryString(t, db, "PRAGMA journal_mode"); got != "wal" {
		t.Errorf("journal_mode = %q, want wal", got)
	}
}

func TestDSNBadValues(t *testing.T) {
	tests := []struct {
		params string
		names  []string // the message must contain one of these
	}{
		{"_busy_timeout=abc", []string{"_busy_timeout"}},
		{"_timeout=abc", []string{"_timeout", "_busy_timeout"}},
		{"_txlock=later", []string{"_txlock"}},
		{"_fk=maybe", []string{"_fk", "_foreign_keys"}},
		{"_foreign_keys=2", []string{"_foreign_keys"}},
		{"_journal_mode=bogus", []string{"_journal_mode", "_journal"}},
		{"_loc=Not/AZone", []string{"_loc"}},
		{"_mutex=some", []string{"_mutex"}},
		{"_stmt_cache_size=-1", []string{"_stmt_cache_size"}},
		{"_stmt_cache_size=x", []string{"_stmt_cache_size"}},
		{"_sync=sometimes", []string{"_sync", "_synchronous"}},
		{"_cache_size=big", []string{"_cache_size"}},
		{"_secure_delete=maybe", []string{"_secure_delete"}},
		{"_locking_mode=shared", []string{"_locking_mode", "_locking"}},
		{"_auto_vacuum=sometimes", []string{"_auto_vacuum", "_vacuum"}},
		{"_cslike=maybe", []string{"_cslike", "_case_sensitive_like"}},
		{"_rt=maybe", []string{"_rt", "_recursive_triggers"}},
		{"_query_only=maybe", []string{"_query_only"}},
	}
	for _, tc := range tests {
		for _, base := range []string{":memory:", "FILE"} {
			t.Run(tc.params+"/"+base, func(t *testing.T) {
				if base == "FILE" {
					base = testTempPath(t)
				}
				// The error may come from sql.Open (a driver.DriverContext
				// parses the DSN there) or, at the latest, from the first use.
				// TestDSNBadValueAtFirstUse pins down which.
				dsn := base + "?" + tc.params
				db, err := sql.Open("sqlite3", dsn)
				if err == nil {
					defer db.Close()
					err = db.Ping()
				}
				if err == nil {
					t.Fatalf("Ping with %s: no error", tc.params)
				}
				found := false
				for _, n := range tc.names {
					if strings.Contains(err.Error(), n) {
						found = true
					}
				}
				if !found {
					t.Errorf("error %q names none of %q", err, tc.names)
				}
				// It stays an error: nothing half-open is handed out.
				if db != nil {
					if _, err := db.Exec("SELECT 1"); err == nil {
						t.Error("Exec after failed Ping succeeded")
					}
				}
			})
		}
	}
}

func TestErrorConstraints(t *testing.T) {
	db := openTestDB(t, testTempPath(t)+"?_fk=1")
	testMustExec(t, db, `
		CREATE TABLE parent(id INTEGER PRIMARY KEY);
		CREATE TABLE tpk(k TEXT PRIMARY KEY);
		CREATE TABLE c(
			id INTEGER PRIMARY KEY,
			u TEXT UNIQUE,
			nn TEXT NOT NULL DEFAULT 'x',
			ck INTEGER CHECK (ck >= 0),
			pid INTEGER REFERENCES parent(id)
		);
		INSERT INTO parent VALUES(1);
		INSERT INTO tpk VALUES('a');
		INSERT INTO c(id, u) VALUES(1, 'dup');
	`)
	const constraintCheck = ErrNoExtended(275) // SQLITE_CONSTRAINT_CHECK
	tests := []struct {
		name  string
		query string
		code  ErrNo
		ext   ErrNoExtended
	}{
		{"unique", "INSERT INTO c(id, u) VALUES(2, 'dup')", ErrConstraint, ErrConstraintUnique},
		{"not null", "INSERT INTO c(id, u, nn) VALUES(3, 'n', NULL)", ErrConstraint, ErrConstraintNotNull},
		{"integer primary key", "INSERT INTO c(id) VALUES(1)", ErrConstraint, ErrConstraintPrimaryKey},
		{"text primary key", "INSERT INTO tpk VALUES('a')", ErrConstraint, ErrConstraintPrimaryKey},
		{"foreign key", "INSERT INTO c(id, pid) VALUES(4, 42)", ErrConstraint, ErrConstraintForeignKey},
		{"foreign key delete", "INSERT INTO c(id, pid) VALUES(5, 1); DELETE FROM parent WHERE id = 1", ErrConstraint, ErrConstraintForeignKey},
		{"check", "INSERT INTO c(id, ck) VALUES(6, -1)", ErrConstraint, constraintCheck},
		{"mismatch", "INSERT INTO c(id) VALUES('abc')", ErrMismatch, ErrNoExtended(ErrMismatch)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := db.Exec(tc.query)
			e := testAsError(t, err)
			if e.Code != tc.code {
				t.Errorf("Code = %d, want %d (%v)", e.Code, tc.code, err)
			}
			if e.ExtendedCode != tc.ext {
				t.Errorf("ExtendedCode = %d, want %d (%v)", e.ExtendedCode, tc.ext, err)
			}
			if !errors.Is(err, tc.code) {
				t.Errorf("errors.Is(err, ErrNo(%d)) = false for %v", tc.code, err)
			}
			if !errors.Is(err, tc.ext) {
				t.Errorf("errors.Is(err, ErrNoExtended(%d)) = false for %v", tc.ext, err)
			}
			// errors.Is must not match unrelated codes.
			if errors.Is(err, ErrBusy) {
				t.Errorf("errors.Is(err, ErrBusy) = true for %v", err)
			}
			if tc.ext != ErrConstraintNotNull && errors.Is(err, ErrConstraintNotNull) {
				t.Errorf("errors.Is(err, ErrConstraintNotNull) = true for %v", err)
			}
			if e.Error() == "" || err.Error() == "" {
				t.Error("empty error message")
			}
			// database/sql hands Exec errors through unchanged, so the
			// driver's error can be type-asserted by value.
			if direct, ok := err.(Error); !ok {
				t.Errorf("err.(Error) failed: error is %T", err)
			} else if direct.Code != tc.code {
				t.Errorf("err.(Error).Code = %d, want %d", direct.Code, tc.code)
			}
		})
	}
	// The failing statements changed nothing.
	if got := testQueryInt(t, db, "SELECT count(*) FROM c"); got != 2 {
		t.Fatalf("rows in c = %d, want 2 (the seed row and the FK-delete setup row)", got)
	}
	if got := testQueryInt(t, db, "SELECT count(*) FROM parent"); got != 1 {
		t.Fatalf("rows in parent = %d, want 1", got)
	}
}

func TestErrorSyntaxOffset(t *testing.T) {
	db := openTestDB(t, ":memory:")
	db.SetMaxOpenConns(1)
	tests := []struct {
		query string
		token string // the offset must point at this token
	}{
		{"SELECT 1 FROM WHERE", "WHERE"},
		{"SELECT * FROM sqlite_schema WHERE name = = 1", "= 1"},
		{"SELEC 1", "SELEC"},
		{"SELECT nosuchcol FROM sqlite_schema", "nosuchcol"},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			want := strings.Index(tc.query, tc.token)
			for _, op := range []string{"exec", "query", "prepare"} {
				var err error
				switch op {
				case "exec":
					_, err = db.Exec(tc.query)
				case "query":
					var rows *sql.Rows
					rows, err = db.Query(tc.query)
					if err == nil {
						rows.Close()
					}
				case "prepare":
					var st *sql.Stmt
					st, err = db.Prepare(tc.query)
					if err == nil {
						st.Close()
					}
				}
				e := testAsError(t, err)
				if e.Code != ErrError {
					t.Errorf("%s: Code = %d, want ErrError (%v)", op, e.Code, err)
				}
				if got := e.Offset(); got != want {
					t.Errorf("%s: Offset() = %d, want %d (%v)", op, got, want, err)
				}
			}
		})
	}
	// Errors that are not about a place in the SQL have no offset.
	testMustExec(t, db, "CREATE TABLE u(x UNIQUE); INSERT INTO u VALUES(1)")
	_, err := db.Exec("INSERT INTO u VALUES(1)")
	if e := testAsError(t, err); e.Offset() != -1 {
		t.Errorf("constraint error Offset() = %d, want -1", e.Offset())
	}
}

func TestErrorJSON(t *testing.T) {
	db := openTestDB(t, ":memory:")
	db.SetMaxOpenConns(1)
	testMustExec(t, db, "CREATE TABLE u(x UNIQUE); INSERT INTO u VALUES(1)")
	_, err := db.Exec("INSERT INTO u VALUES(1)")
	e := testAsError(t, err)
	b, jerr := json.Marshal(e)
	if jerr != nil {
		t.Fatalf("json.Marshal: %v", jerr)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("json.Unmarshal(%s): %v", b, err)
	}
	if m["Code"] != float64(ErrConstraint) {
		t.Errorf("JSON Code = %v, want %d (%s)", m["Code"], ErrConstraint, b)
	}
	if m["ExtendedCode"] != float64(ErrConstraintUnique) {
		t.Errorf("JSON ExtendedCode = %v, want %d (%s)", m["ExtendedCode"], ErrConstraintUnique, b)
	}
}

func TestErrorMisc(t *testing.T) {
	t.Run("invalid SQL", func(t *testing.T) {
		db := openTestDB(t, ":memory:")
		for _, q := range []string{"NOT SQL AT ALL", "SELECT * FROM no_such_table", "INSERT INTO", "SELECT (1"} {
			if _, err := db.Exec(q); err == nil {
				t.Errorf("Exec(%q): no error", q)
			}
			rows, err := db.Query(q)
			if err == nil {
				rows.Close()
				t.Errorf("Query(%q): no error", q)
			}
		}
		_, err := db.Exec("SELECT * FROM no_such_table")
		if err == nil || !strings.Contains(err.Error(), "no_such_table") {
			t.Errorf("error %v does not name the missing table", err)
		}
	})

	t.Run("empty query", func(t *testing.T) {
		// An empty statement is not a driver failure: no panic, and either an
		// error or an empty result.
		db := openTestDB(t, ":memory:")
		for _, q := range []string{"", "   ", ";", "-- just a comment", "/* c */ ;"} {
			res, err := db.Exec(q)
			if err == nil {
				if n, err := res.RowsAffected(); err == nil && n != 0 {
					t.Errorf("Exec(%q): RowsAffected = %d", q, n)
				}
			}
			rows, err := db.Query(q)
			if err == nil {
				if rows.Next() {
					t.Errorf("Query(%q) returned a row", q)
				}
				if err := rows.Err(); err != nil {
					t.Errorf("Query(%q): rows.Err = %v", q, err)
				}
				rows.Close()
			}
		}
		if err := db.Ping(); err != nil {
			t.Fatalf("connection unusable after empty queries: %v", err)
		}
	})

	t.Run("NUL byte in query", func(t *testing.T) {
		db := openTestDB(t, ":memory:")
		db.SetMaxOpenConns(1)
		testMustExec(t, db, "CREATE TABLE keep(x)")
		if _, err := db.Exec("SELECT 1\x00; DROP TABLE keep"); err == nil {
			t.Error("Exec with a NUL byte in the SQL: no error")
		}
		rows, err := db.Query("SELECT 1\x00garbage")
		if err == nil {
			rows.Close()
			t.Error("Query with a NUL byte in the SQL: no error")
		}
		if got := testQueryInt(t, db, "SELECT count(*) FROM sqlite_schema WHERE name = 'keep'"); got != 1 {
			t.Error("the statement after the NUL byte ran")
		}
	})

	t.Run("closed DB", func(t *testing.T) {
		db, err := sql.Open("sqlite3", ":memory:")
		if err != nil {
			t.Fatal(err)
		}
		testMustExec(t, db, "CREATE TABLE t(x)")
		st, err := db.Prepare("INSERT INTO t VALUES(?)")
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec("SELECT 1"); err == nil {
			t.Error("Exec on closed DB: no error")
		}
		if _, err := db.Query("SELECT 1"); err == nil {
			t.Error("Query on closed DB: no error")
		}
		if err := db.QueryRow("SELECT 1").Scan(new(int)); err == nil {
			t.Error("QueryRow on closed DB: no error")
		}
		if _, err := db.Begin(); err == nil {
			t.Error("Begin on closed DB: no error")
		}
		if _, err := db.Prepare("SELECT 1"); err == nil {
			t.Error("Prepare on closed DB: no error")
		}
		if _, err := st.Exec(1); err == nil {
			t.Error("Stmt.Exec on closed DB: no error")
		}
		st.Close()
		db.Close() // a second Close must not panic
	})

	t.Run("closed rows, stmt and tx", func(t *testing.T) {
		db := openTestDB(t, ":memory:")
		db.SetMaxOpenConns(1)
		testMustExec(t, db, "CREATE TABLE t(x); INSERT INTO t VALUES(1),(2)")
		rows, err := db.Query("SELECT x FROM t")
		if err != nil {
			t.Fatal(err)
		}
		rows.Close()
		if rows.Next() {
			t.Error("Next on closed rows returned true")
		}
		var x int
		if err := rows.Scan(&x); err == nil {
			t.Error("Scan on closed rows: no error")
		}
		st, err := db.Prepare("SELECT x FROM t")
		if err != nil {
			t.Fatal(err)
		}
		st.Close()
		if _, err := st.Query(); err == nil {
			t.Error("Query on closed Stmt: no error")
		}
		tx, err := db.Begin()
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec("INSERT INTO t VALUES(3)"); !errors.Is(err, sql.ErrTxDone) {
			t.Errorf("Exec after Commit: %v, want sql.ErrTxDone", err)
		}
		if got := testQueryInt(t, db, "SELECT count(*) FROM t"); got != 2 {
			t.Errorf("count = %d, want 2", got)
		}
	})

	t.Run("scan into wrong type", func(t *testing.T) {
		db := openTestDB(t, ":memory:")
		var i int
		if err := db.QueryRow("SELECT 'abc'").Scan(&i); err == nil {
			t.Errorf("Scan 'abc' into int: no error (got %d)", i)
		}
		if err := db.QueryRow("SELECT NULL").Scan(&i); err == nil {
			t.Error("Scan NULL into int: no error")
		}
		var i64 int64
		if err := db.QueryRow("SELECT 1.5").Scan(&i64); err == nil {
			t.Errorf("Scan 1.5 into int64: no error (got %d)", i64)
		}
		var u8 uint8
		if err := db.QueryRow("SELECT 300").Scan(&u8); err == nil {
			t.Errorf("Scan 300 into uint8: no error (got %d)", u8)
		}
		var b bool
		if err := db.QueryRow("SELECT 'neither'").Scan(&b); err == nil {
			t.Error("Scan 'neither' into bool: no error")
		}
		var a, c int
		if err := db.QueryRow("SELECT 1").Scan(&a, &c); err == nil {
			t.Error("Scan of one column into two destinations: no error")
		}
	})

	t.Run("too big", func(t *testing.T) {
		db := openTestDB(t, ":memory:")
		var b []byte
		err := db.QueryRow("SELECT zeroblob(2000000000)").Scan(&b)
		e := testAsError(t, err)
		if e.Code != ErrTooBig {
			t.Fatalf("Code = %d (%v), want ErrTooBig", e.Code, err)
		}
		if !errors.Is(err, ErrTooBig) {
			t.Errorf("errors.Is(err, ErrTooBig) = false for %v", err)
		}
		_, err = db.Exec("SELECT length(zeroblob(2000000000))")
		if e := testAsError(t, err); e.Code != ErrTooBig {
			t.Fatalf("Exec: Code = %d (%v), want ErrTooBig", e.Code, err)
		}
	})

	t.Run("not a database", func(t *testing.T) {
		path := testTempPath(t)
		junk := []byte(strings.Repeat("this is certainly not an SQLite database file. ", 200))
		if err := os.WriteFile(path, junk, 0o644); err != nil {
			t.Fatal(err)
		}
		db := openTestDB(t, path)
		err := db.Ping()
		if err == nil {
			var n int
			err = db.QueryRow("SELECT count(*) FROM sqlite_schema").Scan(&n)
		}
		e := testAsError(t, err)
		if e.Code != ErrNotADB {
			t.Fatalf("Code = %d (%v), want ErrNotADB", e.Code, err)
		}
	})
}

func TestErrorBusyTimeoutHonoured(t *testing.T) {
	// _busy_timeout=0 fails at once; a small busy timeout waits about that long.
	path := testTempPath(t)
	holder := openTestDB(t, path)
	testMustExec(t, holder, "CREATE TABLE t(x)")
	conn := testConn(t, holder)
	testMustExec(t, conn, "BEGIN IMMEDIATE")
	defer conn.ExecContext(context.Background(), "ROLLBACK")

	for _, tc := range []struct {
		params   string
		min, max time.Duration
	}{
		{"_busy_timeout=0", 0, 2 * time.Second},
		{"_busy_timeout=300", 250 * time.Millisecond, 4 * time.Second},
		{"_timeout=300", 250 * time.Millisecond, 4 * time.Second},
	} {
		t.Run(tc.params, func(t *testing.T) {
			db := openTestDB(t, path+"?"+tc.params)
			if err := db.Ping(); err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			_, err := db.Exec("INSERT INTO t VALUES(1)")
			elapsed := time.Since(start)
			e := testAsError(t, err)
			if e.Code != ErrBusy {
				t.Fatalf("Code = %d (%v), want ErrBusy", e.Code, err)
			}
			if !errors.Is(err, ErrBusy) {
				t.Errorf("errors.Is(err, ErrBusy) = false for %v", err)
			}
			if elapsed < tc.min || elapsed > tc.max {
				t.Errorf("busy error after %v, want between %v and %v", elapsed, tc.min, tc.max)
			}
		})
	}
}
