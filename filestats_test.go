//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// Tests of FileStats (share.go): each field says what its doc says, counters
// never go back while the process lives, and a write refused because its
// transaction read first is counted apart and explained.

// Connections counts connections with the file as main database, not the
// ones that attach it.
func TestFileStatsConnections(t *testing.T) {
	dir := t.TempDir()
	x := filepath.Join(dir, "x.db")
	dbx := openTestDB(t, x+"?_journal_mode=WAL")
	dbx.SetMaxOpenConns(1)
	testMustExec(t, dbx, "CREATE TABLE t(v)")
	dby := openTestDB(t, filepath.Join(dir, "y.db"))
	ctx := context.Background()
	for range 3 {
		c, err := dby.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		testMustExec(t, c, "ATTACH '"+x+"' AS x")
		testMustExec(t, c, "SELECT count(*) FROM x.t")
	}
	if n := shareStats(t, dbx).Connections; n != 1 {
		t.Errorf("Connections = %d with 3 connections of another file attaching it, want 1", n)
	}
}

// BusyTimeouts counts waits that ran out for a statement, not the bound's
// checkpoints; the WAL's extent is 0 once the WAL is deleted.
func TestFileStatsWALFields(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.db")
	db := openTestDB(t, path+"?_journal_mode=WAL&_busy_timeout=5000&_wal_bound=65536")
	db.SetMaxOpenConns(2)
	testMustExec(t, db, "CREATE TABLE t(v)")
	reader, err := db.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := reader.QueryRow("SELECT count(*) FROM t").Scan(&n); err != nil {
		t.Fatal(err)
	}
	for range 100 {
		testMustExec(t, db, "INSERT INTO t VALUES (randomblob(1000))")
	}
	st := shareStats(t, db)
	if st.BusyTimeouts != 0 || st.WALBytes < 100000 {
		t.Errorf("after 100 KB beside a reader: %+v; want BusyTimeouts 0, WALBytes over 100000", st)
	}
	reader.Rollback()
	db.SetMaxOpenConns(1)
	testMustExec(t, db, "PRAGMA journal_mode=DELETE")
	if st := shareStats(t, db); st.WALBytes != 0 || st.WALFileBytes != 0 {
		t.Errorf("WALBytes %d, WALFileBytes %d after the WAL's deletion, want 0", st.WALBytes, st.WALFileBytes)
	}
}

// Counters never go back: a pool that passes through zero connections (all
// closed, then opened again) finds them where they were.
func TestFileStatsNeverGoBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "n.db")
	dsn := path + "?_journal_mode=WAL&_busy_timeout=5000&_wal_bound=65536"
	db := openTestDB(t, dsn)
	testMustExec(t, db, "CREATE TABLE t(v)")
	for range 200 {
		testMustExec(t, db, "INSERT INTO t VALUES (randomblob(1000))")
	}
	before := shareStats(t, db)
	if before.Checkpoints == 0 {
		t.Fatalf("no checkpoint by the bound after 200 KB: %+v", before)
	}
	db.Close()
	db = openTestDB(t, dsn)
	after := shareStats(t, db)
	if after.Checkpoints < before.Checkpoints || after.CheckpointTime < before.CheckpointTime {
		t.Errorf("after every connection closed and one opened: %d checkpoints (%v), before %d (%v)",
			after.Checkpoints, after.CheckpointTime, before.Checkpoints, before.CheckpointTime)
	}
}

// In JSON (expvar), durations are seconds, in fields named so.
func TestFileStatsJSON(t *testing.T) {
	b, err := json.Marshal(FileStats{WriteWaitTime: 1500e6, ReadersHeldMax: 2e6, Checkpoints: 3})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m["WriteWaitSeconds"] != 1.5 || m["ReadersHeldMaxSeconds"] != 0.002 || m["Checkpoints"] != 3.0 {
		t.Errorf("JSON %s: want WriteWaitSeconds 1.5, ReadersHeldMaxSeconds 0.002, Checkpoints 3", b)
	}
	if _, ok := m["WriteWaitTime"]; ok {
		t.Errorf("JSON %s has a duration in nanoseconds", b)
	}
}

// A deferred transaction that read, then writes while another connection
// holds the write lock, is refused at once: SQLite cannot let it wait. The
// error keeps SQLite's codes and says why and what to do; FileStats counts
// it apart from the busy timeouts. The same when its snapshot went stale.
func TestUpgradeBusyExplained(t *testing.T) {
	path := filepath.Join(t.TempDir(), "u.db")
	db := openTestDB(t, path+"?_journal_mode=WAL&_busy_timeout=5000")
	testMustExec(t, db, "CREATE TABLE t(v)")
	ctx := context.Background()
	readFirst := func() *sql.Tx {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if err := tx.QueryRow("SELECT count(*) FROM t").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return tx
	}
	check := func(what string, err error, extended ErrNoExtended) {
		t.Helper()
		var e Error
		if !errors.As(err, &e) || !errors.Is(err, ErrBusy) || e.ExtendedCode != extended {
			t.Fatalf("%s: %#v, want ErrBusy (%d)", what, err, extended)
		}
		if !strings.Contains(err.Error(), "database is locked") || !strings.Contains(err.Error(), "_txlock=immediate") {
			t.Errorf("%s: %q does not say why and what to do", what, err)
		}
	}

	// Another connection holds the write lock.
	tx := readFirst()
	other, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Exec("INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	_, err = tx.Exec("INSERT INTO t VALUES (2)")
	check("upgrade while another writes", err, ErrNoExtended(ErrBusy))
	tx.Rollback()
	if err := other.Commit(); err != nil {
		t.Fatal(err)
	}

	// Another connection committed after this one read.
	tx = readFirst()
	testMustExec(t, db, "INSERT INTO t VALUES (3)")
	_, err = tx.Exec("INSERT INTO t VALUES (4)")
	check("upgrade of a stale snapshot", err, ErrBusySnapshot)
	tx.Rollback()

	st := shareStats(t, db)
	if st.UpgradeBusy != 2 || st.BusyTimeouts != 0 {
		t.Errorf("UpgradeBusy %d, BusyTimeouts %d; want 2 and 0", st.UpgradeBusy, st.BusyTimeouts)
	}
}
