//go:build cgo && !libsqlite3

// Not built with the libsqlite3 tag: against a system SQLite the driver
// cannot see what a statement writes, and nothing is grouped.

package sqlite3

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// Tests of group.go: with _group_commit=1 the writes of a file's
// connections share transactions, and each caller still hears only what
// became of its own write, and only once it is in the database.

const groupDSN = "?_journal_mode=WAL&_txlock=immediate&_busy_timeout=5000&_group_commit=1"

func openGrouped(t *testing.T, path, extra string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", path+groupDSN+extra)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// openReaders opens a pool on path without the switch, to look at what the
// grouped pool's writes left in the file.
func openReaders(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", path+"?_journal_mode=WAL&_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// gateOf returns the write turn of db's file.
func gateOf(t *testing.T, db *sql.DB) *writeGate {
	t.Helper()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var g *writeGate
	conn.Raw(func(dc any) error {
		g = dc.(*SQLiteConn).core.gate
		return nil
	})
	if g == nil {
		t.Fatal("no write turn")
	}
	return g
}

// grouped runs the writes fns, each on a connection of its own, queued in
// order behind a transaction that holds the turn; when it commits, the
// first of them gets the turn and runs the others in its group. It returns
// their errors, and fails the test if that commit fails.
func grouped(t *testing.T, db *sql.DB, fns ...func() error) []error {
	t.Helper()
	errs, err := groupedBehind(t, db, fns...)
	if err != nil {
		t.Fatalf("the commit of the group: %v", err)
	}
	return errs
}

// groupedBehind is grouped, returning the commit's error.
func groupedBehind(t *testing.T, db *sql.DB, fns ...func() error) ([]error, error) {
	t.Helper()
	groupsRunLong(t)
	g := gateOf(t, db)
	hold := holdTurn(t, db)
	errs := make([]error, len(fns))
	var wg sync.WaitGroup
	for i, fn := range fns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = fn()
		}()
		waitQueued(t, g, i+1)
	}
	err := hold.Commit()
	wg.Wait()
	return errs, err
}

// groupsRunLong lets a group run as long as it takes (groupMaxTime) until
// the test ends, for the tests that expect the writes queued behind a
// holder to form one group: on a loaded machine the group's first write
// alone can take past the cap, and the rest of the queue would then form
// another group.
func groupsRunLong(t *testing.T) {
	was := groupMaxTime
	groupMaxTime = time.Minute
	t.Cleanup(func() { groupMaxTime = was })
}

// holdTurn begins a transaction that holds db's write turn (the turn is
// only taken while the file has two connections: a second one stays open
// until the test ends).
func holdTurn(t *testing.T, db *sql.DB) *sql.Tx {
	t.Helper()
	spare, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { spare.Close() })
	hold, err := db.Begin() // _txlock=immediate: takes the turn
	if err != nil {
		t.Fatal(err)
	}
	return hold
}

