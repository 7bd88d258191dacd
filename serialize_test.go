//go:build cgo

package sqlite3

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"
)

func TestSerializeDeserialize(t *testing.T) {
	src := hkOpen(t, ":memory:")
	hkFill(t, src, 20)
	img, err := src.Serialize("")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(img, []byte("SQLite format 3\x00")) || len(img)%4096 != 0 {
		t.Fatalf("image of %d bytes starting %q", len(img), img[:16])
	}
	main, err := src.Serialize("main")
	if err != nil || !bytes.Equal(main, img) {
		t.Fatalf("Serialize(main) differs from Serialize(\"\") (%v)", err)
	}

	dst := hkOpen(t, ":memory:")
	buf := append([]byte(nil), img...)
	if err := dst.Deserialize(buf, ""); err != nil {
		t.Fatal(err)
	}
	// Nothing of buf is kept: overwriting it changes nothing.
	for i := range buf {
		buf[i] = 0xff
	}
	if n := hkQueryInt(t, dst, "SELECT count(*) FROM t"); n != 20 {
		t.Fatalf("rows after Deserialize = %d, want 20", n)
	}
	// The deserialized database is writable and grows.
	hkExec(t, dst, "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM s WHERE i < 200) INSERT INTO t(v) SELECT printf('%.1000c', 'y') FROM s")
	if n := hkQueryInt(t, dst, "SELECT count(*) FROM t"); n != 220 {
		t.Fatalf("rows = %d, want 220", n)
	}
	// Serializing an in-memory (deserialized) database reads it in place.
	img2, err := dst.Serialize("main")
	if err != nil {
		t.Fatal(err)
	}
	if len(img2) <= len(img) {
		t.Fatalf("image grew from %d to %d bytes", len(img), len(img2))
	}
	third := hkOpen(t, ":memory:")
	if err := third.Deserialize(img2, "main"); err != nil {
		t.Fatal(err)
	}
	if n := hkQueryInt(t, third, "SELECT count(*) FROM t WHERE v LIKE 'y%'"); n != 200 {
		t.Fatalf("rows = %d", n)
	}
	if v := hkQuery(t, third, "PRAGMA integrity_check"); len(v) != 1 || v[0] != "ok" {
		t.Fatalf("integrity_check: %v", v)
	}
}

func TestSerializeFileAndAttached(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.db")
	c := hkOpen(t, path)
	hkFill(t, c, 5)
	hkExec(t, c, "ATTACH ':memory:' AS aux; CREATE TABLE aux.a(x); INSERT INTO aux.a VALUES(42)")
	img, err := c.Serialize("main")
	if err != nil {
		t.Fatal(err)
	}
	aux, err := c.Serialize("aux")
	if err != nil {
		t.Fatal(err)
	}
	d := hkOpen(t, ":memory:")
	hkExec(t, d, "ATTACH ':memory:' AS other")
	if err := d.Deserialize(img, ""); err != nil {
		t.Fatal(err)
	}
	if err := d.Deserialize(aux, "other"); err != nil {
		t.Fatal(err)
	}
	if n := hkQueryInt(t, d, "SELECT (SELECT count(*) FROM main.t) * 1000 + (SELECT x FROM other.a)"); n != 5042 {
		t.Fatalf("got %d, want 5042", n)
	}
	// An empty database serializes to no bytes, and deserializes back.
	e := hkOpen(t, ":memory:")
	img, err = e.Serialize("")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Deserialize(img, "other"); err != nil {
		t.Fatalf("Deserialize(%d bytes): %v", len(img), err)
	}
	if n := hkQueryInt(t, d, "SELECT count(*) FROM other.sqlite_schema"); n != 0 {
		t.Fatalf("%d tables in the empty database", n)
	}
}

func TestSerializeErrors(t *testing.T) {
	c := hkOpen(t, ":memory:")
	if _, err := c.Serialize("nosuch"); err == nil {
		t.Fatal("Serialize of an unknown database: no error")
	}
	if err := c.Deserialize([]byte("x"), "temp"); err == nil {
		t.Fatal("Deserialize into temp: no error")
	}
	if err := c.Deserialize(make([]byte, 4096), "nosuch"); err == nil {
		t.Fatal("Deserialize into an unknown database: no error")
	}
	// Garbage deserializes, then fails to read as a database.
	if err := c.Deserialize(bytes.Repeat([]byte("not a database "), 400), ""); err != nil {
		t.Fatal(err)
	}
	if err := hkExecErr(c, "SELECT * FROM sqlite_schema"); !errors.Is(err, ErrNotADB) {
		t.Fatalf("reading garbage: %v, want ErrNotADB", err)
	}
	c.Close()
	if _, err := c.Serialize(""); err == nil {
		t.Fatal("Serialize on a closed connection: no error")
	}
	if err := c.Deserialize(nil, ""); err == nil {
		t.Fatal("Deserialize on a closed connection: no error")
	}
}
