//go:build cgo

package sqlite3

// Load: many goroutines writing and reading one WAL database at once, in the
// two configurations the README recommends. Every operation must succeed (no
// "database is locked"), and the final counts must be exact. Run under -race
// as well:
//
//	go test -race -run 'TestConcurrency' .

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
)

// concurrencyOps returns the transactions per writer and reads per reader.
func concurrencyOps() (writes, reads int) {
	if testing.Short() {
		return 50, 100
	}
	return 400, 800
}

// concurrencySchema creates the tables both tests use: items, and a counter
// kept equal to the number of items by every transaction.
const concurrencySchema = `CREATE TABLE items(id INTEGER PRIMARY KEY, writer INTEGER NOT NULL, seq INTEGER NOT NULL, payload TEXT NOT NULL, UNIQUE(writer, seq));
	CREATE TABLE counter(id INTEGER PRIMARY KEY CHECK (id = 1), n INTEGER NOT NULL);
	INSERT INTO counter VALUES(1, 0)`

// concurrencyWrite runs one writer transaction on db: insert an item, bump the
// counter, check the writer's own rows from inside the transaction.
func concurrencyWrite(db *sql.DB, w, seq int) error {
	tx, err := db.BeginTx(context.Background(), nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec("INSERT INTO items(writer, seq, payload) VALUES(?, ?, ?)", w, seq, fmt.Sprintf("w%d-s%d", w, seq)); err != nil {
		return fmt.Errorf("insert: %w", err)
	}
	res, err := tx.Exec("UPDATE counter SET n = n + 1 WHERE id = 1")
	if err != nil {
		return fmt.Errorf("update: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("update changed %d rows", n)
	}
	var mine int
	if err := tx.QueryRow("SELECT count(*) FROM items WHERE writer = ?", w).Scan(&mine); err != nil {
		return fmt.Errorf("count: %w", err)
	}
	if mine != seq+1 {
		return fmt.Errorf("writer %d sees %d of its rows inside its transaction, want %d", w, mine, seq+1)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// concurrencyRead reads one consistent snapshot, in one of three ways, and
// checks it: the counter equals the number of items, and never goes down.
// With readOnlyTx, the read transaction is BeginTx(ReadOnly: true);
// otherwise a deferred BEGIN on a dedicated connection.
func concurrencyRead(db *sql.DB, stmt *sql.Stmt, readOnlyTx bool, i int, last *int64) error {
	var items, counter int64
	switch i % 3 {
	case 0: // one statement
		if err := db.QueryRow("SELECT (SELECT count(*) FROM items), (SELECT n FROM counter)").Scan(&items, &counter); err != nil {
			return err
		}
	case 1: // a read transaction: two statements, one snapshot
		if err := concurrencySnapshot(db, readOnlyTx, &items, &counter); err != nil {
			return err
		}
	case 2: // a prepared statement, and a scan over rows
		if err := stmt.QueryRow().Scan(&counter); err != nil {
			return err
		}
		rows, err := db.Query("SELECT writer, seq FROM items ORDER BY id DESC LIMIT 50")
		if err != nil {
			return err
		}
		for rows.Next() {
			var w, s int
			if err := rows.Scan(&w, &s); err != nil {
				rows.Close()
				return err
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows.Close()
		items = counter // two snapshots here: only the counter is checked
	}
	if items != counter {
		return fmt.Errorf("inconsistent snapshot: %d items, counter %d", items, counter)
	}
	if counter < *last {
		return fmt.Errorf("counter went back from %d to %d", *last, counter)
	}
	*last = counter
	return nil
}

// concurrencySnapshot reads the item count and the counter in one read
// transaction.
func concurrencySnapshot(db *sql.DB, readOnlyTx bool, items, counter *int64) error {
	ctx := context.Background()
	if readOnlyTx {
		tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			return fmt.Errorf("begin read-only: %w", err)
		}
		err = tx.QueryRow("SELECT count(*) FROM items").Scan(items)
		if err == nil {
			err = tx.QueryRow("SELECT n FROM counter").Scan(counter)
		}
		if rerr := tx.Rollback(); err == nil {
			err = rerr
		}
		return err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	err = conn.QueryRowContext(ctx, "SELECT count(*) FROM items").Scan(items)
	if err == nil {
		err = conn.QueryRowContext(ctx, "SELECT n FROM counter").Scan(counter)
	}
	if _, cerr := conn.ExecContext(ctx, "COMMIT"); err == nil {
		err = cerr
	}
	return err
}

// concurrencyCheckErrs fails the test for every error, calling out any
// "database is locked" (SQLITE_BUSY) by name.
func concurrencyCheckErrs(t *testing.T, errc chan error) {
	t.Helper()
	close(errc)
	busy := 0
	for err := range errc {
		if errors.Is(err, ErrBusy) || errors.Is(err, ErrLocked) {
			busy++
		}
		t.Error(err)
	}
	if busy > 0 {
		t.Errorf("%d operations failed with SQLITE_BUSY/SQLITE_LOCKED", busy)
	}
}

// concurrencyCheckFinal checks the exact final state: every transaction of
// every writer committed once.
func concurrencyCheckFinal(t *testing.T, db *sql.DB, writers, writes int) {
	t.Helper()
	var items, counter, distinct, maxSeq int64
	err := db.QueryRow(`SELECT (SELECT count(*) FROM items), (SELECT n FROM counter),
		(SELECT count(DISTINCT writer || '/' || seq) FROM items), (SELECT max(seq) FROM items)`).Scan(&items, &counter, &distinct, &maxSeq)
	if err != nil {
		t.Fatal(err)
	}
	want := int64(writers * writes)
	if items != want || counter != want || distinct != want || maxSeq != int64(writes-1) {
		t.Fatalf("final state: %d items, counter %d, %d distinct, max seq %d; want %d, %d, %d, %d",
			items, counter, distinct, maxSeq, want, want, want, writes-1)
	}
	var check string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q, %v", check, err)
	}
}

// TestConcurrencySharedPool: one *sql.DB (so one pool, up to 16 connections)
// with _txlock=immediate and a busy timeout, 8 writers and 8 readers.
func TestConcurrencySharedPool(t *testing.T) {
	const writers, readers = 8, 8
	writes, reads := concurrencyOps()
	path := filepath.Join(t.TempDir(), "load.db")
	db := openTestDB(t, path+"?_journal_mode=WAL&_txlock=immediate&_busy_timeout=5000")
	testMustExec(t, db, concurrencySchema)
	if mode := testQueryString(t, db, "PRAGMA journal_mode"); mode != "wal" {
		t.Fatalf("journal_mode = %q, want wal", mode)
	}
	stmt, err := db.Prepare("SELECT n FROM counter")
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close()

	errc := make(chan error, writers+readers)
	var wg sync.WaitGroup
	var readOps atomic.Int64
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for seq := 0; seq < writes; seq++ {
				if err := concurrencyWrite(db, w, seq); err != nil {
					errc <- fmt.Errorf("writer %d, transaction %d: %w", w, seq, err)
					return
				}
			}
		}(w)
	}
	for r := 0; r < readers; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			var last int64
			for i := 0; i < reads; i++ {
				// Not ReadOnly transactions: with _txlock=immediate they fail
				// (TestConcurrencyReadOnlyTxImmediate).
				if err := concurrencyRead(db, stmt, false, i+r, &last); err != nil {
					errc <- fmt.Errorf("reader %d, read %d: %w", r, i, err)
					return
				}
				readOps.Add(1)
			}
		}(r)
	}
	wg.Wait()
	concurrencyCheckErrs(t, errc)
	concurrencyCheckFinal(t, db, writers, writes)
	t.Logf("%d write transactions and %d reads by %d writers and %d readers on one pool (%d connections open at the end)",
		writers*writes, readOps.Load(), writers, readers, db.Stats().OpenConnections)
}

// TestConcurrencyReadWritePools is the README's pattern for servers: a
// read-only pool (mode=ro, many connections) beside a writer pool of a single
// connection, which database/sql hands to one writer at a time.
func TestConcurrencyReadWritePools(t *testing.T) {
	const writers, readers = 4, 8
	writes, reads := concurrencyOps()
	path := filepath.Join(t.TempDir(), "pools.db")
	wdb := openTestDB(t, "file:"+path+"?_journal_mode=WAL&_txlock=immediate&_busy_timeout=5000")
	wdb.SetMaxOpenConns(1)
	testMustExec(t, wdb, concurrencySchema)
	rdb := openTestDB(t, "file:"+path+"?mode=ro&_busy_timeout=5000")
	rdb.SetMaxOpenConns(readers)
	rdb.SetMaxIdleConns(readers)
	if mode := testQueryString(t, rdb, "PRAGMA journal_mode"); mode != "wal" {
		t.Fatalf("journal_mode seen by the read-only pool = %q, want wal", mode)
	}
	if _, err := rdb.Exec("INSERT INTO items(writer, seq, payload) VALUES(-1, -1, 'x')"); !errors.Is(err, ErrReadonly) {
		t.Fatalf("write through the read-only pool: %v, want ErrReadonly", err)
	}
	stmt, err := rdb.Prepare("SELECT n FROM counter")
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close()

	errc := make(chan error, writers+readers)
	var wg sync.WaitGroup
	var readOps atomic.Int64
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for seq := 0; seq < writes; seq++ {
				if err := concurrencyWrite(wdb, w, seq); err != nil {
					errc <- fmt.Errorf("writer %d, transaction %d: %w", w, seq, err)
					return
				}
			}
		}(w)
	}
	for r := 0; r < readers; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			var last int64
			for i := 0; i < reads; i++ {
				if err := concurrencyRead(rdb, stmt, r%2 == 0, i+r, &last); err != nil {
					errc <- fmt.Errorf("reader %d, read %d: %w", r, i, err)
					return
				}
				readOps.Add(1)
			}
		}(r)
	}
	wg.Wait()
	concurrencyCheckErrs(t, errc)
	if n := wdb.Stats().OpenConnections; n != 1 {
		t.Errorf("writer pool has %d connections open, want 1", n)
	}
	concurrencyCheckFinal(t, wdb, writers, writes)
	concurrencyCheckFinal(t, rdb, writers, writes) // the read-only pool sees every commit
	t.Logf("%d write transactions through 1 connection and %d reads through %d read-only connections",
		writers*writes, readOps.Load(), rdb.Stats().OpenConnections)
}

