//go:build cgo

package sqlite3

import (
	"bufio"
	"context"
	"database/sql"
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

// The tests of LockHolder (lockholder.go, bridge_share_holder.c): every
// "database is locked" names who held the lock.

const lockHolderChildEnv = "FASTSQLITE_LOCKHOLDER_CHILD"

// connID is the driver connection's ID.
func connID(t testing.TB, c *sql.Conn) int64 {
	t.Helper()
	var id int64
	if err := c.Raw(func(dc any) error { id = dc.(*SQLiteConn).ID(); return nil }); err != nil {
		t.Fatal(err)
	}
	return id
}

// holderOf requires err to be ErrBusy with a LockHolder, and returns it.
func holderOf(t testing.TB, err error) *LockHolder {
	t.Helper()
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("err = %v, want ErrBusy", err)
	}
	var h *LockHolder
	if !errors.As(err, &h) {
		t.Fatalf("errors.As(%v, *LockHolder) = false", err)
	}
	return h
}

func lockHolderDB(t testing.TB, journal, extra string) (*sql.DB, string) {
	t.Helper()
	path := testTempPath(t)
	db := openTestDB(t, "file:"+path+"?_journal_mode="+journal+"&_busy_timeout=100"+extra)
	if _, err := db.Exec("CREATE TABLE IF NOT EXISTS accounts (id INTEGER PRIMARY KEY, balance INTEGER); INSERT OR IGNORE INTO accounts VALUES (1, 0), (2, 0)"); err != nil {
		t.Fatal(err)
	}
	return db, path
}

// holdWrite takes the write lock on a connection of db with BEGIN
// IMMEDIATE and an UPDATE, and returns the connection and when it began.
func holdWrite(t testing.TB, db *sql.DB, pragma string) (*sql.Conn, time.Time) {
	t.Helper()
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.ExecContext(ctx, "ROLLBACK"); c.Close() })
	if pragma != "" {
		if _, err := c.ExecContext(ctx, pragma); err != nil {
			t.Fatal(err)
		}
	}
	began := time.Now()
	if _, err := c.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(ctx, "UPDATE accounts SET balance = balance + 1 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	return c, began
}

func checkInProcess(t *testing.T, err error, id int64, began time.Time) {
	t.Helper()
	h := holderOf(t, err)
	if !h.InProcess || h.Conn != id || h.Reading || h.PID != 0 {
		t.Fatalf("holder = %+v, want connection %d of this process", h, id)
	}
	if want := "UPDATE accounts SET balance = balance + 1 WHERE id = 1"; h.TxSQL != want {
		t.Errorf("TxSQL = %q, want %q", h.TxSQL, want)
	}
	if h.Since.Before(began.Add(-time.Millisecond)) || h.Since.After(time.Now()) || h.Held <= 0 {
		t.Errorf("Since = %v, Held = %v; began at %v", h.Since, h.Held, began)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "database is locked (held ") || !strings.Contains(msg, fmt.Sprintf("by connection %d of this process, in a transaction begun with \"UPDATE accounts", id)) {
		t.Errorf("message %q", msg)
	}
}

// The connection that waits takes the write turn in Go (gate.go) and runs
// out of time there.
func TestLockHolderTurnTimeout(t *testing.T) {
	for _, journal := range []string{"WAL", "DELETE"} {
		t.Run(journal, func(t *testing.T) {
			db, _ := lockHolderDB(t, journal, "")
			c, began := holdWrite(t, db, "")
			_, err := db.Exec("UPDATE accounts SET balance = 0 WHERE id = 2")
			checkInProcess(t, err, connID(t, c), began)
			st, _ := Stats(context.Background(), db)
			if st.BusyErrors != 1 || st.BusyNamed != 1 {
				t.Errorf("BusyErrors %d, BusyNamed %d; want 1, 1", st.BusyErrors, st.BusyNamed)
			}
		})
	}
}

