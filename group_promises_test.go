//go:build cgo && !libsqlite3

package sqlite3

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Tests of group commit's rule: a write runs on another connection only
// when nothing its caller can observe differs (bridge_group.c). Each test
// does what a user of the switch does with what SQLite keeps per
// connection, and asserts what the same program gets without the switch.

// queueBehind queues lead, then write, each on its own goroutine, for the
// turn of db's file while hold holds it, then commits hold: lead gets the
// turn and runs write in its group, when the predicate lets it. It returns
// their errors.
func queueBehind(t *testing.T, db *sql.DB, hold *sql.Tx, lead, write func() error) (leadErr, writeErr error) {
	t.Helper()
	groupsRunLong(t)
	g := gateOf(t, db)
	n := g.queued()
	res := [2]chan error{make(chan error, 1), make(chan error, 1)}
	for i, f := range []func() error{lead, write} {
		go func() { res[i] <- f() }()
		waitQueued(t, g, n+i+1)
	}
	if err := hold.Commit(); err != nil {
		t.Fatalf("the commit of the transaction that held the turn: %v", err)
	}
	return <-res[0], <-res[1]
}

// threeConns returns three connections of db: x to hold the turn, h to
// lead a group, a whose write h may run.
func threeConns(t *testing.T, db *sql.DB) (x, h, a *sql.Conn) {
	t.Helper()
	var cs [3]*sql.Conn
	for i := range cs {
		c, err := db.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		cs[i] = c
	}
	return cs[0], cs[1], cs[2]
}

// last_insert_rowid(), changes() and total_changes() read on a connection
// after its write ran in another connection's group, and a write that
// reads last_insert_rowid() itself, read what they read without the switch;
// LastInsertId of an UPDATE is the connection's last insert; the group's
// connection keeps its own.
func TestGroupCommitConnectionCounters(t *testing.T) {
	db := openGrouped(t, filepath.Join(t.TempDir(), "g.db"), "")
	testMustExec(t, db, "CREATE TABLE parent(id INTEGER PRIMARY KEY, who TEXT)")
	testMustExec(t, db, "CREATE TABLE child(id INTEGER PRIMARY KEY, pid INT, who TEXT)")
	ctx := context.Background()
	x, h, a := threeConns(t, db)
	testMustExec(t, h, "INSERT INTO parent(who) VALUES ('h')") // 1

	hold, err := x.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	g0, u0 := groupCounts()
	var res sql.Result
	leadErr, err := queueBehind(t, db, hold,
		func() error { _, err := h.ExecContext(ctx, "INSERT INTO parent(who) VALUES ('h2')"); return err },       // 2
		func() (err error) { res, err = a.ExecContext(ctx, "INSERT INTO parent(who) VALUES ('a')"); return err }, // 3
	)
	if leadErr != nil || err != nil {
		t.Fatal(leadErr, err)
	}
	if g1, u1 := groupCounts(); g1-g0 != 1 || u1-u0 != 2 {
		t.Fatalf("%d groups of %d writes, want the two writes in one", g1-g0, u1-u0)
	}
	id, _ := res.LastInsertId()
	var rowid, changes, total int64
	if err := a.QueryRowContext(ctx, "SELECT last_insert_rowid(), changes(), total_changes()").Scan(&rowid, &changes, &total); err != nil {
		t.Fatal(err)
	}
	if id != 3 || rowid != 3 || changes != 1 || total != 1 {
		t.Errorf("A after its grouped insert: LastInsertId %d, last_insert_rowid() %d, changes() %d, total_changes() %d; want 3, 3, 1, 1", id, rowid, changes, total)
	}
	if err := h.QueryRowContext(ctx, "SELECT last_insert_rowid(), changes(), total_changes()").Scan(&rowid, &changes, &total); err != nil || rowid != 2 || changes != 1 || total != 2 {
		t.Errorf("H after its group: last_insert_rowid() %d, changes() %d, total_changes() %d (%v), want its own 2, 1, 2", rowid, changes, total, err)
	}

	// An UPDATE's LastInsertId is the connection's last insert, not H's.
	hold, err = x.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	leadErr, err = queueBehind(t, db, hold,
		func() error { _, err := h.ExecContext(ctx, "INSERT INTO parent(who) VALUES ('h3')"); return err }, // 4
		func() (err error) {
			res, err = a.ExecContext(ctx, "UPDATE parent SET who = 'a!' WHERE who = 'a'")
			return err
		},
	)
	if leadErr != nil || err != nil {
		t.Fatal(leadErr, err)
	}
	if id, _ := res.LastInsertId(); id != 3 {
		t.Errorf("A's UPDATE: LastInsertId %d, want A's last insert 3", id)
	}

	// Parent and child from many sessions: each child refers to its own
	// session's parent.
	const sessions, each = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, sessions)
	for s := 0; s < sessions; s++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := db.Conn(ctx)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			who := fmt.Sprint("s", s)
			for i := 0; i < each; i++ {
				if _, err := c.ExecContext(ctx, "INSERT INTO parent(who) VALUES (?)", who); err != nil {
					errs <- err
					return
				}
				if _, err := c.ExecContext(ctx, "INSERT INTO child(pid, who) VALUES (last_insert_rowid(), ?)", who); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var wrong int
	if err := db.QueryRow("SELECT count(*) FROM child JOIN parent ON parent.id = child.pid WHERE parent.who <> child.who").Scan(&wrong); err != nil || wrong != 0 {
		t.Errorf("%d of %d children refer to another session's parent (%v)", wrong, sessions*each, err)
	}
}

