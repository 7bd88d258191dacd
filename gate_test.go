//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Tests of gate.go: the write turn is taken only by work that takes the main
// database's write lock, follows that lock wherever it goes (a cleanup, a
// deserialize), and waits no longer than the busy handler in place.

// holdMainWriteLock begins a write transaction on a connection of db that
// has written to main, and returns its commit.
func holdMainWriteLock(t *testing.T, db *sql.DB) func() {
	t.Helper()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("INSERT INTO t(v) VALUES ('held')"); err != nil {
		tx.Rollback()
		t.Fatal(err)
	}
	return func() {
		if err := tx.Commit(); err != nil {
			t.Errorf("commit of the held transaction: %v", err)
		}
	}
}

// While another connection of the process holds the main file's write lock,
// work that does not write main goes on at once, as it does on mattn: TEMP,
// an attached file, journal_mode and wal_checkpoint pragmas, VACUUM INTO, and
// a new connection whose ConnectHook sets the journal mode the file has.
func TestTurnScope(t *testing.T) {
	for _, mode := range []string{"WAL", "DELETE"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			var hooked atomic.Int32
			name := registerTestDriver(&SQLiteDriver{ConnectHook: func(c *SQLiteConn) error {
				hooked.Add(1)
				_, err := c.Exec("PRAGMA journal_mode="+mode, nil)
				return err
			}})
			db, err := sql.Open(name, filepath.Join(dir, "a.db")+"?_journal_mode="+mode+"&_txlock=immediate&_busy_timeout=500")
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			testMustExec(t, db, "CREATE TABLE t(v)")
			ctx := context.Background()
			other, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			testMustExec(t, other, "SELECT 1")
			commit := holdMainWriteLock(t, db)
			for _, q := range []string{
				"CREATE TEMP TABLE scratch(x)",
				"INSERT INTO scratch VALUES (1)",
				"ATTACH '" + filepath.Join(dir, "b.db") + "' AS aux",
				"CREATE TABLE aux.a(x)",
				"INSERT INTO aux.a VALUES (1)",
				"DETACH aux",
				"PRAGMA journal_mode",
				"PRAGMA wal_checkpoint",
				"VACUUM INTO '" + filepath.Join(dir, "copy.db") + "'",
			} {
				if _, err := other.ExecContext(ctx, q); err != nil {
					t.Errorf("%s beside a writer: %v", q, err)
				}
			}
			if mode == "WAL" {
				// A new connection of the pool, whose hook sets WAL again.
				c, err := db.Conn(ctx)
				if err != nil {
					t.Errorf("a new connection beside a writer: %v", err)
				} else {
					c.Close()
				}
			}
			commit()
			if n := testQueryInt(t, db, "SELECT count(*) FROM t"); n != 1 {
				t.Errorf("%d rows, want 1", n)
			}
			copyDB := openTestDB(t, filepath.Join(dir, "copy.db"))
			if n := testQueryInt(t, copyDB, "SELECT count(*) FROM t"); n != 0 {
				t.Errorf("VACUUM INTO's copy has %d rows, want the 0 committed before it", n)
			}
		})
	}
}

// VACUUM INTO (an online backup) reads main and writes another file: the
// application's writers go on while it runs, with a busy timeout far shorter
// than the backup.
func TestTurnVacuumIntoBesideWriters(t *testing.T) {
	dir := t.TempDir()
	db := openTestDB(t, filepath.Join(dir, "a.db")+"?_journal_mode=WAL&_txlock=immediate&_busy_timeout=50")
	db.SetMaxOpenConns(3)
	testMustExec(t, db, "CREATE TABLE t(v)")
	testMustExec(t, db, "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 20000) INSERT INTO t SELECT randomblob(1000) FROM n")
	done := make(chan error, 1)
	go func() {
		_, err := db.Exec("VACUUM INTO '" + filepath.Join(dir, "backup.db") + "'")
		done <- err
	}()
	var during, failed int
	var firstErr error
	for running := true; running; {
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("VACUUM INTO: %v", err)
			}
			running = false
		default:
			if _, err := db.Exec("INSERT INTO t VALUES ('w')"); err != nil {
				failed++
				if firstErr == nil {
					firstErr = err
				}
			}
			during++
			time.Sleep(time.Millisecond)
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d writes during VACUUM INTO failed; first: %v", failed, during, firstErr)
	}
	t.Logf("%d writes during VACUUM INTO", during)
}

