//go:build cgo

package sqlite3

import (
	"bytes"
	"context"
	"database/sql/driver"
	"io"
	"os"
	"strings"
	"testing"
)

const oomChildEnv = "FASTSQLITE_OOM_CHILD"

// Running out of memory while SQLite converts a value to TEXT (here from a
// UTF-16 database's encoding to UTF-8) is an SQLITE_NOMEM error, never a
// NULL the database does not hold. SQLite's hard heap limit needs memory
// statistics, which can only be turned on before SQLite initializes: the
// test runs in a fresh process.
func TestTextOutOfMemoryIsAnError(t *testing.T) {
	if os.Getenv(oomChildEnv) != "" {
		t.Skip("inside the child")
	}
	cmd := testBinaryCommand("-test.run=^TestTextOutOfMemoryChild$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), oomChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("--- PASS: TestTextOutOfMemoryChild")) {
		t.Fatalf("child: %v\n%s", err, out)
	}
}

func TestTextOutOfMemoryChild(t *testing.T) {
	if os.Getenv(oomChildEnv) == "" {
		t.Skip("helper process of TestTextOutOfMemoryIsAnError")
	}
	if err := enableMemStats(); err != nil {
		t.Fatal(err)
	}
	dc, err := (&SQLiteDriver{}).Open(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	c := dc.(*SQLiteConn)
	defer c.Close()
	ctx := context.Background()
	text := strings.Repeat("x", 1<<20)
	for _, q := range []string{"PRAGMA encoding = 'UTF-16le'", "CREATE TABLE t(x TEXT)"} {
		if _, err := c.ExecContext(ctx, q, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.ExecContext(ctx, "INSERT INTO t VALUES (?)", []driver.NamedValue{{Ordinal: 1, Value: text}}); err != nil {
		t.Fatal(err)
	}
	// squeeze() runs after x is read (in UTF-16) and before the row is
	// described, which converts x to UTF-8: 1 MB that the limit refuses.
	if err := c.RegisterFunc("squeeze", func() int64 {
		hardHeapLimit(memoryUsed() + 64<<10)
		return 1
	}, false); err != nil {
		t.Fatal(err)
	}
	// The second query fails on a row stepped ahead (bridge_step_batch).
	for _, q := range []string{"SELECT x, squeeze() FROM t", "SELECT 'a', 1 UNION ALL SELECT x, squeeze() FROM t"} {
		rows, err := c.QueryContext(ctx, q, nil)
		if err == nil {
			dest := make([]driver.Value, 2)
			for err == nil {
				if err = rows.Next(dest); err == nil && dest[0] == nil {
					err = driverError("TEXT value read as NULL")
				}
			}
			rows.Close()
		}
		hardHeapLimit(0)
		if err == io.EOF {
			t.Fatalf("%s: every row read with the heap limit; the test did not run out of memory", q)
		}
		if e := testAsError(t, err); e.Code != ErrNomem {
			t.Fatalf("%s: %v, want ErrNomem", q, err)
		}
	}
	// The connection recovers.
	var n int64
	rows, err := c.QueryContext(ctx, "SELECT length(x) FROM t", nil)
	if err != nil {
		t.Fatal(err)
	}
	dest := make([]driver.Value, 1)
	if err := rows.Next(dest); err != nil {
		t.Fatal(err)
	}
	n = dest[0].(int64)
	rows.Close()
	if n != 1<<20 {
		t.Fatalf("length %d", n)
	}
}