// Hooks, functions and collations that ConnectHook sets up differ per
// connection as its code says: a connection with an update, commit or
// rollback hook never runs or hands over a grouped write (change tracking
// stays exact, failed writes included), and a write that calls a function
// or collation the connection added runs on that connection.
func TestGroupCommitConnectHookState(t *testing.T) {
	var opened atomic.Int32
	name := registerTestDriver(&SQLiteDriver{ConnectHook: func(c *SQLiteConn) error {
		i := opened.Add(1)
		tenant := string(rune('a' + i - 1))
		if err := c.RegisterFunc("tenant", func() string { return tenant }, true); err != nil {
			return err
		}
		switch i {
		case 1:
			return c.RegisterCollation("first", strings.Compare)
		case 2:
			// lower() of its own: A's lower() is SQLite's, whose program
			// may run anywhere, but not here.
			return c.RegisterFunc("lower", func(s string) string { return "h's lower" }, true)
		}
		return nil
	}})
	db, err := sql.Open(name, filepath.Join(t.TempDir(), "g.db")+groupDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	a, err := db.Conn(ctx) // 1: tenant a, with the collation
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	testMustExec(t, a, "CREATE TABLE t(who TEXT, name TEXT)")
	h, err := db.Conn(ctx) // 2: tenant b, with its lower()
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	x, err := db.Conn(ctx) // 3: holds the turn
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	for _, q := range []string{
		"INSERT INTO t VALUES (tenant(), 'x')",
		"UPDATE t SET name = 'y' WHERE name = 'X' COLLATE first",
		"INSERT INTO t VALUES (lower('A'), 'lower')",
	} {
		hold, err := x.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		leadErr, err := queueBehind(t, db, hold,
			func() error { _, err := h.ExecContext(ctx, "INSERT INTO t VALUES ('lead', 'lead')"); return err },
			func() error { _, err := a.ExecContext(ctx, q); return err })
		if leadErr != nil || err != nil {
			t.Errorf("%s: %v, %v", q, leadErr, err)
		}
	}
	var got string
	if err := db.QueryRow("SELECT group_concat(who || '=' || name, ' ' ORDER BY who, name) FROM t WHERE who <> 'lead'").Scan(&got); err != nil || got != "a=lower a=x" {
		t.Errorf("rows %q (%v), want %q: A's function, A's collation (which compares case), SQLite's lower()", got, err, "a=lower a=x")
	}
}

// The usual change tracking (pending on update, published on commit,
// dropped on rollback) publishes exactly the rows in the table, with
// writers that fail a CHECK among writers that succeed.
func TestGroupCommitHookTracking(t *testing.T) {
	var mu sync.Mutex
	var published []int64
	name := registerTestDriver(&SQLiteDriver{ConnectHook: func(c *SQLiteConn) error {
		var pending []int64
		c.RegisterUpdateHook(func(op int, db, table string, id int64) { pending = append(pending, id) })
		c.RegisterCommitHook(func() int {
			mu.Lock()
			published = append(published, pending...)
			mu.Unlock()
			pending = nil
			return 0
		})
		c.RegisterRollbackHook(func() { pending = nil })
		return nil
	}})
	db, err := sql.Open(name, filepath.Join(t.TempDir(), "g.db")+groupDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	testMustExec(t, db, "CREATE TABLE t(id INTEGER PRIMARY KEY, v INT CHECK (v >= 0))")
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 40; i++ {
				v := 1
				if i%4 == 0 {
					v = -1 // the second row fails the CHECK: the statement is undone
				}
				_, _ = db.Exec("INSERT INTO t(v) VALUES (1), (?)", v)
			}
		}()
	}
	wg.Wait()
	var ids []int64
	rows, err := db.Query("SELECT id FROM t ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		rows.Scan(&id)
		ids = append(ids, id)
	}
	rows.Close()
	slices.Sort(published)
	if !slices.Equal(ids, published) {
		t.Errorf("%d rows in the table, %d published: they differ", len(ids), len(published))
	}
}

