//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// SQLite's auto-checkpoint runs after the write turn is given back
// (bridge_checkpoint.c), and still runs: for autocommit writes, for COMMIT
// and for the RELEASE that ends a transaction, once the WAL holds
// wal_autocheckpoint frames, on a connection alone on its file and on one
// of many. With the auto-checkpoint off, the same writes leave the database
// file as it was (the control: pages reach it only through a checkpoint).
func TestAutoCheckpointRuns(t *testing.T) {
	writes := map[string]func(db *sql.DB) error{
		"autocommit": func(db *sql.DB) error {
			for i := 0; i < 60; i++ {
				if _, err := db.Exec("INSERT INTO t VALUES (?, randomblob(500))", i); err != nil {
					return err
				}
			}
			return nil
		},
		"commit": func(db *sql.DB) error {
			tx, err := db.Begin()
			if err != nil {
				return err
			}
			for i := 0; i < 60; i++ {
				if _, err := tx.Exec("INSERT INTO t VALUES (?, randomblob(500))", i); err != nil {
					tx.Rollback()
					return err
				}
			}
			return tx.Commit()
		},
		"release": func(db *sql.DB) error {
			c, err := db.Conn(context.Background())
			if err != nil {
				return err
			}
			defer c.Close()
			for _, q := range []string{"SAVEPOINT a", "INSERT INTO t WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 60) SELECT i, randomblob(500) FROM n", "RELEASE a"} {
				if _, err := c.ExecContext(context.Background(), q); err != nil {
					return err
				}
			}
			return nil
		},
	}
	for name, write := range writes {
		for _, others := range []int{0, 1} {
			for _, every := range []int{10, 0} {
				t.Run(fmt.Sprintf("%s/others=%d/autocheckpoint=%d", name, others, every), func(t *testing.T) {
					path := filepath.Join(t.TempDir(), "c.db")
					db := openTestDB(t, fmt.Sprintf("%s?_journal_mode=WAL&_pragma=wal_autocheckpoint(%d)", path, every))
					testMustExec(t, db, "CREATE TABLE t(k, v)")
					for i := 0; i < others; i++ {
						// Another connection on the file: writes take the turn.
						if err := testConn(t, db).PingContext(context.Background()); err != nil {
							t.Fatal(err)
						}
					}
					before := fileSize(t, path)
					if err := write(db); err != nil {
						t.Fatal(err)
					}
					after := fileSize(t, path)
					if every > 0 && after <= before {
						t.Errorf("the database file has %d bytes after the writes, as before: no checkpoint ran", after)
					}
					if every == 0 && after != before {
						t.Errorf("the database file went from %d to %d bytes without checkpoints", before, after)
					}
				})
			}
		}
	}
}

