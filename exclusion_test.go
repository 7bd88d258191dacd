//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The tests of this file use one connection from several goroutines at
// once, as programs do without knowing it (lifetime.go): each failed before
// the connection's exclusion, with a crash, a hang, corruption or spurious
// errors (issue 22, rows 1-4, and the torture test).

// settle lets the cleanups of what a test dropped run now, so that they do
// not run (and allocate) inside a later test's allocation count.
func settle(t *testing.T) {
	t.Cleanup(func() {
		for range 3 {
			runtime.GC()
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// hookedDriver registers a driver whose ConnectHook keeps every connection
// it opens, as mattn's live-backup example does, under a name of its own.
func hookedDriver(t *testing.T) (name string, conns func() []*SQLiteConn) {
	var mu sync.Mutex
	var kept []*SQLiteConn
	name = "sqlite3_exclusion_" + strconv.FormatInt(time.Now().UnixNano(), 36)
	sql.Register(name, &SQLiteDriver{ConnectHook: func(c *SQLiteConn) error {
		mu.Lock()
		kept = append(kept, c)
		mu.Unlock()
		return nil
	}})
	return name, func() []*SQLiteConn {
		mu.Lock()
		defer mu.Unlock()
		return append([]*SQLiteConn(nil), kept...)
	}
}

func integrityOK(t *testing.T, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) {
	t.Helper()
	var ic string
	if err := q.QueryRowContext(context.Background(), "PRAGMA integrity_check").Scan(&ic); err != nil || ic != "ok" {
		t.Errorf("integrity_check: %q %v", ic, err)
	}
}

// Row 1: a *sql.Stmt queried again on a sql.Conn while its first Rows is
// open re-prepares its SQL (handOver), while statements dropped meanwhile
// are collected on the runtime's cleanup goroutine.
func TestRerunWithOpenRowsWhileCollecting(t *testing.T) {
	settle(t)
	ctx := context.Background()
	db := openTestDB(t, "file:"+filepath.Join(t.TempDir(), "handover.db"))
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "CREATE TABLE t(x); INSERT INTO t VALUES(1),(2),(3)"); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("SELECT x FROM t WHERE x IN (0")
	for i := 1; i < 20000; i++ { // long to prepare again: a wide window for the cleanup
		b.WriteString("," + strconv.Itoa(i))
	}
	b.WriteString(")")
	st, err := conn.PrepareContext(ctx, b.String())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for it := 0; it < 150; it++ {
		rows1, err := st.QueryContext(ctx)
		if err != nil {
			t.Fatal(err)
		}
		rows1.Next()
		conn.Raw(func(dc any) error {
			for i := 0; i < 300; i++ {
				if _, err := dc.(*SQLiteConn).Prepare("SELECT " + strconv.Itoa(i) + " FROM t"); err != nil {
					t.Error(err)
				}
			}
			return nil
		})
		done := make(chan struct{})
		go func() {
			time.Sleep(time.Duration(it%8) * 300 * time.Microsecond)
			runtime.GC()
			close(done)
		}()
		rows2, err := st.QueryContext(ctx)
		if err != nil {
			t.Fatalf("iteration %d: %v", it, err)
		}
		n := 0
		for rows2.Next() {
			n++
		}
		if n != 3 || rows2.Err() != nil {
			t.Fatalf("iteration %d: %d rows, %v", it, n, rows2.Err())
		}
		rows2.Close()
		rows1.Close()
		<-done
	}
	integrityOK(t, conn)
}

// Row 2: DirectStmts used on a sql.Conn while a Tx begun on it times out:
// database/sql rolls the Tx back from a goroutine of its own, beside Step.
func TestDirectStmtBesideTimedOutTx(t *testing.T) {
	settle(t)
	ctx := context.Background()
	db := openTestDB(t, "file:"+filepath.Join(t.TempDir(), "directtx.db")+"?_journal_mode=WAL")
	testMustExec(t, db, "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)")
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for it := 0; it < 200; it++ {
		// An iteration takes a few milliseconds; before the exclusion, some
		// hung, one at 100 % CPU, or crashed.
		start := time.Now()
		txctx, cancel := context.WithTimeout(ctx, time.Duration(200+it%7*100)*time.Microsecond)
		tx, err := conn.BeginTx(txctx, nil)
		for wait := time.Now(); err != nil && strings.Contains(err.Error(), "within a transaction") && time.Since(wait) < 2*time.Second; {
			// database/sql's rollback of the last Tx, whose context ended,
			// marks it done (the Commit below then returns ErrTxDone) before
			// it takes the connection to roll back: this Begin can get there
			// first. The rollback follows at once.
			time.Sleep(time.Millisecond)
			tx, err = conn.BeginTx(txctx, nil)
		}
		if err != nil {
			cancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("begin: %v", err)
			}
			continue
		}
		var ins, sel *DirectStmt
		conn.Raw(func(dc any) error {
			c := dc.(*SQLiteConn)
			if ins, err = c.PrepareDirect("INSERT INTO t(v) VALUES (?)"); err != nil {
				t.Fatal(err)
			}
			if sel, err = c.PrepareDirect("SELECT count(*), sum(length(v)) FROM t"); err != nil {
				t.Fatal(err)
			}
			return nil
		})
		for i := 0; i < 300; i++ {
			if err := ins.Exec("row " + strconv.Itoa(i)); err != nil {
				if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, errTxLost) && !errors.Is(err, sql.ErrTxDone) {
					t.Fatalf("insert: %v", err)
				}
				break
			}
			if ok, err := sel.Step(); err != nil {
				if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, errTxLost) && !errors.Is(err, sql.ErrTxDone) {
					t.Fatalf("select: %v", err)
				}
				break
			} else if !ok {
				t.Fatal("select: no row")
			}
			sel.Reset()
		}
		ins.Finalize()
		sel.Finalize()
		if err := tx.Commit(); err != nil && !errors.Is(err, sql.ErrTxDone) && !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("commit: %v", err)
		}
		cancel()
		if d := time.Since(start); d > 10*time.Second {
			t.Fatalf("iteration %d took %v", it, d)
		}
	}
	integrityOK(t, conn)
}

