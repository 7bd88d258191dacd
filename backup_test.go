//go:build cgo

package sqlite3

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hkFill creates table t with n rows of about 1 KiB each.
func hkFill(t testing.TB, c *SQLiteConn, n int) {
	t.Helper()
	hkExec(t, c, "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)")
	hkExec(t, c, "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM s WHERE i < ?) INSERT INTO t SELECT i, printf('%.1000c', 'x') FROM s", n)
}

func TestBackupMemory(t *testing.T) {
	src := hkOpen(t, ":memory:")
	hkFill(t, src, 50)
	dst := hkOpen(t, ":memory:")
	hkExec(t, dst, "CREATE TABLE old(x)")
	b, err := dst.Backup("main", src, "main")
	if err != nil {
		t.Fatal(err)
	}
	if b.PageCount() != 0 || b.Remaining() != 0 {
		t.Errorf("before Step: PageCount %d Remaining %d", b.PageCount(), b.Remaining())
	}
	done, err := b.Step(-1)
	if err != nil || !done {
		t.Fatalf("Step(-1) = %v, %v", done, err)
	}
	if b.Remaining() != 0 || b.PageCount() < 10 {
		t.Errorf("after Step(-1): Remaining %d PageCount %d", b.Remaining(), b.PageCount())
	}
	if err := b.Finish(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := b.Step(1); err == nil {
		t.Error("Step after Finish: no error")
	}
	if n := hkQueryInt(t, dst, "SELECT count(*) FROM t"); n != 50 {
		t.Fatalf("dst rows = %d, want 50", n)
	}
	if n := hkQueryInt(t, dst, "SELECT count(*) FROM sqlite_schema WHERE name = 'old'"); n != 0 {
		t.Fatal("the destination's old content survived the backup")
	}
	// "" names "main".
	dst2 := hkOpen(t, ":memory:")
	b2, err := dst2.Backup("", src, "")
	if err != nil {
		t.Fatal(err)
	}
	if done, err := b2.Step(-1); !done || err != nil {
		t.Fatalf("Step = %v, %v", done, err)
	}
	if err := b2.Finish(); err != nil {
		t.Fatal(err)
	}
	if n := hkQueryInt(t, dst2, "SELECT count(*) FROM t"); n != 50 {
		t.Fatalf("dst2 rows = %d, want 50", n)
	}
}

func TestBackupErrors(t *testing.T) {
	src := hkOpen(t, ":memory:")
	dst := hkOpen(t, ":memory:")
	if _, err := dst.Backup("nosuch", src, "main"); err == nil || !strings.Contains(err.Error(), "nosuch") {
		t.Fatalf("backup into an unknown database: %v", err)
	}
	if _, err := dst.Backup("main", src, "nosuch"); err == nil {
		t.Fatal("backup from an unknown database: no error")
	}
	if _, err := dst.Backup("main", dst, "main"); err == nil {
		t.Fatal("backup of a database onto itself: no error")
	}
	// The destination must not be inside a read transaction.
	hkFill(t, src, 1)
	hkExec(t, dst, "CREATE TABLE x(y); INSERT INTO x VALUES(1)")
	rows, err := dst.QueryContext(context.Background(), "SELECT y FROM x", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dst.Backup("main", src, "main"); err == nil {
		t.Error("backup into a database with a read in progress: no error")
	}
	rows.Close()
}

// The source keeps serving writes while the backup runs, through other
// connections and through the source connection itself; the copy ends up
// equal to the source's final state.
func TestBackupOnline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "src.db")
	src := hkOpen(t, path)
	hkFill(t, src, 400)
	writer := hkOpen(t, path)
	dst := hkOpen(t, filepath.Join(t.TempDir(), "dst.db"))

	b, err := dst.Backup("main", src, "main")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Finish()
	steps := 0
	for {
		done, err := b.Step(20)
		if err != nil {
			t.Fatal(err)
		}
		steps++
		if done {
			break
		}
		switch steps {
		case 3:
			// Another connection writes: the backup starts over at the next step.
			hkExec(t, writer, "INSERT INTO t(v) VALUES('from writer')")
		case 5:
			// The source connection writes: the change is copied along.
			hkExec(t, src, "UPDATE t SET v = 'from src' WHERE id = 1")
		case 7:
			hkExec(t, writer, "DELETE FROM t WHERE id = 2")
		}
		if steps > 1000 {
			t.Fatal("backup does not finish")
		}
	}
	if steps < 8 {
		t.Fatalf("backup finished after %d steps; the writes were not interleaved", steps)
	}
	if err := b.Finish(); err != nil {
		t.Fatal(err)
	}
	q := "SELECT count(*) || ':' || sum(length(v)) || ':' || (SELECT v FROM t WHERE id = 1) || ':' || (SELECT count(*) FROM t WHERE v = 'from writer') FROM t"
	want := hkQuery(t, src, q)[0]
	got := hkQuery(t, dst, q)[0]
	if got != want {
		t.Fatalf("backup %v, source %v", got, want)
	}
	if v := hkQuery(t, dst, "PRAGMA quick_check"); len(v) != 1 || v[0] != "ok" {
		t.Fatalf("quick_check of the copy: %v", v)
	}
}