// Nothing can tell that the default WAL hook is set aside during a step:
// SQL that a function runs on its own connection inside a write reads
// PRAGMA wal_autocheckpoint as set, and one that sets it inside a write
// keeps what it set.
func TestAutoCheckpointHookUnseen(t *testing.T) {
	c := rawConn(t, filepath.Join(t.TempDir(), "c.db")+"?_journal_mode=WAL&_pragma=wal_autocheckpoint(50)")
	ctx := context.Background()
	if _, err := c.ExecContext(ctx, "CREATE TABLE t(v)", nil); err != nil {
		t.Fatal(err)
	}
	pragma := func(q string) (int64, error) {
		rows, err := c.QueryContext(ctx, q, nil)
		if err != nil {
			return 0, err
		}
		defer rows.Close()
		dest := make([]driver.Value, 1)
		if err := rows.Next(dest); err != nil {
			return 0, err
		}
		n, _ := dest[0].(int64)
		return n, nil
	}
	if err := c.RegisterFunc("walpages", func(set int64) (int64, error) {
		if set > 0 {
			return pragma(fmt.Sprintf("PRAGMA wal_autocheckpoint = %d", set))
		}
		return pragma("PRAGMA wal_autocheckpoint")
	}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(ctx, "INSERT INTO t VALUES (walpages(0))", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(ctx, "INSERT INTO t VALUES (walpages(7))", nil); err != nil {
		t.Fatal(err)
	}
	rows, err := c.QueryContext(ctx, "SELECT group_concat(v) FROM t", nil)
	if err != nil {
		t.Fatal(err)
	}
	dest := make([]driver.Value, 1)
	if err := rows.Next(dest); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if got := fmt.Sprint(dest[0]); got != "50,7" {
		t.Errorf("PRAGMA wal_autocheckpoint inside the writes read %s, want 50,7", got)
	}
	if n, err := pragma("PRAGMA wal_autocheckpoint"); err != nil || n != 7 {
		t.Errorf("PRAGMA wal_autocheckpoint after the writes: %d (%v), want 7, as set inside the last one", n, err)
	}
}

// A checkpoint left due by a commit waits while the same operation opened
// a transaction after it (a script's BEGIN: SQLite would refuse it), and
// runs when that transaction ends, a ROLLBACK too (which no WAL hook
// follows).
func TestAutoCheckpointAfterScriptTransaction(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.db")
	c := rawConn(t, path+"?_journal_mode=WAL&_pragma=wal_autocheckpoint(5)")
	ctx := context.Background()
	if _, err := c.ExecContext(ctx, "CREATE TABLE t(k, v)", nil); err != nil {
		t.Fatal(err)
	}
	before := fileSize(t, path)
	if _, err := c.ExecContext(ctx, "INSERT INTO t WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < 60) SELECT i, randomblob(500) FROM n; BEGIN; INSERT INTO t VALUES (0, 0)", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(ctx, "ROLLBACK", nil); err != nil {
		t.Fatal(err)
	}
	if got := fileSize(t, path); got <= before {
		t.Errorf("the database file has %d bytes after the transaction, as before: the checkpoint left due did not run", got)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// While a connection runs its auto-checkpoint, another connection's write
// on the file goes through: the checkpoint no longer holds the write turn.
// (Inside the commit's step, it held every writer of the process until it
// was done.)
func TestAutoCheckpointLetsWritersOn(t *testing.T) {
	if !bundledSQLite {
		t.Skip("against the system SQLite the WAL hook cannot be set aside: the checkpoint runs in the step")
	}
	db := openTestDB(t, filepath.Join(t.TempDir(), "c.db")+"?_journal_mode=WAL&_busy_timeout=60000&_pragma=wal_autocheckpoint(10)")
	testMustExec(t, db, "CREATE TABLE t(k, v)")
	ctx := context.Background()
	a, b := testConn(t, db), testConn(t, db)
	if _, err := b.ExecContext(ctx, "INSERT INTO t VALUES (-1, 0)"); err != nil {
		t.Fatal(err)
	}
	var once bool
	var during error
	beforeAutoCheckpoint = func(bool) {
		if once {
			return // b's own checkpoint, if its write leaves one due
		}
		once = true
		// On a's goroutine, a's operation not yet returned: with a still
		// holding the turn, b's write would wait for it until its context
		// ends (well inside the busy timeout, after which it would go on
		// without the turn).
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, during = b.ExecContext(ctx, "INSERT INTO t VALUES (-2, 0)")
	}
	t.Cleanup(func() { beforeAutoCheckpoint = nil })
	for i := 0; i < 40 && !once; i++ {
		if _, err := a.ExecContext(ctx, "INSERT INTO t VALUES (?, randomblob(2000))", i); err != nil {
			t.Fatal(err)
		}
	}
	if !once {
		t.Fatal("no auto-checkpoint ran after 40 commits of 2 KB with wal_autocheckpoint(10)")
	}
	if during != nil {
		t.Errorf("another connection's write during the auto-checkpoint: %v", during)
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM t WHERE k = -2").Scan(&n); err != nil || n != 1 {
		t.Errorf("the write made during the checkpoint: %d rows (%v), want 1", n, err)
	}
}

// With writers that go on while one connection checkpoints, each PASSIVE
// checkpoint copies only what was there when it began, and the WAL, which
// restarts only when a write begins with all of it copied, would grow
// with no end but the WAL bound (turned off here). Past twice
// wal_autocheckpoint frames the checkpoint runs before the turn is given
// back, and the WAL stays within that size (no reader here holds it back).
func TestAutoCheckpointKeepsWALSmall(t *testing.T) {
	if !bundledSQLite {
		t.Skip("against the system SQLite the checkpoint runs in the step")
	}
	const every, writers, writes = 100, 8, 1000
	path := filepath.Join(t.TempDir(), "c.db")
	db := openTestDB(t, fmt.Sprintf("%s?_journal_mode=WAL&_busy_timeout=60000&_wal_bound=0&_pragma=wal_autocheckpoint(%d)", path, every))
	testMustExec(t, db, "CREATE TABLE t(k INTEGER PRIMARY KEY, v)")
	// Every connection open before the first write: opening one reads the
	// file, and a read transaction holds back any checkpoint.
	conns := make([]*sql.Conn, writers)
	for w := range conns {
		conns[w] = testConn(t, db)
		if err := conns[w].PingContext(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	errs := make(chan error, writers)
	for _, c := range conns {
		go func() {
			for i := 0; i < writes; i++ {
				if _, err := c.ExecContext(context.Background(), "INSERT INTO t(v) VALUES (randomblob(500))"); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for w := 0; w < writers; w++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	var pageSize int64
	if err := db.QueryRow("PRAGMA page_size").Scan(&pageSize); err != nil {
		t.Fatal(err)
	}
	frames := (fileSize(t, path+"-wal") - 32) / (pageSize + 24)
	t.Logf("the WAL reached %d frames with wal_autocheckpoint(%d) after %d one-row writes", frames, every, writers*writes)
	// Twice the threshold and the last commit's frames (without the rule:
	// a thousand and more).
	if frames > 2*every+10 {
		t.Errorf("the WAL reached %d frames, past 2 × wal_autocheckpoint (%d)", frames, every)
	}
}