// Row 3: mattn's online backup from connections captured in a ConnectHook,
// while the pool goes on using the source.
func TestBackupOfCapturedConnInUse(t *testing.T) {
	settle(t)
	name, conns := hookedDriver(t)
	dir := t.TempDir()
	src, err := sql.Open(name, filepath.Join(dir, "src.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	src.SetMaxOpenConns(1)
	testMustExec(t, src, "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)")
	testMustExec(t, src, "INSERT INTO t(v) WITH RECURSIVE k(value) AS (SELECT 1 UNION ALL SELECT value+1 FROM k WHERE value < 1000) SELECT printf('%0100d', value) FROM k")
	dst, err := sql.Open(name, filepath.Join(dir, "dst.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close()
	dst.SetMaxOpenConns(1)
	if err := dst.Ping(); err != nil {
		t.Fatal(err)
	}
	kept := conns()
	srcConn, dstConn := kept[0], kept[1]
	deadline := time.Now().Add(time.Second)
	var wg sync.WaitGroup
	var appErr, bkErr error
	backups := 0
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := 0; time.Now().Before(deadline); i++ {
			if _, err := src.Exec("UPDATE t SET v = ? WHERE id = ?", fmt.Sprintf("%0100d", i), i%1000+1); err != nil {
				appErr = err
				return
			}
			var n int
			if err := src.QueryRow("SELECT count(*) FROM t WHERE v > ''").Scan(&n); err != nil || n != 1000 {
				appErr = fmt.Errorf("count %d: %v", n, err)
				return
			}
		}
	}()
	go func() {
		defer wg.Done()
		for time.Now().Before(deadline) {
			bk, err := dstConn.Backup("main", srcConn, "main")
			if err != nil {
				bkErr = err
				return
			}
			for {
				done, err := bk.Step(8)
				if err != nil {
					bkErr = err
					break
				}
				if done {
					break
				}
			}
			if err := bk.Finish(); err != nil && bkErr == nil {
				bkErr = err
			}
			if bkErr != nil {
				return
			}
			backups++
		}
	}()
	wg.Wait()
	if appErr != nil || bkErr != nil {
		t.Fatalf("application: %v; backup: %v", appErr, bkErr)
	}
	if backups == 0 {
		t.Fatal("no backup completed")
	}
	integrityOK(t, src)
	integrityOK(t, dst)
}

// Two backups between the same two connections in opposite directions, at
// once: each locks both connections, in one order (lockBoth), so neither
// holds one and waits for the other.
func TestBackupsBothWays(t *testing.T) {
	settle(t)
	name, conns := hookedDriver(t)
	dir := t.TempDir()
	var dbs []*sql.DB
	for _, f := range []string{"a.db", "b.db"} {
		db, err := sql.Open(name, filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		db.SetMaxOpenConns(1)
		testMustExec(t, db, "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2), (3)")
		dbs = append(dbs, db)
	}
	kept := conns()
	a, b := kept[0], kept[1]
	done := make(chan error, 2)
	for _, pair := range [][2]*SQLiteConn{{a, b}, {b, a}} {
		go func() {
			for range 300 {
				bk, err := pair[0].Backup("main", pair[1], "main")
				if err != nil {
					done <- err
					return
				}
				if _, err := bk.Step(-1); err != nil {
					done <- err
					return
				}
				if err := bk.Finish(); err != nil {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range 2 {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(60 * time.Second):
			t.Fatal("two backups in opposite directions deadlocked")
		}
	}
	for _, db := range dbs {
		integrityOK(t, db)
	}
}

// Row 4: a DirectStmt kept after Raw returned (misuse, but no crash) and
// stepped while the pool uses its connection: each waits its turn.
func TestDirectStmtKeptPastRaw(t *testing.T) {
	settle(t)
	ctx := context.Background()
	db := openTestDB(t, "file:"+filepath.Join(t.TempDir(), "directpool.db"))
	db.SetMaxOpenConns(1)
	testMustExec(t, db, "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)")
	testMustExec(t, db, "INSERT INTO t(v) WITH RECURSIVE k(value) AS (SELECT 1 UNION ALL SELECT value+1 FROM k WHERE value < 1000) SELECT 'x' || value FROM k")
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ds *DirectStmt
	conn.Raw(func(dc any) error {
		ds, err = dc.(*SQLiteConn).PrepareDirect("SELECT id, v FROM t")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	conn.Close()
	deadline := time.Now().Add(time.Second)
	var wg sync.WaitGroup
	var errA, errB error
	steps := 0
	wg.Add(2)
	go func() {
		defer wg.Done()
		for time.Now().Before(deadline) {
			var n int
			if err := db.QueryRow("SELECT count(*) FROM t WHERE v LIKE 'x1%'").Scan(&n); err != nil || n != 112 {
				errA = fmt.Errorf("count %d: %v", n, err)
				return
			}
			if _, err := db.Exec("UPDATE t SET v = v WHERE id = 1"); err != nil {
				errA = err
				return
			}
		}
	}()
	go func() {
		defer wg.Done()
		id := int64(0)
		for time.Now().Before(deadline) {
			row, err := ds.Step()
			if err != nil {
				errB = err
				return
			}
			steps++
			if !row {
				if id != 1000 {
					errB = fmt.Errorf("the scan ended after id %d", id)
					return
				}
				id = 0
				continue
			}
			if id++; ds.ColumnInt64(0) != id || ds.ColumnText(1) != "x"+strconv.FormatInt(id, 10) {
				errB = fmt.Errorf("row %d: %d %q", id, ds.ColumnInt64(0), ds.ColumnText(1))
				return
			}
		}
	}()
	wg.Wait()
	if errA != nil || errB != nil {
		t.Fatalf("database/sql: %v; DirectStmt: %v", errA, errB)
	}
	if steps == 0 {
		t.Fatal("the DirectStmt never stepped")
	}
	if err := ds.Finalize(); err != nil {
		t.Fatal(err)
	}
	integrityOK(t, db)
}

// The torture test: on a few connections, goroutines leak statements and
// rows, run the collector, run prepared statements again with their Rows
// open, time out transactions, back up a captured connection and step
// DirectStmts, all at once. Every error must be one the operation can give
// (a context's end, a busy database); at the end nothing is lost and both
// databases pass integrity_check. EXCLUSION_TORTURE_SECONDS sets its length
// (CI's reliability step runs it longer).
func TestExclusionTorture(t *testing.T) {
	settle(t)
	secs := 2.0
	if s := os.Getenv("EXCLUSION_TORTURE_SECONDS"); s != "" {
		secs, _ = strconv.ParseFloat(s, 64)
	}
	if testing.Short() {
		secs = 0.5
	}
	name, conns := hookedDriver(t)
	dir := t.TempDir()
	db, err := sql.Open(name, "file:"+filepath.Join(dir, "torture.db")+"?_journal_mode=WAL&_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(3)
	db.SetMaxIdleConns(3) // the pool keeps the connection the backup captured (the default keeps 2 idle)
	testMustExec(t, db, "CREATE TABLE t(id INTEGER PRIMARY KEY, g INTEGER, v TEXT)")
	testMustExec(t, db, "INSERT INTO t(g, v) WITH RECURSIVE k(value) AS (SELECT 1 UNION ALL SELECT value+1 FROM k WHERE value < 200) SELECT value % 10, 'seed' FROM k")
	bdb, err := sql.Open(name, filepath.Join(dir, "backup.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	bdb.SetMaxOpenConns(1)
	if err := bdb.Ping(); err != nil {
		t.Fatal(err)
	}
	// Open the pool's connections, so that the backup can capture one.
	var held []*sql.Conn
	for range 3 {
		c, err := db.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	for _, c := range held {
		c.Close()
	}
	var srcConn, dstConn *SQLiteConn
	for _, c := range conns() {
		if strings.HasSuffix(c.GetFilename("main"), "backup.db") {
			dstConn = c
		} else if srcConn == nil {
			srcConn = c
		}
	}
	if srcConn == nil || dstConn == nil {
		t.Fatal("connections not captured")
	}

	deadline := time.Now().Add(time.Duration(secs * float64(time.Second)))
	var txs sync.Map // transaction number -> whether its Commit succeeded
	var txNum atomic.Int64
	var failures sync.Map // unexpected errors, by text
	fail := func(where string, err error) {
		if err == nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
			errors.Is(err, sql.ErrTxDone) || errors.Is(err, errTxLost) {
			return
		}
		failures.LoadOrStore(where+": "+err.Error(), true)
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	worker := func(f func(i int)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(deadline); i++ {
				f(i)
			}
		}()
	}
	// Leaks statements and Rows on the pool's connections (through Raw: a
	// *sql.Rows leaked keeps its connection from the pool for ever), and
	// collects: their cleanups run while other goroutines use those
	// connections.
	worker(func(i int) {
		conn, err := db.Conn(ctx)
		if err != nil {
			fail("conn", err)
			return
		}
		defer conn.Close()
		conn.Raw(func(dc any) error {
			st, err := dc.(*SQLiteConn).Prepare("SELECT id, v FROM t WHERE g = " + strconv.Itoa(i%10))
			if err != nil {
				fail("leak prepare", err)
				return nil
			}
			if i%2 == 0 {
				rows, err := st.(*SQLiteStmt).QueryContext(ctx, nil)
				fail("leak query", err)
				if err == nil {
					fail("leak next", rows.Next(make([]driver.Value, 2)))
				}
			}
			return nil
		})
		if i%5 == 0 {
			runtime.GC()
		}
	})
	// Runs a prepared statement again while its Rows are open, on a sql.Conn.
	worker(func(i int) {
		conn, err := db.Conn(ctx)
		if err != nil {
			fail("conn", err)
			return
		}
		defer conn.Close()
		st, err := conn.PrepareContext(ctx, "SELECT id FROM t WHERE g = ? ORDER BY id")
		if err != nil {
			fail("prepare", err)
			return
		}
		defer st.Close()
		r1, err := st.QueryContext(ctx, i%10)
		if err != nil {
			fail("query 1", err)
			return
		}
		r1.Next()
		r2, err := st.QueryContext(ctx, (i+1)%10)
		if err != nil {
			fail("query 2", err)
		} else {
			for r2.Next() {
			}
			fail("rows 2", r2.Err())
			r2.Close()
		}
		r1.Close()
	})
	// Transactions that time out while DirectStmts write in them; those that
	// commit count their rows.
	worker(func(i int) {
		conn, err := db.Conn(ctx)
		if err != nil {
			fail("conn", err)
			return
		}
		defer conn.Close()
		txctx, cancel := context.WithTimeout(ctx, time.Duration(100+i%9*150)*time.Microsecond)
		defer cancel()
		tx, err := conn.BeginTx(txctx, nil)
		if err != nil {
			fail("begin", err)
			return
		}
		n := 0
		num := txNum.Add(1)
		tag := "tx" + strconv.FormatInt(num, 10)
		conn.Raw(func(dc any) error {
			ins, err := dc.(*SQLiteConn).PrepareDirect("INSERT INTO t(g, v) VALUES (?, ?)")
			if err != nil {
				fail("prepare direct", err)
				return nil
			}
			defer ins.Finalize()
			for k := 0; k < 20; k++ {
				if err := ins.Exec(k%10, tag); err != nil {
					// A leaked Rows of this connection keeps an old
					// snapshot: its write transaction cannot begin
					// (SQLITE_BUSY_SNAPSHOT), as SQLite says.
					if !errors.Is(err, ErrBusy) {
						fail("direct insert", err)
					}
					return nil
				}
				n++
			}
			return nil
		})
		err = tx.Commit()
		txs.Store(tag, txOutcome{err == nil, n})
		fail("commit", err)
	})
	// Backs up a captured connection of the pool.
	worker(func(int) {
		bk, err := dstConn.Backup("main", srcConn, "main")
		if err != nil {
			fail("backup init", err)
			return
		}
		for {
			done, err := bk.Step(16)
			if err != nil {
				fail("backup step", err)
				break
			}
			if done {
				break
			}
		}
		fail("backup finish", bk.Finish())
	})
	wg.Wait()
	failures.Range(func(k, _ any) bool {
		t.Error(k)
		return true
	})
	// A committed transaction has all the rows it inserted; one whose Commit
	// failed none, or all of them when database/sql had ended it before its
	// DirectStmt was prepared (the statement then ran in autocommit mode).
	// Counted on a connection of its own: one of the pool's may still hold a
	// leaked Rows that no collection has reached, and with it a read
	// transaction begun before the last commits.
	check, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "torture.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer check.Close()
	rows, err := check.Query("SELECT v, count(*) FROM t WHERE v LIKE 'tx%' GROUP BY v")
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for rows.Next() {
		var v string
		var n int
		if err := rows.Scan(&v, &n); err != nil {
			t.Fatal(err)
		}
		counts[v] = n
	}
	rows.Close()
	ok := 0
	txs.Range(func(k, v any) bool {
		n, o := counts[k.(string)], v.(txOutcome)
		if o.committed {
			ok++
		}
		if o.committed && n != o.inserted || !o.committed && n != 0 && n != o.inserted {
			t.Errorf("transaction %s (committed: %v, %d rows inserted): %d rows", k, o.committed, o.inserted, n)
		}
		return true
	})
	t.Logf("%.1f s: %d transactions committed of %d", secs, ok, txNum.Load())
	integrityOK(t, db)
	integrityOK(t, bdb)
}

// txOutcome is what a transaction of the torture test did.
type txOutcome struct {
	committed bool
	inserted  int
}