// Many writers: every write is in the database when its Exec returns, or
// its Query of INSERT ... RETURNING (a connection of another pool reads it
// at once), each result's LastInsertId and each returned id is its own
// row's, and writes did share commits. The writers start behind a
// transaction that holds the turn, which commits once two of them queue:
// on a loaded machine the scheduler may otherwise run them one after
// another, each finding the turn free, and none would share.
func TestGroupCommitAcknowledgesAfterCommit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.db")
	db := openGrouped(t, path, "")
	testMustExec(t, db, "CREATE TABLE t(id INTEGER PRIMARY KEY, who TEXT, n INT)")
	readers := openReaders(t, path)
	ins, err := db.Prepare("INSERT INTO t(who, n) VALUES (?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	defer ins.Close()
	insID, err := db.Prepare("INSERT INTO t(who, n) VALUES (?, ?) RETURNING id")
	if err != nil {
		t.Fatal(err)
	}
	defer insID.Close()
	g0, u0 := groupCounts()
	st0, err := Stats(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	const writers, each = 16, 60
	g := gateOf(t, db)
	hold := holdTurn(t, db)
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			who := fmt.Sprint("w", w)
			for n := 0; n < each; n++ {
				var res sql.Result
				var id int64
				var err error
				switch w % 4 {
				case 0:
					res, err = ins.Exec(who, n)
				case 1:
					res, err = db.Exec("INSERT INTO t(who, n) VALUES (?, ?)", who, n)
				case 2:
					err = insID.QueryRow(who, n).Scan(&id)
				case 3:
					err = db.QueryRow("INSERT INTO t(who, n) VALUES (?, ?) RETURNING id", who, n).Scan(&id)
				}
				if err != nil {
					errs <- err
					return
				}
				if res != nil {
					id, _ = res.LastInsertId()
					if k, _ := res.RowsAffected(); k != 1 {
						errs <- fmt.Errorf("%s %d: RowsAffected %d", who, n, k)
						return
					}
				}
				var gotWho string
				var gotN int
				if err := readers.QueryRow("SELECT who, n FROM t WHERE id = ?", id).Scan(&gotWho, &gotN); err != nil {
					errs <- fmt.Errorf("%s %d acknowledged as row %d, which another connection cannot read: %v", who, n, id, err)
					return
				}
				if gotWho != who || gotN != n {
					errs <- fmt.Errorf("%s %d: LastInsertId %d is the row of %s %d", who, n, id, gotWho, gotN)
					return
				}
			}
		}()
	}
	waitQueued(t, g, 2)
	if err := hold.Commit(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	var count int
	if err := readers.QueryRow("SELECT count(*) FROM t").Scan(&count); err != nil || count != writers*each {
		t.Fatalf("%d rows (%v), want %d", count, err, writers*each)
	}
	g1, u1 := groupCounts()
	if u1-u0 <= g1-g0 || g1 == g0 {
		t.Errorf("%d groups of %d writes: the writers never shared a commit", g1-g0, u1-u0)
	}
	t.Logf("%d writes in %d groups", u1-u0, g1-g0)
	st1, err := Stats(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if st1.GroupCommits-st0.GroupCommits != g1-g0 || st1.GroupedWrites-st0.GroupedWrites != u1-u0 {
		t.Errorf("FileStats counted %d groups of %d writes, want %d of %d", st1.GroupCommits-st0.GroupCommits, st1.GroupedWrites-st0.GroupedWrites, g1-g0, u1-u0)
	}
}

// A write read through Query (INSERT ... RETURNING, UPDATE ... RETURNING),
// through a connection or a prepared statement, joins a group too: its rows
// are its own, converted as without the switch (a DATETIME column gives a
// time.Time), and handed out only once the group has committed (another
// pool reads them when Query returns); a failure is its own.
func TestGroupCommitQueryReturning(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.db")
	db := openGrouped(t, path, "")
	testMustExec(t, db, "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT UNIQUE, at DATETIME, n INT)")
	testMustExec(t, db, "INSERT INTO t(v, at, n) VALUES ('x1', '2026-12-04 10:00:00', 1), ('x2', '2026-12-04 11:00:00', 1)")
	readers := openReaders(t, path)
	ins, err := db.Prepare("INSERT INTO t(v, at, n) VALUES (?, ?, 0) RETURNING id, v, at")
	if err != nil {
		t.Fatal(err)
	}
	defer ins.Close()
	at := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)

	type row struct {
		id int64
		v  string
		at time.Time
	}
	var got [5][]row
	var cols [5][]string
	var seen [5]int // rows another pool reads when Query has returned
	run := func(i int, q func() (*sql.Rows, error), see string) func() error {
		return func() error {
			rows, err := q()
			if err != nil {
				return err
			}
			defer rows.Close()
			if err := readers.QueryRow("SELECT count(*) FROM t WHERE " + see).Scan(&seen[i]); err != nil {
				return err
			}
			cols[i], _ = rows.Columns()
			for rows.Next() {
				var r row
				dest := []any{&r.id, &r.v, &r.at}
				if err := rows.Scan(dest[:len(cols[i])]...); err != nil {
					return err
				}
				got[i] = append(got[i], r)
			}
			return rows.Err()
		}
	}
	g0, u0 := groupCounts()
	errs := grouped(t, db,
		run(0, func() (*sql.Rows, error) {
			return db.Query("INSERT INTO t(v, at, n) VALUES (?, ?, 0) RETURNING id, v, at", "a", at)
		}, "v = 'a'"),
		run(1, func() (*sql.Rows, error) { return ins.Query("b", at) }, "v = 'b'"),
		run(2, func() (*sql.Rows, error) {
			return db.Query("INSERT INTO t(v, at, n) VALUES ('x1', ?, 0) RETURNING id", at)
		}, "v = 'x1' AND n = 0"),
		run(3, func() (*sql.Rows, error) {
			return db.Query("UPDATE t SET n = n + 1 WHERE v LIKE 'x%' RETURNING id, v")
		}, "v LIKE 'x%' AND n = 2"),
		run(4, func() (*sql.Rows, error) { return db.Query("DELETE FROM t WHERE v = 'nobody' RETURNING id") }, "v = 'nobody'"),
	)
	for i, v := range []string{"a", "b"} {
		if errs[i] != nil || len(got[i]) != 1 || got[i][0].v != v || !got[i][0].at.Equal(at) || got[i][0].id <= 2 || seen[i] != 1 {
			t.Errorf("INSERT %s ... RETURNING: rows %v (%v), %d seen by another pool at Query's return; want one row %s at %v, seen", v, got[i], errs[i], seen[i], v, at)
		}
		if want := []string{"id", "v", "at"}; fmt.Sprint(cols[i]) != fmt.Sprint(want) {
			t.Errorf("INSERT %s ... RETURNING: columns %v, want %v", v, cols[i], want)
		}
	}
	var e Error
	if !errors.As(errs[2], &e) || e.ExtendedCode != ErrConstraintUnique || len(got[2]) != 0 {
		t.Errorf("the duplicate: rows %v, error %v; want a UNIQUE constraint error", got[2], errs[2])
	}
	if errs[3] != nil || len(got[3]) != 2 || seen[3] != 2 {
		t.Errorf("UPDATE ... RETURNING: rows %v (%v), %d seen at Query's return; want x1 and x2, both seen", got[3], errs[3], seen[3])
	}
	if errs[4] != nil || len(got[4]) != 0 {
		t.Errorf("DELETE of nothing ... RETURNING: rows %v (%v), want none", got[4], errs[4])
	}
	if g1, u1 := groupCounts(); g1-g0 != 1 || u1-u0 != 4 {
		t.Errorf("%d groups of %d writes, want 1 of 4 (the 4 of 5 that succeeded)", g1-g0, u1-u0)
	}
	var n int
	if err := readers.QueryRow("SELECT count(*) FROM t").Scan(&n); err != nil || n != 4 {
		t.Errorf("%d rows (%v), want 4", n, err)
	}
}

