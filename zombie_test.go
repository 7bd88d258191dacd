//go:build cgo

package sqlite3

import (
	"context"
	"testing"
)

// A writable blob left open keeps the database alive after Close (a zombie,
// sqlite3_close_v2); closing the blob then commits its write, which may wait
// on a lock. The busy handler (and, when it gives up, the
// rollback hook) then runs after the connection's bridge_conn
// was freed, and must not read it (the ASan step of CI reports such a read).
func TestBusyHandlerAfterCloseWithOpenBlob(t *testing.T) {
	path := testTempPath(t)
	dsn := "file:" + path + "?_journal_mode=DELETE"
	d := &SQLiteDriver{}
	dc, err := d.Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	w := dc.(*SQLiteConn)
	defer w.Close()
	ctx := context.Background()
	for _, q := range []string{"CREATE TABLE b(x BLOB)", "INSERT INTO b VALUES (zeroblob(100))"} {
		if _, err := w.ExecContext(ctx, q, nil); err != nil {
			t.Fatal(err)
		}
	}
	// The last operation was cancellable: the progress handler is installed.
	cctx, cancel := context.WithCancel(ctx)
	if _, err := w.ExecContext(cctx, "SELECT 1", nil); err != nil {
		t.Fatal(err)
	}
	cancel()
	asked := 0
	if err := w.SetBusyHandler(func(int) bool { asked++; return asked < 3 }); err != nil {
		t.Fatal(err)
	}
	// A panic of a hook makes the driver interrupt the connection: during
	// the zombie's rollback it must not reach the freed handle either.
	rolledBack := false
	w.RegisterRollbackHook(func() { rolledBack = true; panic("rollback hook") })
	blob, err := w.OpenBlob("", "b", "x", 1, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := blob.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	// Another connection reads: its SHARED lock keeps the blob's commit
	// from taking the EXCLUSIVE lock it needs.
	dr, err := d.Open(dsn)
	if err != nil {
		t.Fatal(err)
	}
	r := dr.(*SQLiteConn)
	defer r.Close()
	rows, err := r.QueryContext(ctx, "SELECT x FROM b", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil { // closes the blob: its commit waits
		t.Fatal(err)
	}
	if asked == 0 || !rolledBack {
		t.Fatalf("busy handler asked %d times, rolled back: %v; the test did not wait on a lock and give up", asked, rolledBack)
	}
	rows.Close()
}