// A writing statement's Rows dropped without Close keeps its write
// transaction until its cleanup finalizes it; the cleanup ends the
// transaction, and with it the connection's turn, even when database/sql
// never uses that connection again (its connections kept by a ConnectHook,
// mattn's pattern for online backups).
func TestTurnGivenBackByCleanup(t *testing.T) {
	var mu sync.Mutex
	var kept []*SQLiteConn
	name := registerTestDriver(&SQLiteDriver{ConnectHook: func(c *SQLiteConn) error {
		mu.Lock()
		kept = append(kept, c)
		mu.Unlock()
		return nil
	}})
	db, err := sql.Open(name, filepath.Join(t.TempDir(), "a.db")+"?_journal_mode=WAL&_busy_timeout=2000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// The hook's connections are the program's to close (and Windows
	// removes no file still open).
	defer func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range kept {
			c.Close()
		}
	}()
	testMustExec(t, db, "CREATE TABLE t(id INTEGER PRIMARY KEY, v)")
	ctx := context.Background()
	c1, _ := db.Conn(ctx)
	c2, _ := db.Conn(ctx)
	c1.Close()
	c2.Close()
	func() {
		rows, err := db.Query("INSERT INTO t(v) VALUES ('leaked') RETURNING id")
		if err != nil {
			t.Fatal(err)
		}
		rows.Next() // dropped without Close
	}()
	for range 3 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	for i := range 3 {
		if _, err := db.Exec("INSERT INTO t(v) VALUES ('other')"); err != nil {
			t.Fatalf("write %d after the leaked Rows was collected: %v", i, err)
		}
	}
	if n := testQueryInt(t, db, "SELECT count(*) FROM t"); n != 4 {
		t.Errorf("%d rows, want 4 (the leaked INSERT's row and 3)", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(kept) < 2 {
		t.Errorf("the hook kept %d connections, want 2 or more", len(kept))
	}
}

// Deserialize replaces a file connection's main database with memory: the
// connection leaves the file (no turn, no stats, no WAL bound), works in its
// memory beside the file's other writers, and nothing reads the closed
// file's state (a use after free before: ASan in CI).
func TestTurnDeserializedMain(t *testing.T) {
	dir := t.TempDir()
	mem := openTestDB(t, ":memory:")
	testMustExec(t, mem, "CREATE TABLE m(x)")
	testMustExec(t, mem, "INSERT INTO m VALUES (1), (2)")
	img := serializeMain(t, mem)

	db := openTestDB(t, filepath.Join(dir, "x.db")+"?_journal_mode=WAL&_txlock=immediate&_busy_timeout=300&_wal_bound=65536")
	testMustExec(t, db, "CREATE TABLE t(v)")
	ctx := context.Background()
	a, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := a.Raw(func(dc any) error { return dc.(*SQLiteConn).Deserialize(img, "") }); err != nil {
		t.Fatal(err)
	}
	var st FileStats
	var ok bool
	a.Raw(func(dc any) error { st, ok = dc.(*SQLiteConn).FileStats(); return nil })
	if ok {
		t.Errorf("FileStats of a deserialized main: %+v, want none", st)
	}
	tx, err := b.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("INSERT INTO t VALUES (zeroblob(100000))"); err != nil {
		t.Fatal(err)
	}
	// b holds the file's write lock and turn: a writes its own memory.
	for i := range 200 {
		if _, err := a.ExecContext(ctx, "INSERT INTO m VALUES (?)", i); err != nil {
			t.Fatalf("write %d to the deserialized main beside the file's writer: %v", i, err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := a.QueryRowContext(ctx, "SELECT count(*) FROM m").Scan(&n); err != nil || n != 202 {
		t.Errorf("deserialized main: %d rows, %v; want 202", n, err)
	}
	if got := shareStats(t, db).Connections; got != 2 {
		t.Errorf("FileStats.Connections = %d, want 2 (b and the one Stats takes; a left the file)", got)
	}
}

// serializeMain returns the image of db's main database.
func serializeMain(t *testing.T, db *sql.DB) []byte {
	t.Helper()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var img []byte
	if err := c.Raw(func(dc any) error {
		var err error
		img, err = dc.(*SQLiteConn).Serialize("")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return img
}

// PRAGMA busy_timeout on a connection replaces the driver's busy handler
// with SQLite's own: its writes then wait that long for the file's write
// lock, not the DSN's _busy_timeout, as on mattn. (Also run with the
// libsqlite3 tag in CI.)
func TestTurnPragmaBusyTimeout(t *testing.T) {
	db := openTestDB(t, filepath.Join(t.TempDir(), "x.db")+"?_journal_mode=WAL&_txlock=immediate&_busy_timeout=20000")
	testMustExec(t, db, "CREATE TABLE t(v)")
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	testMustExec(t, c, "PRAGMA busy_timeout = 200")
	commit := holdMainWriteLock(t, db)
	defer commit()
	start := time.Now()
	_, err = c.ExecContext(ctx, "INSERT INTO t VALUES (1)")
	waited := time.Since(start)
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("write beside a writer: %v, want database is locked", err)
	}
	// The DSN's 20 s would end the test long after this.
	if waited > 10*time.Second {
		t.Errorf("waited %v, want about the pragma's 200 ms", waited)
	}
}

// waitQueued waits until n wait for g's turn.
func waitQueued(t *testing.T, g *writeGate, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for g.queued() < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d wait for the turn, want %d", g.queued(), n)
		}
		time.Sleep(time.Millisecond)
	}
}