// The rows of a grouped write are copied out in the group and converted by
// their caller: every storage class comes back as without the switch (a
// BLOB with a NUL byte, an empty TEXT and BLOB, NULL, a REAL, a TEXT past
// any short-value copy), several rows each, through Scan and through
// sql.RawBytes, whichever connection ran the write.
func TestGroupCommitReturningValues(t *testing.T) {
	db := openGrouped(t, filepath.Join(t.TempDir(), "g.db"), "")
	testMustExec(t, db, "CREATE TABLE b(k INTEGER PRIMARY KEY, w TEXT, x ANY)")
	long := strings.Repeat("long text ", 1000)
	type row struct {
		x   any
		raw string
	}
	want := []row{{[]byte{0, 0xff, 'a'}, "\x00\xffa"}, {"", ""}, {[]byte{}, ""}, {nil, ""}, {1.5, "1.5"}, {long, long}}
	const writers = 4
	got := make([][]row, writers)
	fns := make([]func() error, writers)
	for i := range fns {
		fns[i] = func() error {
			rows, err := db.Query("INSERT INTO b(w, x) VALUES (?, ?), (?, ''), (?, x''), (?, NULL), (?, 1.5), (?, ?) RETURNING x, x",
				"a", []byte{0, 0xff, 'a'}, "b", "c", "d", "e", "f", long)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var r row
				var raw sql.RawBytes
				if err := rows.Scan(&r.x, &raw); err != nil {
					return err
				}
				r.raw = string(raw)
				got[i] = append(got[i], r)
			}
			return rows.Err()
		}
	}
	g0, u0 := groupCounts()
	errs := grouped(t, db, fns...)
	for i := range got {
		if errs[i] != nil || len(got[i]) != len(want) {
			t.Errorf("writer %d: %d rows (%v), want %d", i, len(got[i]), errs[i], len(want))
			continue
		}
		for j, r := range got[i] {
			if !reflect.DeepEqual(r, want[j]) {
				t.Errorf("writer %d, row %d: %.60q, want %.60q", i, j, fmt.Sprintf("%#v", r), fmt.Sprintf("%#v", want[j]))
			}
		}
	}
	if g1, u1 := groupCounts(); g1-g0 != 1 || u1-u0 != writers {
		t.Errorf("%d groups of %d writes, want 1 of %d", g1-g0, u1-u0, writers)
	}
}

