//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"errors"
	"sync/atomic"
	"testing"
)

var driverSeq atomic.Int64

// registerTestDriver registers d under a fresh name and returns the name.
func registerTestDriver(d *SQLiteDriver) string {
	name := "sqlite3_test_" + itoa(int(driverSeq.Add(1)))
	sql.Register(name, d)
	return name
}

// ConnectHook runs once on every new connection, before it is used, with the
// connection itself; its error fails the open.
func TestConnectHookEveryConnection(t *testing.T) {
	var calls atomic.Int64
	name := registerTestDriver(&SQLiteDriver{ConnectHook: func(c *SQLiteConn) error {
		calls.Add(1)
		_, err := c.Exec("PRAGMA foreign_keys = ON", nil)
		return err
	}})
	db, err := sql.Open(name, t.TempDir()+"/hook.db")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	var conns []*sql.Conn
	for i := 0; i < 3; i++ {
		c, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		var fk int
		if err := c.QueryRowContext(ctx, "PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
			t.Fatalf("connection %d: foreign_keys=%d, %v; the hook did not run on it", i, fk, err)
		}
		if err := c.Raw(func(dc any) error {
			if _, ok := dc.(*SQLiteConn); !ok {
				return errors.New("Raw does not give a *SQLiteConn")
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	if n := calls.Load(); n != 3 {
		t.Fatalf("ConnectHook ran %d times for 3 connections", n)
	}
	for _, c := range conns {
		c.Close()
	}
}

func TestConnectHookErrorFailsOpen(t *testing.T) {
	boom := errors.New("boom")
	name := registerTestDriver(&SQLiteDriver{ConnectHook: func(*SQLiteConn) error { return boom }})
	db, err := sql.Open(name, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Ping(); !errors.Is(err, boom) {
		t.Fatalf("Ping: %v, want the hook's error", err)
	}
}

// mattn's exported constants and conventions that client code relies on.
func TestMattnConventions(t *testing.T) {
	if ErrConstraintUnique != ErrNoExtended(2067) || ErrConstraintPrimaryKey != ErrNoExtended(1555) ||
		ErrConstraintNotNull != ErrNoExtended(1299) || ErrConstraintForeignKey != ErrNoExtended(787) {
		t.Fatal("extended constraint codes differ from SQLite's")
	}
	if ErrBusy.Extend(2) != ErrBusySnapshot || ErrNoExtended(ErrIoErrRead)&ErrNoMask != ErrNoExtended(ErrIoErr) {
		t.Fatal("Extend does not build extended codes")
	}
	if SQLiteTimestampFormats[0] != "2006-01-02 15:04:05.999999999-07:00" || len(SQLiteTimestampFormats) != 9 {
		t.Fatalf("SQLiteTimestampFormats = %q", SQLiteTimestampFormats)
	}
	if got := ErrConstraint.Error(); got != "constraint failed" {
		t.Fatalf("ErrConstraint.Error() = %q", got)
	}
	if got := ErrConstraintUnique.Error(); got != "constraint failed" {
		t.Fatalf("ErrConstraintUnique.Error() = %q", got)
	}
}

// Rows.DeclTypes gives the lowercased declared types, as mattn does.
func TestDeclTypes(t *testing.T) {
	c := rawConn(t, ":memory:")
	ctx := context.Background()
	if _, err := c.ExecContext(ctx, "CREATE TABLE d (a INTEGER, b VARCHAR(10), c DateTime, e)", nil); err != nil {
		t.Fatal(err)
	}
	rows, err := c.QueryContext(ctx, "SELECT a, b, c, e, 1 FROM d", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got := rows.(*SQLiteRows).DeclTypes()
	want := []string{"integer", "varchar(10)", "datetime", "", ""}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("DeclTypes() = %q, want %q", got, want)
		}
	}
	rows.Close()

	// The statement cache keeps the statement; after the table changes,
	// SQLite re-prepares it and the declared types follow.
	for _, q := range []string{"DROP TABLE d", "CREATE TABLE d (a TEXT, b BLOB, c DATE, e BOOLEAN)"} {
		if _, err := c.ExecContext(ctx, q, nil); err != nil {
			t.Fatal(err)
		}
	}
	rows, err = c.QueryContext(ctx, "SELECT a, b, c, e, 1 FROM d", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	got = rows.(*SQLiteRows).DeclTypes()
	want = []string{"text", "blob", "date", "boolean", ""}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("after the schema change DeclTypes() = %q, want %q", got, want)
		}
	}
}

// A read-only transaction on a connection that is read-only by its DSN leaves
// it read-only afterwards.
func TestReadOnlyTxKeepsQueryOnly(t *testing.T) {
	db, err := sql.Open("sqlite3", t.TempDir()+"/ro.db?_query_only=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tx, err := db.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE t(x)"); err == nil {
		t.Fatal("write succeeded on a _query_only=1 connection after a read-only transaction")
	}
}

// _defensive=1 turns on SQLITE_DBCONFIG_DEFENSIVE: writable_schema cannot be
// used to change the schema table.
func TestDSNDefensive(t *testing.T) {
	for _, tc := range []struct {
		dsn     string
		blocked bool
	}{{"?_defensive=1", true}, {"?_defensive=0", false}, {"", false}} {
		db, err := sql.Open("sqlite3", t.TempDir()+"/d.db"+tc.dsn)
		if err != nil {
			t.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		_, err = db.Exec(`CREATE TABLE t(x); PRAGMA writable_schema = ON;
			UPDATE sqlite_schema SET sql = 'CREATE TABLE t(x, y)' WHERE name = 't'`)
		if blocked := err != nil; blocked != tc.blocked {
			t.Errorf("%q: schema write error %v, want blocked=%v", tc.dsn, err, tc.blocked)
		}
		db.Close()
	}
	if _, err := sql.Open("sqlite3", ":memory:?_defensive=maybe"); err == nil {
		t.Fatal("_defensive=maybe accepted")
	}
}