// A transaction runs on its own connection whatever holds the turn when it
// begins: its TEMP objects stay there (and never catch another session's
// writes), its direct statements see its writes and commit with it, a read
// in it stops at its deadline, and SQL that names the driver's own
// savepoints is SQLite's business, as without the switch.
func TestGroupCommitTransactionOwnConnection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.db")
	db := openGrouped(t, path, "")
	testMustExec(t, db, "CREATE TABLE t(v TEXT)")
	ctx := context.Background()
	a, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	h, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	g := gateOf(t, db)

	// The transaction begins while H holds the turn.
	hold, err := h.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	txc := make(chan *sql.Tx, 1)
	go func() {
		tx, err := a.BeginTx(ctx, nil)
		if err != nil {
			t.Error(err)
		}
		txc <- tx
	}()
	waitQueued(t, g, 1)
	if err := hold.Commit(); err != nil {
		t.Fatal(err)
	}
	tx := <-txc
	if tx == nil {
		t.FailNow()
	}
	testMustExec(t, tx, "CREATE TEMP TABLE t(v TEXT)")
	testMustExec(t, tx, "INSERT INTO temp.t VALUES ('scratch')")
	testMustExec(t, tx, "INSERT INTO main.t VALUES ('tx')")
	if _, err := tx.Exec(`RELEASE "fastsqlite_tx"`); err == nil || !strings.Contains(err.Error(), "no such savepoint") {
		t.Errorf(`RELEASE "fastsqlite_tx" in the transaction: %v, want SQLite's "no such savepoint"`, err)
	}
	err = a.Raw(func(dc any) error {
		c := dc.(*SQLiteConn)
		sel, err := c.PrepareDirect("SELECT count(*) FROM main.t")
		if err != nil {
			return err
		}
		defer sel.Finalize()
		if _, err := sel.Step(); err != nil {
			return err
		}
		if n := sel.ColumnInt64(0); n != 1 {
			t.Errorf("a direct SELECT in the transaction counts %d rows, want its insert", n)
		}
		ins, err := c.PrepareDirect("INSERT INTO main.t VALUES ('direct')")
		if err != nil {
			return err
		}
		defer ins.Finalize()
		return ins.Exec()
	})
	if err != nil {
		t.Fatal(err)
	}
	dctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	var n int64
	err = tx.QueryRowContext(dctx, "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c) SELECT count(*) FROM c").Scan(&n)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("an endless read in the transaction: %v after %v, want its deadline", err, time.Since(start))
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	// Other sessions write t: main.t, never A's TEMP t.
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := db.Exec("INSERT INTO t VALUES ('other')"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	var mainRows, tempRows int
	if err := a.QueryRowContext(ctx, "SELECT (SELECT count(*) FROM main.t), (SELECT count(*) FROM temp.t)").Scan(&mainRows, &tempRows); err != nil {
		t.Fatal(err)
	}
	if mainRows != 6 || tempRows != 1 {
		t.Errorf("main.t %d rows, A's temp.t %d, want 6 (the transaction's, its direct insert, the other sessions' 4) and 1", mainRows, tempRows)
	}
}