// A write that fails in a group (a constraint) fails alone:
// the others of its group commit.
func TestGroupCommitFailureIsTheWritesAlone(t *testing.T) {
	db := openGrouped(t, filepath.Join(t.TempDir(), "g.db"), "")
	testMustExec(t, db, "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT UNIQUE)")
	testMustExec(t, db, "INSERT INTO t(v) VALUES ('taken')")
	g0, u0 := groupCounts()
	errs := grouped(t, db,
		func() error { _, err := db.Exec("INSERT INTO t(v) VALUES ('a')"); return err },
		func() error { _, err := db.Exec("INSERT INTO t(v) VALUES ('taken')"); return err },
		func() error { _, err := db.Exec("INSERT INTO t(v) VALUES ('b')"); return err },
	)
	if errs[0] != nil || errs[2] != nil {
		t.Errorf("the good writes of the group: %v, %v", errs[0], errs[2])
	}
	var e Error
	if !errors.As(errs[1], &e) || e.ExtendedCode != ErrConstraintUnique {
		t.Errorf("the duplicate: %v, want a UNIQUE constraint error", errs[1])
	}
	var vs string
	if err := db.QueryRow("SELECT group_concat(v, ',' ORDER BY v) FROM t").Scan(&vs); err != nil || vs != "a,b,taken" {
		t.Errorf("rows %q (%v), want a,b,taken", vs, err)
	}
	if g1, u1 := groupCounts(); g1-g0 != 1 || u1-u0 != 2 {
		t.Errorf("%d groups of %d writes, want 1 of 2 (the 2 of 3 that succeeded)", g1-g0, u1-u0)
	}
}

// A write whose conflict clause or trigger would roll back the whole
// transaction (OR ROLLBACK, RAISE(ROLLBACK)) never joins a group: it would
// take the writes grouped before it with it, which in autocommit it cannot.
// It runs on its own connection, and fails alone, as in autocommit; the
// writes before and after it commit.
func TestGroupCommitRollbackRunsAlone(t *testing.T) {
	db := openGrouped(t, filepath.Join(t.TempDir(), "g.db"), "")
	testMustExec(t, db, "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT UNIQUE)")
	testMustExec(t, db, "CREATE TABLE u(v TEXT)")
	testMustExec(t, db, "CREATE TRIGGER no_bad BEFORE INSERT ON u WHEN new.v = 'bad' BEGIN SELECT RAISE(ROLLBACK, 'bad value'); END")
	testMustExec(t, db, "INSERT INTO t(v) VALUES ('taken')")
	errs, holdErr := groupedBehind(t, db,
		func() error { _, err := db.Exec("INSERT INTO t(v) VALUES ('a')"); return err },
		func() error { _, err := db.Exec("INSERT OR ROLLBACK INTO t(v) VALUES ('taken')"); return err },
		func() error { _, err := db.Exec("INSERT INTO t(v) VALUES ('b')"); return err },
		func() error { _, err := db.Exec("INSERT INTO u VALUES ('bad')"); return err },
		func() error { _, err := db.Exec("INSERT INTO t(v) VALUES ('c')"); return err },
	)
	if holdErr != nil {
		t.Errorf("the transaction that ran the group: %v", holdErr)
	}
	var e Error
	if !errors.As(errs[1], &e) || e.ExtendedCode != ErrConstraintUnique || strings.Contains(errs[1].Error(), "not in the database") {
		t.Errorf("OR ROLLBACK: %v, want autocommit's UNIQUE constraint error", errs[1])
	}
	if !errors.As(errs[3], &e) || e.Code != ErrConstraint || !strings.Contains(errs[3].Error(), "bad value") {
		t.Errorf("RAISE(ROLLBACK): %v, want autocommit's error", errs[3])
	}
	for _, i := range []int{0, 2, 4} {
		if errs[i] != nil {
			t.Errorf("write %d: %v", i, errs[i])
		}
	}
	var vs string
	if err := db.QueryRow("SELECT group_concat(v, ',' ORDER BY v) FROM t").Scan(&vs); err != nil || vs != "a,b,c,taken" {
		t.Errorf("rows %q (%v), want a,b,c,taken", vs, err)
	}
}