func TestBackupRun(t *testing.T) {
	src := hkOpen(t, ":memory:")
	hkFill(t, src, 100)
	dst := hkOpen(t, ":memory:")
	b, err := dst.Backup("main", src, "main")
	if err != nil {
		t.Fatal(err)
	}
	var remaining []int
	total := 0
	err = b.Run(context.Background(), 10, time.Millisecond, func(rem, pages int) {
		remaining = append(remaining, rem)
		total = pages
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Finish(); err != nil {
		t.Fatal(err)
	}
	if len(remaining) < total/10 || remaining[len(remaining)-1] != 0 {
		t.Fatalf("progress %v of %d pages", remaining, total)
	}
	for i := 1; i < len(remaining); i++ {
		if remaining[i] >= remaining[i-1] {
			t.Fatalf("remaining did not decrease: %v", remaining)
		}
	}
	if n := hkQueryInt(t, dst, "SELECT count(*) FROM t"); n != 100 {
		t.Fatalf("rows = %d", n)
	}

	// A done context stops Run; the backup can then be resumed.
	dst2 := hkOpen(t, ":memory:")
	b2, err := dst2.Backup("main", src, "main")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	steps := 0
	err = b2.Run(ctx, 1, time.Millisecond, func(int, int) {
		if steps++; steps == 3 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || steps != 3 {
		t.Fatalf("Run with a cancelled context: %v after %d steps", err, steps)
	}
	if err := b2.Run(context.Background(), 0, 0, nil); err != nil {
		t.Fatal(err)
	}
	if err := b2.Finish(); err != nil {
		t.Fatal(err)
	}
	if n := hkQueryInt(t, dst2, "SELECT count(*) FROM t"); n != 100 {
		t.Fatalf("rows = %d", n)
	}
}

// A busy source is retried, not an error.
func TestBackupBusySource(t *testing.T) {
	path := filepath.Join(t.TempDir(), "src.db")
	src := hkOpen(t, path+"?_busy_timeout=0")
	hkFill(t, src, 10)
	locker := hkOpen(t, path)
	hkExec(t, locker, "BEGIN EXCLUSIVE")
	dst := hkOpen(t, ":memory:")
	b, err := dst.Backup("main", src, "main")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Finish()
	if done, err := b.Step(-1); done || err != nil {
		t.Fatalf("Step on a locked source = %v, %v; want false, nil", done, err)
	}
	hkExec(t, locker, "COMMIT")
	if done, err := b.Step(-1); !done || err != nil {
		t.Fatalf("Step after the lock ended = %v, %v", done, err)
	}
}