// A bounded pool: a write queued behind a transaction that holds the turn
// and the transaction's lookups through the pool never wait for each other
// longer than the write's group takes.
func TestGroupCommitBoundedPool(t *testing.T) {
	db := openGrouped(t, filepath.Join(t.TempDir(), "g.db"), "")
	db.SetMaxOpenConns(3)
	testMustExec(t, db, "CREATE TABLE t(x)")
	testMustExec(t, db, "INSERT INTO t VALUES (1), (2), (3)")
	g := gateOf(t, db)
	// The turn is taken only while the file has two connections: open two,
	// then give them back to the pool for the writes below.
	c1, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c2, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	c1.Close()
	c2.Close()
	hold, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	wrote := make(chan error, 1)
	go func() { _, err := db.Exec("INSERT INTO t VALUES (-1)"); wrote <- err }()
	waitQueued(t, g, 1)
	txc := make(chan *sql.Tx, 1)
	go func() {
		tx, err := db.Begin()
		if err != nil {
			t.Error(err)
		}
		txc <- tx
	}()
	waitQueued(t, g, 2)
	committed := make(chan error, 1)
	go func() { committed <- hold.Commit() }()
	tx := <-txc
	if tx == nil {
		t.FailNow()
	}
	rows, err := tx.Query("SELECT x FROM t")
	if err != nil {
		t.Fatal(err)
	}
	rows.Next()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM t").Scan(&n); err != nil || n != 4 {
		t.Errorf("a lookup through the pool during the transaction: %d rows (%v), want 4 at once", n, err)
	}
	rows.Close()
	if err := tx.Commit(); err != nil {
		t.Error(err)
	}
	if err := <-wrote; err != nil {
		t.Error(err)
	}
	if err := <-committed; err != nil {
		t.Error(err)
	}
}