// With foreign keys on, a write that leaves a deferred constraint
// unresolved fails alone with the error it gets in autocommit, where the
// group's COMMIT would otherwise fail for everyone.
func TestGroupCommitDeferredForeignKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.db")
	db := openGrouped(t, path, "&_fk=1")
	testMustExec(t, db, "CREATE TABLE parent(id INTEGER PRIMARY KEY)")
	testMustExec(t, db, "CREATE TABLE child(id INTEGER PRIMARY KEY, pid INT REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED)")
	testMustExec(t, db, "INSERT INTO parent VALUES (1)")
	plain, err := sql.Open("sqlite3", path+"?_fk=1&_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	_, want := plain.Exec("INSERT INTO child(pid) VALUES (99)")
	if want == nil {
		t.Fatal("autocommit accepted an orphan")
	}
	errs := grouped(t, db,
		func() error { _, err := db.Exec("INSERT INTO child(pid) VALUES (1)"); return err },
		func() error { _, err := db.Exec("INSERT INTO child(pid) VALUES (99)"); return err },
		func() error { _, err := db.Exec("INSERT INTO child(pid) VALUES (1)"); return err },
	)
	if errs[0] != nil || errs[2] != nil {
		t.Errorf("the good writes: %v, %v", errs[0], errs[2])
	}
	var got, exp Error
	if !errors.As(errs[1], &got) || !errors.As(want, &exp) || got.ExtendedCode != exp.ExtendedCode || errs[1].Error() != want.Error() {
		t.Errorf("the orphan in a group: %v, want autocommit's %v", errs[1], want)
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM child").Scan(&n); err != nil || n != 2 {
		t.Errorf("%d children (%v), want 2", n, err)
	}
}

// A write whose context ends while it waits is not run: its caller gets
// the context's error, and the write is not in the database.
func TestGroupCommitContextEndsBeforeStart(t *testing.T) {
	db := openGrouped(t, filepath.Join(t.TempDir(), "g.db"), "")
	testMustExec(t, db, "CREATE TABLE t(v TEXT)")
	g := gateOf(t, db)
	hold := holdTurn(t, db)
	ctx, cancel := context.WithCancel(context.Background())
	res := make(chan error, 1)
	go func() {
		_, err := db.ExecContext(ctx, "INSERT INTO t VALUES ('cancelled')")
		res <- err
	}()
	waitQueued(t, g, 1)
	cancel()
	select {
	case err := <-res:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled write: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a cancelled write still waits")
	}
	if err := hold.Commit(); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.QueryRow("SELECT count(*) FROM t").Scan(&n); err != nil || n != 0 {
		t.Errorf("%d rows (%v), want none", n, err)
	}
}

// A connection that holds something of its own (a hook added after open, a
// TEMP trigger, a PRAGMA it set) runs its writes itself: its hook fires and
// its trigger runs, which they would not on the connection of a group.
func TestGroupCommitLeavesStatefulConnections(t *testing.T) {
	db := openGrouped(t, filepath.Join(t.TempDir(), "g.db"), "")
	testMustExec(t, db, "CREATE TABLE t(v TEXT)")
	ctx := context.Background()
	hooked, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer hooked.Close()
	var fired []string
	hooked.Raw(func(dc any) error {
		dc.(*SQLiteConn).RegisterUpdateHook(func(op int, db, table string, id int64) { fired = append(fired, table) })
		return nil
	})
	temp, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer temp.Close()
	testMustExec(t, temp, "CREATE TEMP TABLE log(v)")
	testMustExec(t, temp, "CREATE TEMP TRIGGER tlog AFTER INSERT ON main.t BEGIN INSERT INTO log VALUES (new.v); END")
	pragma, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer pragma.Close()
	testMustExec(t, pragma, "PRAGMA recursive_triggers = 1")
	testMustExec(t, db, "CREATE TRIGGER again AFTER INSERT ON t WHEN new.v = 'pragma' BEGIN INSERT INTO t VALUES ('pragma'); END")
	errs := grouped(t, db,
		func() error { _, err := db.Exec("INSERT INTO t VALUES ('lead')"); return err },
		func() error { _, err := hooked.ExecContext(ctx, "INSERT INTO t VALUES ('hooked')"); return err },
		func() error { _, err := temp.ExecContext(ctx, "INSERT INTO t VALUES ('temp')"); return err },
		func() error { _, err := pragma.ExecContext(ctx, "INSERT INTO t VALUES ('pragma')"); return err },
	)
	// Recursive triggers are on for that connection only: on it, the
	// trigger fires itself until SQLite's depth limit fails the write.
	if errs[3] == nil {
		t.Error("the write of the connection with recursive_triggers on succeeded: it ran where the trigger does not fire itself")
	}
	errs = errs[:3]
	for i, err := range errs {
		if err != nil {
			t.Errorf("write %d: %v", i, err)
		}
	}
	if len(fired) != 1 || fired[0] != "t" {
		t.Errorf("the update hook of the connection saw %q, want its own write", fired)
	}
	var logged string
	if err := temp.QueryRowContext(ctx, "SELECT group_concat(v) FROM log").Scan(&logged); err != nil || logged != "temp" {
		t.Errorf("the TEMP trigger logged %q (%v), want its connection's write", logged, err)
	}
}