// TestConcurrencyReadOnlyTxImmediate: a ReadOnly transaction on a pool opened
// with _txlock=immediate, the README's setting for writers. Readers of such a
// pool need BeginTx(ReadOnly: true) to work.
func TestConcurrencyReadOnlyTxImmediate(t *testing.T) {
	for _, txlock := range []string{"deferred", "immediate", "exclusive"} {
		t.Run(txlock, func(t *testing.T) {
			db := openTestDB(t, testTempPath(t)+"?_journal_mode=WAL&_txlock="+txlock)
			testMustExec(t, db, "CREATE TABLE t(x); INSERT INTO t VALUES(1)")
			tx, err := db.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true})
			if err != nil {
				// The driver sets PRAGMA query_only and then runs BEGIN
				// IMMEDIATE (or EXCLUSIVE), which asks for the write lock.
				t.Fatalf("BeginTx(ReadOnly) with _txlock=%s: %v", txlock, err)
			}
			defer tx.Rollback()
			var x int
			if err := tx.QueryRow("SELECT x FROM t").Scan(&x); err != nil || x != 1 {
				t.Fatalf("read in the read-only transaction: %d, %v", x, err)
			}
			if _, err := tx.Exec("INSERT INTO t VALUES(2)"); !errors.Is(err, ErrReadonly) {
				t.Errorf("write in the read-only transaction: %v, want ErrReadonly", err)
			}
		})
	}
}