// The holder takes no turn (PRAGMA busy_timeout puts SQLite's own handler
// in place): the waiter gets the turn, and waits for the lock in the
// bridge's busy handler.
func TestLockHolderBusyHandler(t *testing.T) {
	for _, journal := range []string{"WAL", "DELETE"} {
		t.Run(journal, func(t *testing.T) {
			db, _ := lockHolderDB(t, journal, "")
			c, began := holdWrite(t, db, "PRAGMA busy_timeout = 5000")
			_, err := db.Exec("UPDATE accounts SET balance = 0 WHERE id = 2")
			checkInProcess(t, err, connID(t, c), began)
		})
	}
}

// The waiter has SQLite's own busy handler, and a pool of its own.
func TestLockHolderSQLiteBusyTimeout(t *testing.T) {
	db, path := lockHolderDB(t, "WAL", "")
	c, began := holdWrite(t, db, "")
	other := openTestDB(t, "file:"+path+"?_busy_timeout=5000")
	oc, err := other.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer oc.Close()
	if _, err := oc.ExecContext(context.Background(), "PRAGMA busy_timeout = 100"); err != nil {
		t.Fatal(err)
	}
	_, err = oc.ExecContext(context.Background(), "DELETE FROM accounts WHERE id = 2")
	checkInProcess(t, err, connID(t, c), began)
}

