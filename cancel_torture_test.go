//go:build cgo

package sqlite3

// Cancellation torture: thousands of queries, execs and transactions on a
// small pool whose contexts end at random moments (before the call, during
// prepare or the first step, in the middle of a statement, between rows,
// around COMMIT). Every call must return a correct result or an error
// matching context.Canceled/DeadlineExceeded; an earlier cancellation must
// never reach a later statement; no connection may stay in a transaction; no
// goroutine may be left behind.
//
//	CANCEL_TORTURE_OPS=20000 go test -run 'TestCancelTorture' -v .   # default 2000, 300 with -short

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"math/rand"
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

const (
	tortureNums     = 2000 // rows of table nums: x = 1..2000
	tortureHeavy    = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000) SELECT sum(x) FROM c"
	tortureHeavySum = 20000 * 20001 / 2
	// tortureFollow runs after every operation: long enough (some 25,000 VDBE
	// operations) for the progress handler to look at the cancellation word
	// many times.
	tortureFollow    = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000) SELECT sum(x) FROM c"
	tortureFollowSum = 5000 * 5001 / 2
)

func tortureOps(t *testing.T) int {
	if v := os.Getenv("CANCEL_TORTURE_OPS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			t.Fatalf("CANCEL_TORTURE_OPS=%q: want a positive integer", v)
		}
		return n
	}
	if testing.Short() {
		return 300
	}
	return 2000
}

// tortureIsCtxErr reports whether err is the error of an ended context.
func tortureIsCtxErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// When an operation's context ends.
type tortureWhen int

const (
	whenNever  tortureWhen = iota // a cancellable context that is not cancelled: must succeed
	whenBefore                    // cancelled before the call
	whenTimer                     // a deadline 0-3 ms away (sometimes up to 10 ms)
	whenRows                      // cancelled after some rows were read (scans), or between statements
	whenCount
)

var tortureWhenNames = [whenCount]string{"never", "before", "timer", "between"}

// tortureStats counts what happened, by outcome.
type tortureStats struct {
	ops, completed, cancelled, settled atomic.Int64
	byWhen                             [whenCount]atomic.Int64
	cancelledByKind                    sync.Map // kind -> *atomic.Int64
}

func (s *tortureStats) cancel(kind string) {
	s.cancelled.Add(1)
	v, _ := s.cancelledByKind.LoadOrStore(kind, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
}

// tortureOp is one operation: it runs on conn with ctx and returns nil, or an
// error that must be a context error; any other outcome is reported with
// t.Errorf. cancel ends ctx (for whenRows).
type tortureOp struct {
	name string
	run  func(t *testing.T, conn *sql.Conn, ctx context.Context, cancel func(), rng *rand.Rand, id int64) error
}

var tortureOpsList = []tortureOp{
	{"scan", tortureScan},
	{"aggregate", tortureAggregate},
	{"exec", tortureExec},
	{"script", tortureScript},
	{"tx", tortureTx},
	{"tx-statement", tortureTxStatement},
	{"prepared", torturePrepared},
}

func TestCancelTorture(t *testing.T) {
	baseline := runtime.NumGoroutine()
	total := tortureOps(t)
	const workers, poolSize = 4, 3
	path := filepath.Join(t.TempDir(), "torture.db")
	db, err := sql.Open("sqlite3", path+"?_journal_mode=WAL&_txlock=immediate&_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(poolSize)
	if _, err := db.Exec(`CREATE TABLE nums(x INTEGER PRIMARY KEY);
		INSERT INTO nums SELECT value FROM (WITH RECURSIVE c(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM c WHERE value < ?) SELECT value FROM c);
		CREATE TABLE log(op INTEGER NOT NULL, v INTEGER NOT NULL);
		CREATE INDEX log_op ON log(op);
		CREATE TABLE txrows(txid INTEGER NOT NULL, k INTEGER NOT NULL);
		CREATE INDEX txrows_txid ON txrows(txid)`, tortureNums); err != nil {
		t.Fatal(err)
	}

	var stats tortureStats
	var next atomic.Int64
	var wg sync.WaitGroup
	seed := time.Now().UnixNano()
	t.Logf("seed %d, %d operations, %d workers, pool of %d connections", seed, total, workers, poolSize)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(seed + int64(w)))
			for !t.Failed() && next.Load() < int64(total) {
				tortureBatch(t, db, rng, &next, int64(total), &stats)
			}
		}(w)
	}
	wg.Wait()
	if err := db.Close(); err != nil {
		t.Errorf("db.Close: %v", err)
	}
	var kinds []string
	stats.cancelledByKind.Range(func(k, v any) bool {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, v.(*atomic.Int64).Load()))
		return true
	})
	t.Logf("%d operations: %d completed, %d ended by their context (%s); contexts: never %d, before %d, timer %d, between rows/statements %d; %d waits for database/sql's asynchronous rollback",
		stats.ops.Load(), stats.completed.Load(), stats.cancelled.Load(), strings.Join(kinds, ", "),
		stats.byWhen[whenNever].Load(), stats.byWhen[whenBefore].Load(), stats.byWhen[whenTimer].Load(), stats.byWhen[whenRows].Load(), stats.settled.Load())
	if stats.cancelled.Load() == 0 && stats.ops.Load() > 100 {
		t.Error("no operation was cancelled: the torture tortured nothing")
	}
	tortureGoroutines(t, baseline)
}

