//go:build cgo

package sqlite3

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestZeroBlobBinding(t *testing.T) {
	db := openTestDB(t, "file:"+testTempPath(t))
	testMustExec(t, db, "CREATE TABLE f(name TEXT, data BLOB)")
	testMustExec(t, db, "INSERT INTO f VALUES(?, ?)", "big", ZeroBlob(1<<20))
	testMustExec(t, db, "INSERT INTO f VALUES(?, ?)", "empty", ZeroBlob(0))
	var typ string
	var n int64
	if err := db.QueryRow("SELECT typeof(data), length(data) FROM f WHERE name = 'big'").Scan(&typ, &n); err != nil {
		t.Fatal(err)
	}
	if typ != "blob" || n != 1<<20 {
		t.Fatalf("ZeroBlob(1 MiB) stored as %s of %d bytes", typ, n)
	}
	var b []byte
	if err := db.QueryRow("SELECT data FROM f WHERE name = 'empty'").Scan(&b); err != nil || b == nil || len(b) != 0 {
		t.Fatalf("ZeroBlob(0) read back as %#v (%v), want an empty BLOB", b, err)
	}
	if _, err := db.Exec("INSERT INTO f VALUES('neg', ?)", ZeroBlob(-1)); err == nil || !strings.Contains(err.Error(), "negative") {
		t.Fatalf("negative ZeroBlob: %v", err)
	}
	if _, err := db.Exec("INSERT INTO f VALUES('huge', ?)", ZeroBlob(maxLength+1)); !errors.Is(err, ErrTooBig) {
		t.Fatalf("ZeroBlob past SQLITE_LIMIT_LENGTH: %v, want ErrTooBig", err)
	}
	// A prepared statement binds it too.
	st, err := db.Prepare("SELECT length(?)")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.QueryRow(ZeroBlob(7)).Scan(&n); err != nil || n != 7 {
		t.Fatalf("length(ZeroBlob(7)) = %d, %v", n, err)
	}
}

func TestBlobReadWrite(t *testing.T) {
	c := hkOpen(t, ":memory:")
	hkExec(t, c, "CREATE TABLE f(id INTEGER PRIMARY KEY, data BLOB)")
	const size = 100000
	hkExec(t, c, "INSERT INTO f VALUES(1, ?)", ZeroBlob(size))
	hkExec(t, c, "INSERT INTO f VALUES(2, 'text value')")

	w, err := c.OpenBlob("main", "f", "data", 1, true)
	if err != nil {
		t.Fatal(err)
	}
	if w.Size() != size {
		t.Fatalf("Size = %d", w.Size())
	}
	want := make([]byte, size)
	for i := range want {
		want[i] = byte(i * 7)
	}
	// io.Copy writes through Write in chunks.
	if n, err := io.Copy(w, iotest.HalfReader(bytes.NewReader(want))); err != nil || n != size {
		t.Fatalf("io.Copy = %d, %v", n, err)
	}
	// Writing past the end writes what fits, then fails.
	if n, err := w.WriteAt([]byte("abcdef"), size-3); n != 3 || err == nil {
		t.Fatalf("WriteAt across the end = %d, %v; want 3 and an error", n, err)
	}
	copy(want[size-3:], "abc")
	if n, err := w.Write([]byte("z")); n != 0 || err == nil {
		t.Fatalf("Write at the end = %d, %v", n, err)
	}
	if _, err := w.WriteAt([]byte("x"), -1); err == nil {
		t.Fatal("WriteAt at a negative offset: no error")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := w.Read(make([]byte, 1)); err == nil {
		t.Fatal("Read after Close: no error")
	}

	r, err := c.OpenBlob("", "f", "data", 1, false)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("ReadAll: %d bytes, equal %v, %v", len(got), bytes.Equal(got, want), err)
	}
	if err := iotest.TestReader(io.NewSectionReader(r, 0, size), want); err != nil {
		t.Fatal(err)
	}
	p := make([]byte, 10)
	if n, err := r.ReadAt(p, size-4); n != 4 || err != io.EOF || !bytes.Equal(p[:4], want[size-4:]) {
		t.Fatalf("ReadAt across the end = %d, %v", n, err)
	}
	if n, err := r.ReadAt(p, size+5); n != 0 || err != io.EOF {
		t.Fatalf("ReadAt past the end = %d, %v", n, err)
	}
	if pos, err := r.Seek(-10, io.SeekEnd); pos != size-10 || err != nil {
		t.Fatalf("Seek(-10, End) = %d, %v", pos, err)
	}
	if pos, err := r.Seek(5, io.SeekCurrent); pos != size-5 || err != nil {
		t.Fatalf("Seek(5, Current) = %d, %v", pos, err)
	}
	if n, err := r.Read(p); n != 5 || err != nil || !bytes.Equal(p[:5], want[size-5:]) {
		t.Fatalf("Read at the tail = %d, %v", n, err)
	}
	if n, err := r.Read(p); n != 0 || err != io.EOF {
		t.Fatalf("Read at the end = %d, %v", n, err)
	}
	if _, err := r.Seek(-1, io.SeekStart); err == nil {
		t.Fatal("Seek to a negative position: no error")
	}
	if _, err := r.Write([]byte("x")); err == nil {
		t.Fatal("Write to a read-only blob: no error")
	}

	// Reopen moves to another row; TEXT values can be read as well.
	if err := r.Reopen(2); err != nil {
		t.Fatal(err)
	}
	if got, err := io.ReadAll(r); err != nil || string(got) != "text value" {
		t.Fatalf("after Reopen: %q, %v", got, err)
	}
	if err := r.Reopen(99); err == nil {
		t.Fatal("Reopen to a missing row: no error")
	}
}