// With a tracer, the holder says where its caller began the transaction
// (BeginTx) or the statement that holds the lock.
func TestLockHolderSite(t *testing.T) {
	_, path := lockHolderDB(t, "WAL", "")
	db := openTraced(t, "file:"+path+"?_busy_timeout=100", &recTracer{})
	ctx := context.Background()
	c := testConn(t, db)
	_, file, line, _ := runtime.Caller(0)
	tx, err := c.BeginTx(ctx, nil) // the site: the line after runtime.Caller's
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec("UPDATE accounts SET balance = balance + 1 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec("UPDATE accounts SET balance = 0 WHERE id = 2")
	h := holderOf(t, err)
	want := filepath.Join(filepath.Base(filepath.Dir(file)), filepath.Base(file)) + ":" + strconv.Itoa(line+1)
	if !h.InProcess || h.Conn != connID(t, c) || h.Site != want || !strings.HasSuffix(err.Error(), " at "+want+")") {
		t.Errorf("holder %+v, error %q; want connection %d begun at %s", h, err, connID(t, c), want)
	}
	// An untraced pool's holder has no site.
	db2, _ := lockHolderDB(t, "WAL", "")
	c2 := testConn(t, db2)
	if _, err := c2.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer c2.ExecContext(ctx, "ROLLBACK")
	_, err = db2.Exec("UPDATE accounts SET balance = 0 WHERE id = 2")
	if h := holderOf(t, err); h.Site != "" {
		t.Errorf("an untraced holder has site %q", h.Site)
	}
}

// A transaction that read first, whose snapshot another connection's commit
// made stale, is refused its write (SQLITE_BUSY_SNAPSHOT) once nobody holds
// the lock: the connection that committed is named, although SQLite took the
// lock for the refused write before it compared the snapshots.
func TestLockHolderStaleSnapshot(t *testing.T) {
	db, _ := lockHolderDB(t, "WAL", "")
	ctx := context.Background()
	w := testConn(t, db)
	if _, err := w.ExecContext(ctx, "UPDATE accounts SET balance = 5 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRow("SELECT count(*) FROM accounts").Scan(&n); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	if _, err := w.ExecContext(ctx, "UPDATE accounts SET balance = balance + 1 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	_, err = tx.Exec("UPDATE accounts SET balance = 0 WHERE id = 2")
	var e Error
	if !errors.As(err, &e) || e.ExtendedCode != ErrBusySnapshot {
		t.Fatalf("the stale write: %v, want SQLITE_BUSY_SNAPSHOT", err)
	}
	h := holderOf(t, err)
	if !h.InProcess || h.Conn != connID(t, w) || h.Since.Before(began.Add(-time.Millisecond)) {
		t.Errorf("holder %+v of %v; want connection %d, which committed after the read", h, err, connID(t, w))
	}
	if want := "UPDATE accounts SET balance = balance + 1 WHERE id = 1"; h.TxSQL != want {
		t.Errorf("TxSQL = %q, want %q", h.TxSQL, want)
	}
}

// A transaction that read first is refused its write at once: the text
// that says why stays, and the holder follows.
func TestLockHolderUpgrade(t *testing.T) {
	db, _ := lockHolderDB(t, "WAL", "")
	c, began := holdWrite(t, db, "")
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRow("SELECT count(*) FROM accounts").Scan(&n); err != nil {
		t.Fatal(err)
	}
	_, err = tx.Exec("UPDATE accounts SET balance = 0 WHERE id = 2")
	checkInProcess(t, err, connID(t, c), began)
	if !strings.Contains(err.Error(), upgradeBusyHint) {
		t.Errorf("message %q lost the upgrade's explanation", err)
	}
}

// A transaction whose BEGIN took the lock is named by its next statement;
// one longer than 200 bytes is cut.
func TestLockHolderLongSQL(t *testing.T) {
	db, _ := lockHolderDB(t, "WAL", "")
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	defer c.ExecContext(ctx, "ROLLBACK")
	if _, err := c.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	long := "UPDATE accounts SET balance = 1 WHERE id = 1 /* " + strings.Repeat("é", 150) + " */"
	if _, err := c.ExecContext(ctx, long); err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec("UPDATE accounts SET balance = 0 WHERE id = 2")
	h := holderOf(t, err)
	if !strings.HasSuffix(h.TxSQL, "...") || len(h.TxSQL) > 203 || !strings.HasPrefix(long, strings.TrimSuffix(h.TxSQL, "...")) {
		t.Errorf("TxSQL = %q", h.TxSQL)
	}
}

// In rollback-journal mode a commit waits for the readers: a Rows left
// open is named as a reader.
func TestLockHolderReader(t *testing.T) {
	db, _ := lockHolderDB(t, "DELETE", "")
	if _, err := db.Exec("WITH RECURSIVE n(i) AS (SELECT 3 UNION ALL SELECT i+1 FROM n WHERE i < 100) INSERT INTO accounts SELECT i, 0 FROM n"); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rc, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	rows, err := rc.QueryContext(ctx, "SELECT id FROM accounts")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	rows.Next()
	_, err = db.Exec("UPDATE accounts SET balance = 0 WHERE id = 2")
	h := holderOf(t, err)
	t.Logf("%v", err)
	if !h.InProcess || !h.Reading || h.Conn != connID(t, rc) {
		t.Fatalf("holder = %+v, want connection %d reading", h, connID(t, rc))
	}
}

// lockHolderChild is another process holding the write lock: it prints
// "ready <pid>" once it holds it, and lets go when its stdin closes.
func lockHolderChild(t *testing.T) {
	spec := os.Getenv(lockHolderChildEnv)
	path, mode, _ := strings.Cut(spec, "|")
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	in := bufio.NewReader(os.Stdin)
	for {
		if _, err := c.ExecContext(context.Background(), "BEGIN "+mode); err != nil {
			t.Fatal(err)
		}
		if _, err := c.ExecContext(context.Background(), "UPDATE accounts SET balance = balance + 1 WHERE id = 1"); err != nil {
			t.Fatal(err)
		}
		fmt.Printf("ready %d\n", os.Getpid())
		// Each line read lets go and takes the lock again; EOF ends.
		line, err := in.ReadString('\n')
		c.ExecContext(context.Background(), "COMMIT")
		if err != nil || line == "quit\n" {
			return
		}
		fmt.Printf("released\n")
		if line == "pause\n" {
			in.ReadString('\n')
		}
	}
}

type childHolder struct {
	pid  int
	in   interface{ Write([]byte) (int, error) }
	out  *bufio.Reader
	wait func() error
}

func startLockHolderChild(t testing.TB, path, mode string) *childHolder {
	t.Helper()
	cmd := testBinaryCommand("-test.run=^TestLockHolderChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), lockHolderChildEnv+"="+path+"|"+mode)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outp, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ch := &childHolder{in: in, out: bufio.NewReader(outp), wait: cmd.Wait}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	ch.pid = ch.expectReady(t)
	return ch
}

func (ch *childHolder) expectReady(t testing.TB) int {
	t.Helper()
	line, err := ch.out.ReadString('\n')
	if err != nil {
		t.Fatalf("child: %v (%q)", err, line)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "ready ")))
	if err != nil {
		t.Fatalf("child said %q", line)
	}
	return pid
}

func TestLockHolderChild(t *testing.T) {
	if os.Getenv(lockHolderChildEnv) == "" {
		t.Skip("helper process of TestLockHolderProcess")
	}
	lockHolderChild(t)
}

// Another process holds the lock: its PID is named (F_GETLK).
func TestLockHolderProcess(t *testing.T) {
	if os.Getenv(lockHolderChildEnv) != "" {
		t.Skip("inside the child")
	}
	if runtime.GOOS != "linux" {
		t.Skip("F_GETLK's PID is tested on Linux")
	}
	if !bundledSQLite {
		t.Skip("F_GETLK needs the bundled SQLite's file descriptors")
	}
	for _, tc := range []struct{ journal, mode string }{{"WAL", "IMMEDIATE"}, {"DELETE", "IMMEDIATE"}, {"DELETE", "EXCLUSIVE"}, {"WAL", "EXCLUSIVE"}} {
		t.Run(tc.journal+"/"+tc.mode, func(t *testing.T) {
			db, path := lockHolderDB(t, tc.journal, "")
			ch := startLockHolderChild(t, path, tc.mode)
			_, err := db.Exec("UPDATE accounts SET balance = 0 WHERE id = 2")
			h := holderOf(t, err)
			t.Logf("%v", err)
			if h.InProcess || h.PID != ch.pid {
				t.Fatalf("holder = %+v, want process %d", h, ch.pid)
			}
			if want := fmt.Sprintf("database is locked (held by process %d)", ch.pid); err.Error() != want {
				t.Errorf("message %q, want %q", err, want)
			}
		})
	}
}

// The torture: writers, long transactions, Rows left open, deferred
// upgrades and another process, for LOCKHOLDER_TORTURE (default 2s). Every
// lock error must name a holder, and the right one: a connection whose
// hold of the lock overlapped the failed call, or the other process.
func TestLockHolderTorture(t *testing.T) {
	if os.Getenv(lockHolderChildEnv) != "" {
		t.Skip("inside the child")
	}
	d := 2 * time.Second
	if testing.Short() {
		d = 500 * time.Millisecond
	}
	if v := os.Getenv("LOCKHOLDER_TORTURE"); v != "" {
		var err error
		if d, err = time.ParseDuration(v); err != nil {
			t.Fatal(err)
		}
	}
	withProcess := runtime.GOOS == "linux" && bundledSQLite
	for _, journal := range []string{"WAL", "DELETE"} {
		t.Run(journal, func(t *testing.T) { lockHolderTorture(t, journal, d, withProcess) })
	}
}

type holdSpan struct {
	conn       int64
	start, end time.Time // end zero: still held
}

type holdLog struct {
	mu    sync.Mutex
	spans []holdSpan
}

func (l *holdLog) begin(conn int64) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.spans = append(l.spans, holdSpan{conn: conn, start: time.Now()})
	return len(l.spans) - 1
}