// A lone writer never opens a group: it writes in autocommit, as without
// the switch.
func TestGroupCommitLoneWriter(t *testing.T) {
	db := openGrouped(t, filepath.Join(t.TempDir(), "g.db"), "")
	testMustExec(t, db, "CREATE TABLE t(v INT)")
	other, err := db.Conn(context.Background()) // a second connection, idle
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	g0, _ := groupCounts()
	for i := 0; i < 200; i++ {
		testMustExec(t, db, "INSERT INTO t VALUES (?)", i)
	}
	if g1, _ := groupCounts(); g1 != g0 {
		t.Errorf("a lone writer opened %d groups", g1-g0)
	}
}

// Many goroutines running short transactions (GORM's shape) beside grouped
// autocommit writes: each transaction sees its own rows, each committed
// transaction's rows are there, each rolled back one's are not, and every
// autocommit write is there.
func TestGroupCommitTransactionsUnderLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.db")
	db := openGrouped(t, path, "&_fk=1")
	testMustExec(t, db, "CREATE TABLE t(id INTEGER PRIMARY KEY, who TEXT, n INT, kept INT)")
	g0, u0 := groupCounts()
	const writers, each = 16, 40
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			who := fmt.Sprint("w", w)
			for n := 0; n < each; n++ {
				keep := n%5 != 0
				tx, err := db.Begin()
				if err != nil {
					errs <- err
					return
				}
				var before int
				if err := tx.QueryRow("SELECT count(*) FROM t WHERE who = ?", who).Scan(&before); err != nil {
					tx.Rollback()
					errs <- err
					return
				}
				if _, err := tx.Exec("INSERT INTO t(who, n, kept) VALUES (?, ?, ?)", who, n, keep); err != nil {
					tx.Rollback()
					errs <- err
					return
				}
				var after int
				if err := tx.QueryRow("SELECT count(*) FROM t WHERE who = ?", who).Scan(&after); err != nil || after != before+1 {
					tx.Rollback()
					errs <- fmt.Errorf("%s %d: %d rows of its own after its insert, %d before (%v)", who, n, after, before, err)
					return
				}
				if keep {
					err = tx.Commit()
				} else {
					err = tx.Rollback()
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	// Autocommit writers beside them: the transactions run, at their
	// Commit, the writes queued behind them.
	const autos = 4
	autoErrs := make(chan error, autos)
	for w := 0; w < autos; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < each; n++ {
				if _, err := db.Exec("INSERT INTO t(who, n, kept) VALUES (?, ?, 1)", fmt.Sprint("auto", w), n); err != nil {
					autoErrs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	close(autoErrs)
	for err := range errs {
		t.Error(err)
	}
	for err := range autoErrs {
		t.Error(err)
	}
	var kept, lost int
	if err := db.QueryRow("SELECT count(*), count(*) FILTER (WHERE NOT kept) FROM t").Scan(&kept, &lost); err != nil {
		t.Fatal(err)
	}
	if want := writers*each*4/5 + autos*each; kept != want || lost != 0 {
		t.Errorf("%d rows, %d of them rolled back, want %d and 0", kept, lost, want)
	}
	// Groups form only where two autocommit writes meet in the queue, which
	// the transactions between them make a matter of timing: counted, not
	// asserted.
	g1, u1 := groupCounts()
	t.Logf("%d writes in %d groups", u1-u0, g1-g0)
}

// A group whose COMMIT fails (here: rollback-journal mode, a reader of
// another pool holding its shared lock past the busy timeout) fails every
// write of the group with SQLite's code and a message that says the write is
// not in the database; none of them is.
func TestGroupCommitFailedCommit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "g.db")
	// The busy timeout bounds both the group's COMMIT, which fails at it,
	// and the writes' wait for the turn, which must not: long enough for a
	// loaded machine to hand the turn over.
	db, err := sql.Open("sqlite3", path+"?_journal_mode=DELETE&_txlock=immediate&_busy_timeout=2000&_group_commit=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	testMustExec(t, db, "CREATE TABLE t(v TEXT)")
	testMustExec(t, db, "INSERT INTO t VALUES ('before')")
	readers, err := sql.Open("sqlite3", path+"?_busy_timeout=300")
	if err != nil {
		t.Fatal(err)
	}
	defer readers.Close()
	rows, err := readers.Query("SELECT v FROM t") // an open read: a SHARED lock, which COMMIT cannot outwait
	if err != nil {
		t.Fatal(err)
	}
	if !rows.Next() {
		t.Fatal("no row")
	}
	// The writes queue behind a transaction that holds the turn and ends
	// with a Rollback (its Commit would wait for the reader too); the first
	// of them then runs the group, whose COMMIT cannot get the lock.
	groupsRunLong(t) // both writes in the group that fails
	g := gateOf(t, db)
	hold := holdTurn(t, db)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, v := range []string{"a", "b"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = db.Exec("INSERT INTO t VALUES (?)", v)
		}()
		waitQueued(t, g, i+1)
	}
	g0, u0 := groupCounts()
	if err := hold.Rollback(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	rows.Close()
	if g1, u1 := groupCounts(); g1 != g0 || u1 != u0 {
		t.Errorf("a group that did not commit was counted: %d groups of %d writes", g1-g0, u1-u0)
	}
	for i, err := range errs {
		var e Error
		if !errors.As(err, &e) || e.Code != ErrBusy || !strings.Contains(err.Error(), "not in the database") {
			t.Errorf("write %d: %v, want a busy error that says it is not in the database", i, err)
		}
	}
	var vs string
	if err := readers.QueryRow("SELECT group_concat(v) FROM t").Scan(&vs); err != nil || vs != "before" {
		t.Errorf("rows %q (%v), want only the one from before", vs, err)
	}
	testMustExec(t, db, "INSERT INTO t VALUES ('after')") // the connections go on
}

// A full disk in the middle of groups (PRAGMA max_page_count on every
// connection): every write acknowledged is in the database, every write
// that failed is not, and the file is intact.
func TestGroupCommitDiskFull(t *testing.T) {
	name := registerTestDriver(&SQLiteDriver{ConnectHook: func(c *SQLiteConn) error {
		_, err := c.Exec("PRAGMA max_page_count = 400", nil)
		return err
	}})
	path := filepath.Join(t.TempDir(), "g.db")
	db, err := sql.Open(name, path+groupDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	testMustExec(t, db, "CREATE TABLE t(id INTEGER PRIMARY KEY, v BLOB)")
	var mu sync.Mutex
	acked, failed := map[int64]bool{}, map[int64]bool{}
	full := 0
	var wg sync.WaitGroup
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 60; i++ {
				id := int64(w*1000 + i)
				var err error
				if i%2 == 0 {
					_, err = db.Exec("INSERT INTO t VALUES (?, randomblob(3000))", id)
				} else {
					var tx *sql.Tx
					if tx, err = db.Begin(); err == nil {
						if _, err = tx.Exec("INSERT INTO t VALUES (?, randomblob(3000))", id); err == nil {
							err = tx.Commit()
						} else {
							tx.Rollback()
						}
					}
				}
				mu.Lock()
				if err == nil {
					acked[id] = true
				} else {
					failed[id] = true
					var e Error
					if errors.As(err, &e) && e.Code == ErrFull {
						full++
					} else {
						t.Errorf("write %d: %v, want success or SQLITE_FULL", id, err)
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if full == 0 {
		t.Fatal("the disk never filled")
	}
	var check string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q (%v)", check, err)
	}
	present := map[int64]bool{}
	rows, err := db.Query("SELECT id FROM t")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		rows.Scan(&id)
		present[id] = true
	}
	rows.Close()
	for id := range acked {
		if !present[id] {
			t.Errorf("write %d was acknowledged and is missing", id)
		}
	}
	for id := range failed {
		if present[id] {
			t.Errorf("write %d failed and is in the database", id)
		}
	}
	t.Logf("%d acknowledged, %d failed (SQLITE_FULL)", len(acked), len(failed))
}