// A transaction leaked with rows open (a handler that panicked) after it
// waited for the turn among grouped writes delays no write past its
// context or the busy timeout: the write queued before it is done at once,
// and those after it wait as behind any transaction's lock.
func TestGroupCommitLeakedTransaction(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.db")
	db, err := sql.Open("sqlite3", path+"?_journal_mode=WAL&_txlock=immediate&_busy_timeout=500&_group_commit=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	testMustExec(t, db, "CREATE TABLE t(x)")
	testMustExec(t, db, "INSERT INTO t VALUES (1), (2)")
	g := gateOf(t, db)
	hold := holdTurn(t, db)
	wrote := make(chan error, 1)
	go func() { _, err := db.Exec("INSERT INTO t VALUES (3)"); wrote <- err }()
	waitQueued(t, g, 1)
	txc := make(chan *sql.Tx, 1)
	go func() {
		tx, err := db.Begin()
		if err != nil {
			t.Error(err)
		}
		txc <- tx
	}()
	waitQueued(t, g, 2)
	if err := hold.Commit(); err != nil {
		t.Fatal(err)
	}
	leaked := <-txc
	if leaked == nil {
		t.FailNow()
	}
	rows, err := leaked.Query("SELECT x FROM t")
	if err != nil {
		t.Fatal(err)
	}
	rows.Next() // never closed, never committed until the test ends
	t.Cleanup(func() { rows.Close(); leaked.Rollback() })
	select {
	case err := <-wrote:
		if err != nil {
			t.Errorf("the write queued before the transaction: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the write queued before the leaked transaction still waits after 30 s")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	done := make(chan error, 2)
	go func() { _, err := db.ExecContext(ctx, "INSERT INTO t VALUES (4)"); done <- err }()
	go func() { _, err := db.Exec("INSERT INTO t VALUES (5)"); done <- err }()
	for range 2 {
		select {
		case err := <-done:
			if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, ErrBusy) {
				t.Errorf("a write behind the leaked transaction: %v, want its deadline or database is locked", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("a write behind the leaked transaction still waits after 30 s")
		}
	}
}

// With foreign keys on, a grouped write runs in a savepoint; one that fails
// keeps what SQLite keeps in autocommit: the rows before the failure of an
// OR FAIL statement, or of a trigger's RAISE(FAIL).
func TestGroupCommitFailKeepsRows(t *testing.T) {
	for _, fk := range []string{"", "&_fk=1"} {
		db := openGrouped(t, filepath.Join(t.TempDir(), "g.db"), fk)
		testMustExec(t, db, "CREATE TABLE t(id INTEGER PRIMARY KEY, v INT CHECK (v >= 0))")
		testMustExec(t, db, "CREATE TABLE u(id INTEGER PRIMARY KEY, v INT)")
		testMustExec(t, db, "CREATE TRIGGER neg BEFORE INSERT ON u WHEN new.v < 0 BEGIN SELECT RAISE(FAIL, 'negative'); END")
		errs := grouped(t, db,
			func() error { _, err := db.Exec("INSERT OR FAIL INTO t VALUES (1, 1), (2, -1)"); return err },
			func() error { _, err := db.Exec("INSERT INTO u VALUES (1, 1), (2, -1)"); return err },
		)
		if errs[0] == nil || errs[1] == nil {
			t.Errorf("fk %q: errors %v, want both to fail", fk, errs)
		}
		var ts, us int
		if err := db.QueryRow("SELECT (SELECT group_concat(id) FROM t), (SELECT group_concat(id) FROM u)").Scan(&ts, &us); err != nil || ts != 1 || us != 1 {
			t.Errorf("fk %q: rows kept t=%d u=%d (%v), want row 1 of each, as in autocommit", fk, ts, us, err)
		}
	}
}

// A connection's settings decide, not the fact that a PRAGMA ran: with a
// setting of its own its write runs on itself, with that setting; once the
// setting is back to its DSN's, its writes join groups again.
func TestGroupCommitSettingsDecide(t *testing.T) {
	db := openGrouped(t, filepath.Join(t.TempDir(), "g.db"), "&_fk=1")
	testMustExec(t, db, "CREATE TABLE parent(id INTEGER PRIMARY KEY)")
	testMustExec(t, db, "CREATE TABLE child(pid INT REFERENCES parent(id))")
	testMustExec(t, db, "INSERT INTO parent VALUES (1)")
	ctx := context.Background()
	x, h, a := threeConns(t, db)
	lead := func() error { _, err := h.ExecContext(ctx, "INSERT INTO child VALUES (1)"); return err }
	testMustExec(t, a, "PRAGMA foreign_keys = OFF")
	hold, err := x.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	g0, u0 := groupCounts()
	leadErr, err := queueBehind(t, db, hold, lead, func() error {
		_, err := a.ExecContext(ctx, "INSERT INTO child VALUES (99)")
		return err
	})
	if leadErr != nil || err != nil {
		t.Errorf("an orphan from the connection with foreign keys off: %v (lead: %v), want it accepted, as on that connection", err, leadErr)
	}
	if g1, u1 := groupCounts(); g1 != g0 || u1 != u0 {
		t.Errorf("the write of a connection with a setting of its own was grouped (%d groups of %d)", g1-g0, u1-u0)
	}
	testMustExec(t, a, "PRAGMA foreign_keys = ON")
	hold, err = x.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	g0, u0 = groupCounts()
	leadErr, err = queueBehind(t, db, hold, lead, func() error {
		_, err := a.ExecContext(ctx, "INSERT INTO child VALUES (1)")
		return err
	})
	if leadErr != nil || err != nil {
		t.Error(leadErr, err)
	}
	if g1, u1 := groupCounts(); g1-g0 != 1 || u1-u0 != 2 {
		t.Errorf("after PRAGMA foreign_keys = ON again: %d groups of %d writes, want the write grouped (1 of 2)", g1-g0, u1-u0)
	}
}

// last_insert_rowid(), changes() and total_changes() read after a write
// that failed in another connection's group read what they read after the
// same write in autocommit: a CHECK failure (ABORT: nothing kept), an OR
// FAIL that keeps its first row, and, with foreign keys on, an orphan of a
// deferred constraint, which the group runs and undoes in a savepoint,
// where autocommit fails it at its end (with foreign keys off it is
// accepted).
func TestGroupCommitFailedWriteCounters(t *testing.T) {
	ctx := context.Background()
	schema := []string{
		"CREATE TABLE parent(id INTEGER PRIMARY KEY)",
		"CREATE TABLE child(id INTEGER PRIMARY KEY, pid INT REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED)",
		"CREATE TABLE c(id INTEGER PRIMARY KEY, v INT CHECK (v >= 0))",
		"INSERT INTO parent VALUES (1)",
	}
	writes := []string{
		"INSERT INTO c VALUES (10, 1), (11, -1)",
		"INSERT OR FAIL INTO c VALUES (20, 1), (21, -1)",
		"INSERT INTO child(pid) VALUES (99)",
	}
	for _, fk := range []string{"", "&_fk=1"} {
		// What autocommit gives, on a pool without the switch.
		ref := openReaders(t, filepath.Join(t.TempDir(), "ref.db"))
		ref.SetMaxOpenConns(1)
		if fk != "" {
			testMustExec(t, ref, "PRAGMA foreign_keys = ON")
		}
		for _, q := range schema {
			testMustExec(t, ref, q)
		}
		want := map[string][3]int64{}
		failed := map[string]bool{}
		for _, q := range writes {
			var before, rowid, changes, total int64
			if err := ref.QueryRow("SELECT total_changes()").Scan(&before); err != nil {
				t.Fatal(err)
			}
			_, err := ref.Exec(q)
			failed[q] = err != nil
			if err := ref.QueryRow("SELECT last_insert_rowid(), changes(), total_changes()").Scan(&rowid, &changes, &total); err != nil {
				t.Fatal(err)
			}
			want[q] = [3]int64{rowid, changes, total - before}
		}
		if !failed[writes[0]] || !failed[writes[1]] || failed[writes[2]] != (fk != "") {
			t.Fatalf("fk=%q: autocommit's outcomes %v: the writes do not fail as this test means", fk, failed)
		}

		db := openGrouped(t, filepath.Join(t.TempDir(), "g.db"), fk)
		for _, q := range schema {
			testMustExec(t, db, q)
		}
		x, h, a := threeConns(t, db)
		y, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer y.Close()
		g := gateOf(t, db)
		groupsRunLong(t)
		for i, q := range writes {
			var before, rowid, changes, total int64
			if err := a.QueryRowContext(ctx, "SELECT total_changes()").Scan(&before); err != nil {
				t.Fatal(err)
			}
			hold, err := x.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			// h leads, a's write and y's queue behind it: a group of the
			// good writes that counts y's shows that a's ran in it too
			// (the group ends at a write it leaves to its own connection).
			g0, u0 := groupCounts()
			ws := []func() error{
				func() error { _, err := h.ExecContext(ctx, "INSERT INTO parent VALUES (?)", 100+2*i); return err },
				func() error { _, err := a.ExecContext(ctx, q); return err },
				func() error { _, err := y.ExecContext(ctx, "INSERT INTO parent VALUES (?)", 101+2*i); return err },
			}
			errs := make([]chan error, len(ws))
			n := g.queued()
			for j, w := range ws {
				errs[j] = make(chan error, 1)
				go func() { errs[j] <- w() }()
				waitQueued(t, g, n+j+1)
			}
			if err := hold.Commit(); err != nil {
				t.Fatal(err)
			}
			leadErr, err, lastErr := <-errs[0], <-errs[1], <-errs[2]
			if leadErr != nil || lastErr != nil || (err != nil) != failed[q] {
				t.Fatalf("fk=%q: %s: %v (the others: %v, %v); autocommit failed: %v", fk, q, err, leadErr, lastErr, failed[q])
			}
			wantUnits := int64(2)
			if !failed[q] {
				wantUnits = 3
			}
			if g1, u1 := groupCounts(); g1-g0 != 1 || u1-u0 != wantUnits {
				t.Fatalf("fk=%q: %s: %d groups of %d writes, want one of %d", fk, q, g1-g0, u1-u0, wantUnits)
			}
			if err := a.QueryRowContext(ctx, "SELECT last_insert_rowid(), changes(), total_changes()").Scan(&rowid, &changes, &total); err != nil {
				t.Fatal(err)
			}
			if got := [3]int64{rowid, changes, total - before}; got != want[q] {
				t.Errorf("fk=%q: %s in a group: last_insert_rowid() %d, changes() %d, total_changes() grew by %d; autocommit: %d, %d, %d",
					fk, q, got[0], got[1], got[2], want[q][0], want[q][1], want[q][2])
			}
		}
	}
}

// PRAGMA data_version on the group's connection and on a connection whose
// write it ran moves as it does when each write commits alone: it moves on
// a connection when another one committed a change since its last look. A
// group's COMMIT holds another connection's change (the leader's moves),
// and a write joins only one that changed rows (the joiner's moves, as its
// own commit followed that change), not one that failed or changed nothing.
func TestGroupCommitDataVersion(t *testing.T) {
	ctx := context.Background()
	leads := []string{"INSERT INTO c VALUES (100, -1)", "UPDATE c SET v = 1 WHERE id = -5", "INSERT INTO c(v) VALUES (1)"}
	const write = "INSERT INTO c(v) VALUES (5)"
	// dataVersions returns how much data_version moved on h and on a.
	dataVersions := func(h, a *sql.Conn, run func()) [2]int64 {
		var h0, a0, h1, a1 int64
		if err := h.QueryRowContext(ctx, "PRAGMA data_version").Scan(&h0); err != nil {
			t.Fatal(err)
		}
		if err := a.QueryRowContext(ctx, "PRAGMA data_version").Scan(&a0); err != nil {
			t.Fatal(err)
		}
		run()
		if err := h.QueryRowContext(ctx, "PRAGMA data_version").Scan(&h1); err != nil {
			t.Fatal(err)
		}
		if err := a.QueryRowContext(ctx, "PRAGMA data_version").Scan(&a1); err != nil {
			t.Fatal(err)
		}
		return [2]int64{h1 - h0, a1 - a0}
	}

	ref := openReaders(t, filepath.Join(t.TempDir(), "ref.db"))
	testMustExec(t, ref, "CREATE TABLE c(id INTEGER PRIMARY KEY, v INT CHECK (v >= 0))")
	_, rh, ra := threeConns(t, ref)
	want := map[string][2]int64{}
	for _, lead := range leads {
		want[lead] = dataVersions(rh, ra, func() {
			rh.ExecContext(ctx, lead) // the first fails, as in the group
			if _, err := ra.ExecContext(ctx, write); err != nil {
				t.Fatal(err)
			}
		})
	}
	if want[leads[0]] != [2]int64{1, 0} || want[leads[2]] != [2]int64{1, 1} {
		t.Fatalf("autocommit: data_version moved by %v: not what this test expects of SQLite", want)
	}

	db := openGrouped(t, filepath.Join(t.TempDir(), "g.db"), "")
	testMustExec(t, db, "CREATE TABLE c(id INTEGER PRIMARY KEY, v INT CHECK (v >= 0))")
	x, h, a := threeConns(t, db)
	for _, lead := range leads {
		got := dataVersions(h, a, func() {
			hold, err := x.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			g0, u0 := groupCounts()
			_, err = queueBehind(t, db, hold,
				func() error { _, err := h.ExecContext(ctx, lead); return err },
				func() error { _, err := a.ExecContext(ctx, write); return err })
			if err != nil {
				t.Fatal(err)
			}
			if g1, u1 := groupCounts(); lead == leads[2] && (g1-g0 != 1 || u1-u0 != 2) {
				t.Fatalf("%s: %d groups of %d writes, want the two writes in one", lead, g1-g0, u1-u0)
			}
		})
		if got != want[lead] {
			t.Errorf("%s, then a write queued behind it: data_version moved by %d on the leader and %d on the other; autocommit: %d, %d",
				lead, got[0], got[1], want[lead][0], want[lead][1])
		}
	}
}

// A grouped write whose context ends while it runs is interrupted, as in
// autocommit, and undone alone: SQLite rolls back the group's whole
// transaction, and the group runs again the writes before it, which
// commit, as do the writes after it; an OR FAIL write before it keeps its
// first row, as in autocommit.
func TestGroupCommitDeadlineInterrupts(t *testing.T) {
	db := openGrouped(t, filepath.Join(t.TempDir(), "g.db"), "")
	testMustExec(t, db, "CREATE TABLE t(v TEXT)")
	testMustExec(t, db, "CREATE TABLE c(id INTEGER PRIMARY KEY, v INT CHECK (v >= 0))")
	ctx := context.Background()
	x, h, a := threeConns(t, db)
	y, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer y.Close()
	f, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g := gateOf(t, db)
	hold, err := x.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	dctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	writes := []func() error{
		func() error { _, err := h.ExecContext(ctx, "INSERT INTO t VALUES ('before')"); return err },
		func() error { _, err := f.ExecContext(ctx, "INSERT OR FAIL INTO c VALUES (1, 1), (2, -1)"); return err },
		func() error {
			_, err := a.ExecContext(dctx, "INSERT INTO t WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM c) SELECT 'slow' FROM c")
			return err
		},
		func() error { _, err := y.ExecContext(ctx, "INSERT INTO t VALUES ('after')"); return err },
	}
	errs := make([]chan error, len(writes))
	for i, w := range writes {
		errs[i] = make(chan error, 1)
		go func() { errs[i] <- w() }()
		waitQueued(t, g, i+1)
	}
	if err := hold.Commit(); err != nil {
		t.Fatal(err)
	}
	got := []error{<-errs[0], <-errs[1], <-errs[2], <-errs[3]}
	var e Error
	if got[0] != nil || !errors.As(got[1], &e) || e.Code != ErrConstraint || !errors.Is(got[2], context.DeadlineExceeded) || got[3] != nil {
		t.Errorf("errors %v, want nil, OR FAIL's constraint, the slow write's deadline, nil", got)
	}
	var kept string
	if err := db.QueryRow("SELECT group_concat(id) FROM c").Scan(&kept); err != nil || kept != "1" {
		t.Errorf("OR FAIL kept rows %q (%v), want 1, as in autocommit", kept, err)
	}
	var vs string
	if err := db.QueryRow("SELECT group_concat(v, ',' ORDER BY v) FROM t").Scan(&vs); err != nil || vs != "after,before" {
		t.Errorf("rows %q (%v), want after,before", vs, err)
	}
	// What each connection reads back counts its write once, as in
	// autocommit, though the group ran the writes before the interrupted
	// one twice (the group's own write among them); the interrupted write
	// changed nothing.
	for _, w := range []struct {
		name           string
		c              *sql.Conn
		changes, total int64
	}{{"the group's own write", h, 1, 1}, {"OR FAIL", f, 1, 1}, {"the interrupted write", a, 0, 0}, {"the write after", y, 1, 1}} {
		var changes, total int64
		if err := w.c.QueryRowContext(ctx, "SELECT changes(), total_changes()").Scan(&changes, &total); err != nil || changes != w.changes || total != w.total {
			t.Errorf("%s: changes() %d, total_changes() %d (%v), want %d, %d", w.name, changes, total, err, w.changes, w.total)
		}
	}
}