func TestBlobErrors(t *testing.T) {
	c := hkOpen(t, ":memory:")
	hkExec(t, c, "CREATE TABLE f(id INTEGER PRIMARY KEY, data BLOB, n INTEGER)")
	hkExec(t, c, "INSERT INTO f VALUES(1, x'00112233', 5)")
	for _, tc := range []struct{ table, column string }{{"nosuch", "data"}, {"f", "nosuch"}, {"f", "n"}} {
		if _, err := c.OpenBlob("main", tc.table, tc.column, 1, false); err == nil {
			t.Errorf("OpenBlob(%s.%s): no error", tc.table, tc.column)
		}
	}
	if _, err := c.OpenBlob("main", "f", "data", 42, false); err == nil || !strings.Contains(err.Error(), "no such rowid") {
		t.Fatalf("OpenBlob of a missing row: %v", err)
	}
	// A blob whose row changes expires: reads fail with ErrAbort.
	b, err := c.OpenBlob("main", "f", "data", 1, false)
	if err != nil {
		t.Fatal(err)
	}
	hkExec(t, c, "UPDATE f SET data = x'ff' WHERE id = 1")
	if _, err := b.ReadAt(make([]byte, 1), 0); !errors.Is(err, ErrAbort) {
		t.Fatalf("read of an expired blob: %v, want ErrAbort", err)
	}
	if err := b.Close(); err != nil && !errors.Is(err, ErrAbort) {
		t.Fatalf("Close of an expired blob: %v", err)
	}
	c.Close()
	if _, err := c.OpenBlob("main", "f", "data", 1, false); err == nil {
		t.Fatal("OpenBlob on a closed connection: no error")
	}
}

// Through database/sql: open a blob with Raw, fill it, read it back with SQL.
func TestBlobThroughDatabaseSQL(t *testing.T) {
	db := openTestDB(t, "file:"+testTempPath(t))
	testMustExec(t, db, "CREATE TABLE f(data BLOB)")
	res := testMustExec(t, db, "INSERT INTO f VALUES(?)", ZeroBlob(5))
	id, _ := res.LastInsertId()
	conn := testConn(t, db)
	err := conn.Raw(func(dc any) error {
		b, err := dc.(*SQLiteConn).OpenBlob("main", "f", "data", id, true)
		if err != nil {
			return err
		}
		defer b.Close()
		_, err = b.Write([]byte("hello"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var s string
	if err := conn.QueryRowContext(t.Context(), "SELECT CAST(data AS TEXT) FROM f").Scan(&s); err != nil || s != "hello" {
		t.Fatalf("got %q, %v", s, err)
	}
}