func (l *holdLog) end(i int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.spans[i].end = time.Now()
}

// held reports whether conn held (or tried to hold) the lock at some time
// in [from, to].
func (l *holdLog) held(conn int64, from, to time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, s := range l.spans {
		if s.conn == conn && !s.start.After(to) && (s.end.IsZero() || !s.end.Before(from)) {
			return true
		}
	}
	return false
}

func lockHolderTorture(t *testing.T, journal string, d time.Duration, withProcess bool) {
	db, path := lockHolderDB(t, journal, "")
	db.SetMaxOpenConns(12)
	var log holdLog
	var childPID atomic.Int64
	var total, named, right atomic.Int64
	var mu sync.Mutex
	var wrong []string
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()

	// check judges one lock error of a call made in [from, to].
	check := func(err error, from time.Time, what string) {
		if !errors.Is(err, ErrBusy) {
			return
		}
		total.Add(1)
		var h *LockHolder
		if !errors.As(err, &h) || !h.Named() {
			mu.Lock()
			wrong = append(wrong, what+": unnamed: "+err.Error())
			mu.Unlock()
			return
		}
		named.Add(1)
		to := time.Now()
		ok := (h.InProcess && log.held(h.Conn, from, to)) || (!h.InProcess && h.PID != 0 && int64(h.PID) == childPID.Load())
		if ok {
			right.Add(1)
			return
		}
		mu.Lock()
		wrong = append(wrong, fmt.Sprintf("%s: wrong holder %+v: %v", what, *h, err))
		mu.Unlock()
	}

	// The other process first: its PID is known before any error can name it.
	var ch *childHolder
	if withProcess {
		ch = startLockHolderChild(t, path, "IMMEDIATE")
		childPID.Store(int64(ch.pid))
	}
	var wg sync.WaitGroup
	run := func(f func(c *sql.Conn, id int64)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := db.Conn(context.Background())
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			f(c, connID(t, c))
		}()
	}
	bg := context.Background()
	// A transaction: its hold is logged from before BEGIN IMMEDIATE to
	// after its end.
	tx := func(c *sql.Conn, id int64, hold time.Duration, what string) {
		from := time.Now()
		i := log.begin(id)
		defer log.end(i)
		if _, err := c.ExecContext(bg, "BEGIN IMMEDIATE"); err != nil {
			check(err, from, what+" BEGIN")
			return
		}
		if _, err := c.ExecContext(bg, "UPDATE accounts SET balance = balance + 1 WHERE id = ?", id%2+1); err != nil {
			check(err, from, what+" UPDATE")
		}
		time.Sleep(hold)
		if _, err := c.ExecContext(bg, "COMMIT"); err != nil {
			check(err, from, what+" COMMIT")
			c.ExecContext(bg, "ROLLBACK")
		}
	}
	for range 4 { // writers
		run(func(c *sql.Conn, id int64) {
			for ctx.Err() == nil {
				tx(c, id, time.Millisecond, "writer")
			}
		})
	}
	run(func(c *sql.Conn, id int64) { // long transactions
		for ctx.Err() == nil {
			tx(c, id, 150*time.Millisecond, "long")
			time.Sleep(20 * time.Millisecond)
		}
	})
	run(func(c *sql.Conn, id int64) { // deferred upgrades
		for ctx.Err() == nil {
			from := time.Now()
			i := log.begin(id)
			if _, err := c.ExecContext(bg, "BEGIN"); err == nil {
				var n int
				if err := c.QueryRowContext(bg, "SELECT count(*) FROM accounts").Scan(&n); err != nil {
					check(err, from, "upgrade SELECT")
				}
				if _, err := c.ExecContext(bg, "UPDATE accounts SET balance = 0 WHERE id = 2"); err != nil {
					check(err, from, "upgrade")
				}
				if _, err := c.ExecContext(bg, "COMMIT"); err != nil {
					check(err, from, "upgrade COMMIT")
					c.ExecContext(bg, "ROLLBACK")
				}
			}
			log.end(i)
			time.Sleep(5 * time.Millisecond)
		}
	})
	run(func(c *sql.Conn, id int64) { // Rows left open for a while
		for ctx.Err() == nil {
			i := log.begin(id)
			rows, err := c.QueryContext(bg, "SELECT id FROM accounts")
			if err != nil {
				check(err, time.Now(), "reader")
			} else {
				rows.Next()
				time.Sleep(30 * time.Millisecond)
				rows.Close()
			}
			log.end(i)
			time.Sleep(30 * time.Millisecond)
		}
	})
	if ch != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				time.Sleep(100 * time.Millisecond)
				ch.in.Write([]byte("pause\n")) // let go, and wait
				ch.out.ReadString('\n')        // released
				time.Sleep(200 * time.Millisecond)
				ch.in.Write([]byte("go\n")) // take it again
				ch.expectReady(t)
			}
			ch.in.Write([]byte("quit\n"))
		}()
	}
	wg.Wait()
	st, _ := Stats(bg, db)
	t.Logf("%s: %d lock errors, %d named, %d named the right holder; FileStats: BusyErrors %d, BusyNamed %d",
		journal, total.Load(), named.Load(), right.Load(), st.BusyErrors, st.BusyNamed)
	for i, w := range wrong {
		if i == 20 {
			t.Errorf("... and %d more", len(wrong)-20)
			break
		}
		t.Error(w)
	}
	if total.Load() == 0 {
		t.Error("no lock errors: the torture tortured nothing")
	}
}