// tortureGoroutines waits for the goroutine count to come back to baseline.
func tortureGoroutines(t *testing.T, baseline int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		n := runtime.NumGoroutine()
		if n <= baseline {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("%d goroutines left, baseline %d:\n%s", n, baseline, buf)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// tortureBatch takes a connection from the pool (the wait for it may itself
// be cancelled), runs a few operations on it, checking the connection after
// each, and gives it back.
func tortureBatch(t *testing.T, db *sql.DB, rng *rand.Rand, next *atomic.Int64, total int64, stats *tortureStats) {
	ctx := context.Background()
	if rng.Intn(10) == 0 {
		c, cancel := context.WithTimeout(ctx, time.Duration(rng.Intn(500))*time.Microsecond)
		defer cancel()
		ctx = c
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		if !tortureIsCtxErr(err) {
			t.Errorf("db.Conn: %v", err)
		}
		return
	}
	defer conn.Close()
	for n := 1 + rng.Intn(20); n > 0; n-- {
		id := next.Add(1)
		if id > total || t.Failed() {
			return
		}
		op := tortureOpsList[rng.Intn(len(tortureOpsList))]
		when := tortureWhen(rng.Intn(int(whenCount)))
		stats.ops.Add(1)
		stats.byWhen[when].Add(1)
		err := tortureRun(t, conn, op, when, rng, id)
		switch {
		case err == nil:
			stats.completed.Add(1)
		case tortureIsCtxErr(err) && when != whenNever:
			stats.cancel(op.name)
		default:
			t.Errorf("operation %d (%s, context ending %s): %v (%T)", id, op.name, tortureWhenNames[when], err, err)
			return
		}
		if !tortureCheckConn(t, conn, id, op.name, stats) {
			return
		}
	}
}

// tortureRun runs op with a context that ends as when says.
func tortureRun(t *testing.T, conn *sql.Conn, op tortureOp, when tortureWhen, rng *rand.Rand, id int64) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	switch when {
	case whenBefore:
		cancel()
	case whenTimer:
		d := time.Duration(rng.Intn(3000)) * time.Microsecond
		if rng.Intn(5) == 0 {
			d = time.Duration(rng.Intn(10000)) * time.Microsecond
		}
		var c2 func()
		ctx, c2 = context.WithTimeout(ctx, d)
		defer c2()
	}
	between := func() {}
	if when == whenRows {
		between = cancel
	}
	return op.run(t, conn, ctx, between, rng, id)
}

// tortureCheckConn checks the connection after an operation: out of any
// transaction (after database/sql's own rollback of a cancelled Tx, which runs
// in a goroutine of its own), and usable by a statement with no context and by
// a long statement with a live cancellable one. It reports false on failure.
func tortureCheckConn(t *testing.T, conn *sql.Conn, id int64, name string, stats *tortureStats) bool {
	for waited := 0; ; waited++ {
		var auto bool
		if err := conn.Raw(func(dc any) error {
			auto = dc.(*SQLiteConn).AutoCommit()
			return nil
		}); err != nil {
			t.Errorf("operation %d (%s): conn.Raw: %v", id, name, err)
			return false
		}
		if auto {
			if waited > 0 {
				stats.settled.Add(1)
			}
			break
		}
		if waited == 200 {
			t.Errorf("operation %d (%s): connection still in a transaction after the operation ended", id, name)
			return false
		}
		time.Sleep(time.Millisecond)
	}
	var n int64
	if err := conn.QueryRowContext(context.Background(), "SELECT count(*) FROM nums").Scan(&n); err != nil || n != tortureNums {
		t.Errorf("operation %d (%s): next statement (no context) on the same connection: %d, %v", id, name, n, err)
		return false
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var sum int64
	if err := conn.QueryRowContext(ctx, tortureFollow).Scan(&sum); err != nil || sum != tortureFollowSum {
		t.Errorf("operation %d (%s): next long statement (live context) on the same connection: %d, %v", id, name, sum, err)
		return false
	}
	return true
}

// tortureScan reads x = 1..n in order, cancelling between rows for whenRows.
func tortureScan(t *testing.T, conn *sql.Conn, ctx context.Context, cancel func(), rng *rand.Rand, id int64) error {
	n := 1 + rng.Intn(tortureNums)
	stopAt := rng.Intn(n + 1)
	rows, err := conn.QueryContext(ctx, "SELECT x FROM nums WHERE x <= ? ORDER BY x", n)
	if err != nil {
		return err
	}
	defer rows.Close()
	got := 0
	for rows.Next() {
		var x int
		if err := rows.Scan(&x); err != nil {
			// database/sql may close the rows under Scan when the context ends.
			return err
		}
		got++
		if x != got {
			return fmt.Errorf("row %d is %d", got, x)
		}
		if got == stopAt {
			cancel()
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if got != n {
		return fmt.Errorf("%d rows, want %d", got, n)
	}
	return nil
}

// tortureAggregate runs a statement of some 100,000 VDBE operations.
func tortureAggregate(t *testing.T, conn *sql.Conn, ctx context.Context, cancel func(), rng *rand.Rand, id int64) error {
	var sum int64
	if err := conn.QueryRowContext(ctx, tortureHeavy).Scan(&sum); err != nil {
		return err
	}
	if sum != tortureHeavySum {
		return fmt.Errorf("sum %d, want %d", sum, tortureHeavySum)
	}
	return nil
}

// tortureExec inserts 100 rows in one statement: all or nothing.
func tortureExec(t *testing.T, conn *sql.Conn, ctx context.Context, cancel func(), rng *rand.Rand, id int64) error {
	res, err := conn.ExecContext(ctx, "INSERT INTO log(op, v) SELECT ?, x FROM nums WHERE x <= 100", id)
	want := int64(0)
	if err == nil {
		want = 100
		if n, _ := res.RowsAffected(); n != 100 {
			t.Errorf("operation %d: RowsAffected %d, want 100", id, n)
		}
	}
	if got := tortureCount(t, conn, "SELECT count(*) FROM log WHERE op = ?", id); got != want {
		t.Errorf("operation %d: %d rows inserted by a statement that returned %v, want %d", id, got, err, want)
	}
	return err
}

// tortureScript runs three statements in one Exec. Each commits on its own,
// so a cancelled script leaves a prefix of them done, each whole.
func tortureScript(t *testing.T, conn *sql.Conn, ctx context.Context, cancel func(), rng *rand.Rand, id int64) error {
	_, err := conn.ExecContext(ctx, `INSERT INTO log(op, v) VALUES(:op, -1);
		INSERT INTO log(op, v) SELECT :op, x FROM nums WHERE x <= 50;
		INSERT INTO log(op, v) VALUES(:op, -2)`, sql.Named("op", id))
	got := tortureCount(t, conn, "SELECT count(*) FROM log WHERE op = ?", id)
	switch {
	case err == nil && got != 52:
		t.Errorf("operation %d: completed script left %d rows, want 52", id, got)
	case err != nil && got != 0 && got != 1 && got != 51:
		t.Errorf("operation %d: interrupted script left %d rows, want 0, 1 or 51 (whole statements)", id, got)
	}
	return err
}

// tortureTx is a transaction on ctx: three inserts and a commit. Whatever
// Commit returns is the truth: committed means all three rows, anything else
// none.
func tortureTx(t *testing.T, conn *sql.Conn, ctx context.Context, cancel func(), rng *rand.Rand, id int64) error {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	for k := 0; k < 3 && err == nil; k++ {
		_, err = tx.ExecContext(ctx, "INSERT INTO txrows(txid, k) VALUES(?, ?)", id, k)
		if k == 1 {
			cancel()
		}
	}
	if err == nil {
		err = tx.Commit()
	} else {
		_ = tx.Rollback()
	}
	if errors.Is(err, sql.ErrTxDone) && ctx.Err() != nil {
		// database/sql rolled the transaction back as its context ended,
		// just before the statement or Commit looked.
		err = ctx.Err()
	}
	tortureSettle(t, conn, id)
	want := int64(0)
	if err == nil {
		want = 3
	}
	if got := tortureCount(t, conn, "SELECT count(*) FROM txrows WHERE txid = ?", id); got != want {
		t.Errorf("operation %d: transaction that returned %v left %d rows, want %d", id, err, got, want)
	}
	return err
}

// tortureTxStatement is a transaction on a live context whose second
// statement alone runs with ctx. After that statement is cancelled, the
// transaction is only ended (SQLite may have rolled it back already: see
// TestCancelInterruptedStatementEndsTx for what happens if it is used further).
func tortureTxStatement(t *testing.T, conn *sql.Conn, ctx context.Context, cancel func(), rng *rand.Rand, id int64) error {
	tx, err := conn.BeginTx(context.Background(), nil)
	if err != nil {
		t.Errorf("operation %d: BeginTx: %v", id, err)
		return nil
	}
	if _, err := tx.Exec("INSERT INTO txrows(txid, k) VALUES(?, -1)", id); err != nil {
		t.Errorf("operation %d: first insert: %v", id, err)
		tx.Rollback()
		return nil
	}
	cancel()
	_, stmtErr := tx.ExecContext(ctx, "INSERT INTO txrows(txid, k) SELECT ?, x FROM nums WHERE x <= 200", id)
	if stmtErr != nil && !tortureIsCtxErr(stmtErr) {
		tx.Rollback()
		return stmtErr
	}
	commitErr := tx.Commit()
	tortureSettle(t, conn, id)
	got := tortureCount(t, conn, "SELECT count(*) FROM txrows WHERE txid = ?", id)
	switch {
	case commitErr == nil && stmtErr == nil && got != 201:
		t.Errorf("operation %d: committed transaction left %d rows, want 201", id, got)
	case commitErr == nil && stmtErr != nil && got != 1:
		t.Errorf("operation %d: committed transaction with an interrupted statement left %d rows, want 1", id, got)
	case commitErr != nil && stmtErr == nil:
		t.Errorf("operation %d: Commit: %v", id, commitErr)
	case commitErr != nil && got != 0:
		t.Errorf("operation %d: failed commit (%v) left %d rows, want 0", id, commitErr, got)
	case commitErr != nil && !strings.Contains(commitErr.Error(), "already rolled back"):
		t.Errorf("operation %d: Commit after an interrupted statement: %v, want the driver's \"already rolled back\"", id, commitErr)
	}
	return stmtErr
}

// torturePrepared prepares with ctx and queries with ctx.
func torturePrepared(t *testing.T, conn *sql.Conn, ctx context.Context, cancel func(), rng *rand.Rand, id int64) error {
	stmt, err := conn.PrepareContext(ctx, "SELECT x, (SELECT count(*) FROM nums WHERE x <= ?1) FROM nums WHERE x = ?1")
	if err != nil {
		return err
	}
	defer stmt.Close()
	for i := 0; i < 3; i++ {
		want := 1 + rng.Intn(tortureNums)
		var x, n int
		if err := stmt.QueryRowContext(ctx, want).Scan(&x, &n); err != nil {
			return err
		}
		if x != want || n != want {
			return fmt.Errorf("prepared query for %d returned %d, %d", want, x, n)
		}
		cancel()
	}
	return nil
}

// tortureSettle waits until the connection is out of its transaction:
// database/sql rolls back a Tx whose context ended in a goroutine of its own,
// which may not have run when Commit returned the context's error.
func tortureSettle(t *testing.T, conn *sql.Conn, id int64) {
	for i := 0; i < 200; i++ {
		var auto bool
		if err := conn.Raw(func(dc any) error {
			auto = dc.(*SQLiteConn).AutoCommit()
			return nil
		}); err != nil || auto {
			return
		}
		time.Sleep(time.Millisecond)
	}
	t.Errorf("operation %d: connection still in a transaction 200 ms after it ended", id)
}

func tortureCount(t *testing.T, conn *sql.Conn, query string, args ...any) int64 {
	var n int64
	if err := conn.QueryRowContext(context.Background(), query, args...).Scan(&n); err != nil {
		t.Errorf("%s: %v", query, err)
		return -1
	}
	return n
}

// TestCancelInterruptedStatementEndsTx: SQLite rolls back the whole
// transaction when a write statement inside it is interrupted
// (https://sqlite.org/c3ref/interrupt.html), and the connection is then in
// autocommit mode. The database/sql Tx does not know: its context is still
// live. Statements run on it afterwards must not be committed on their own,
// outside any transaction, behind the caller's back.
func TestCancelInterruptedStatementEndsTx(t *testing.T) {
	db := openTestDB(t, testTempPath(t)+"?_journal_mode=WAL")
	testMustExec(t, db, "CREATE TABLE t(x)")
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec("INSERT INTO t VALUES('before')"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = tx.ExecContext(ctx, "INSERT INTO t SELECT sum(x) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT x FROM c)")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("long statement in the transaction: %v, want context.DeadlineExceeded", err)
	}
	_, afterErr := tx.Exec("INSERT INTO t VALUES('after')")
	rbErr := tx.Rollback()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM t WHERE x = 'after'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("a statement run in the transaction after SQLite rolled it back was committed on its own (Exec: %v, Rollback: %v): %d row(s) remain after Rollback", afterErr, rbErr, n)
	}
	if afterErr == nil {
		t.Errorf("Exec in a transaction that SQLite already rolled back succeeded; want an error saying the transaction is over")
	}
}

// TestCancelDuringBusyWait: a statement waiting for another connection's
// write lock (the busy timeout) must stop waiting when its context ends, and
// report the context's error, not SQLITE_BUSY once the whole timeout has run.
func TestCancelDuringBusyWait(t *testing.T) {
	path := testTempPath(t)
	const busyMS = 2000
	holder := openTestDB(t, path+"?_busy_timeout="+strconv.Itoa(busyMS))
	waiter := openTestDB(t, path+"?_busy_timeout="+strconv.Itoa(busyMS))
	testMustExec(t, holder, "CREATE TABLE t(x)")
	lock := testConn(t, holder)
	testMustExec(t, lock, "BEGIN IMMEDIATE")
	defer testMustExec(t, lock, "ROLLBACK")

	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := waiter.ExecContext(ctx, "INSERT INTO t VALUES(1)")
	took := time.Since(start)
	if took > busyMS*time.Millisecond/2 {
		t.Errorf("ExecContext with a 50 ms deadline returned after %v: the busy wait ignored the context (busy timeout %d ms)", took.Round(time.Millisecond), busyMS)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("ExecContext while another connection holds the write lock: %v, want context.DeadlineExceeded", err)
	}
}

// SQLite calls the progress handler once more as sqlite3_step returns, after
// the statement has halted and its changes are made (committed, in autocommit
// mode). A cancellation seen there must not turn the completed statement into
// an "interrupted" error: the caller would believe that a committed INSERT
// failed, or commit a transaction holding a statement it was told had failed
// (found by TestCancelTorture). Here a function marks the operation cancelled
// synchronously while the statement runs. A one-row INSERT has no loop check
// after it, so only the end-of-step call can see the cancellation: the INSERT
// must complete. An INSERT of more rows is stopped in its loop (nothing
// written) or, when no loop check comes before its end, completes. The phase
// of the progress handler's period moves with every run of the cached
// statements, so 400 runs meet every case many times.
func TestCancelAtStatementEndIsNotAnError(t *testing.T) {
	c := rawConn(t, ":memory:")
	ctx := context.Background()
	if err := c.RegisterFunc("cancel_now", func() int64 {
		raise(c.word.p, c.gen) // the running operation's generation
		return 1
	}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(ctx, "CREATE TABLE t(k INTEGER PRIMARY KEY, v)", nil); err != nil {
		t.Fatal(err)
	}
	const (
		insertOne  = "INSERT INTO t(k, v) VALUES (? + 1, cancel_now())"
		insertMany = `WITH RECURSIVE s(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM s WHERE x < ?)
			INSERT INTO t(k, v) SELECT ? + x, cancel_now() FROM s`
	)
	var failed, done int
	for run := range 400 {
		rows, base, tx := int64(1), int64(run*100), run%4 >= 2
		query, args := insertOne, []driver.NamedValue{{Ordinal: 1, Value: base}}
		if run%2 == 1 {
			rows = int64(2 + run%11)
			query, args = insertMany, []driver.NamedValue{{Ordinal: 1, Value: rows}, {Ordinal: 2, Value: base}}
		}
		if tx {
			if _, err := c.ExecContext(ctx, "BEGIN", nil); err != nil {
				t.Fatal(err)
			}
		}
		cctx, cancel := context.WithCancel(ctx)
		_, err := c.ExecContext(cctx, query, args)
		cancel()
		if err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("run %d: %v", run, err)
		}
		if tx {
			_, cerr := c.ExecContext(ctx, "COMMIT", nil)
			if cerr != nil && err == nil {
				t.Fatalf("run %d: COMMIT after a successful INSERT: %v", run, cerr)
			}
		}
		n, qerr := c.queryInt("SELECT count(*) FROM t WHERE k > " + itoa(int(base)) + " AND k < " + itoa(int(base)+100))
		if qerr != nil {
			t.Fatal(qerr)
		}
		switch {
		case err != nil && rows == 1:
			t.Fatalf("run %d (transaction %v): one-row INSERT returned %v (%d rows there): a cancellation seen after its last instruction stopped it", run, tx, err, n)
		case err != nil && n != 0:
			t.Fatalf("run %d (transaction %v): INSERT of %d rows returned %v, but %d rows are there", run, tx, rows, err, n)
		case err == nil && n != rows:
			t.Fatalf("run %d (transaction %v): INSERT of %d rows succeeded, but %d rows are there", run, tx, rows, n)
		case err != nil:
			failed++
		default:
			done++
		}
	}
	t.Logf("400 runs: %d stopped in their loop (nothing written), %d completed", failed, done)
	if failed == 0 || done == 0 {
		t.Error("the runs no longer meet both cases: the test does not exercise the end of a step")
	}
}
