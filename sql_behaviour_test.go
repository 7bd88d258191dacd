//go:build cgo

package sqlite3

// Behaviour of the driver seen through database/sql: value round trips,
// parameters, multi-statement SQL, transactions, contexts, column metadata
// and the connection pool. Helpers (openTestDB, testMustExec, ...) live in
// sqlite3_test.go.

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testMemDB returns a single-connection in-memory database, so that every
// statement sees the same data.
func testMemDB(t testing.TB, params string) *sql.DB {
	t.Helper()
	dsn := ":memory:"
	if params != "" {
		dsn += "?" + params
	}
	db := openTestDB(t, dsn)
	db.SetMaxOpenConns(1)
	return db
}

// testRoundTrip inserts v into column col of table tbl (which must have an
// INTEGER PRIMARY KEY id) and returns what Scan into *any reads back,
// together with SQLite's typeof() of the stored value.
func testRoundTrip(t *testing.T, db *sql.DB, tbl, col string, v any) (any, string) {
	t.Helper()
	res, err := db.Exec(fmt.Sprintf("INSERT INTO %s(%s) VALUES(?)", tbl, col), v)
	if err != nil {
		t.Fatalf("insert %T(%v): %v", v, v, err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		t.Fatal(err)
	}
	var got any
	var typ string
	err = db.QueryRow(fmt.Sprintf("SELECT %s, typeof(%s) FROM %s WHERE id = ?", col, col, tbl), id).Scan(&got, &typ)
	if err != nil {
		t.Fatalf("select %T(%v): %v", v, v, err)
	}
	return got, typ
}

func TestValueIntegers(t *testing.T) {
	db := testMemDB(t, "")
	testMustExec(t, db, "CREATE TABLE v(id INTEGER PRIMARY KEY, u, i INTEGER, r REAL, tx TEXT)")
	tests := []struct {
		in   any
		want int64
	}{
		{0, 0},
		{-5, -5},
		{int(math.MaxInt32) + 1, math.MaxInt32 + 1},
		{int8(math.MinInt8), math.MinInt8},
		{int8(math.MaxInt8), math.MaxInt8},
		{int16(math.MinInt16), math.MinInt16},
		{int32(math.MinInt32), math.MinInt32},
		{int64(math.MinInt64), math.MinInt64},
		{int64(math.MaxInt64), math.MaxInt64},
		{uint(42), 42},
		{uint8(math.MaxUint8), math.MaxUint8},
		{uint16(math.MaxUint16), math.MaxUint16},
		{uint32(math.MaxUint32), math.MaxUint32},
		{uint64(0), 0},
		{uint64(math.MaxInt64), math.MaxInt64},
	}
	for _, tc := range tests {
		name := fmt.Sprintf("%T(%v)", tc.in, tc.in)
		for _, col := range []string{"u", "i"} {
			got, typ := testRoundTrip(t, db, "v", col, tc.in)
			if typ != "integer" {
				t.Errorf("%s in %s: typeof = %q, want integer", name, col, typ)
			}
			if got != any(tc.want) {
				t.Errorf("%s in %s: read back %T(%v), want int64(%d)", name, col, got, got, tc.want)
			}
		}
		// Affinity is SQLite's business: an integer in a REAL column is a real,
		// in a TEXT column text.
		if got, typ := testRoundTrip(t, db, "v", "r", tc.in); typ != "real" || got != any(float64(tc.want)) {
			t.Errorf("%s in REAL column: %T(%v) typeof %s", name, got, got, typ)
		}
		if got, typ := testRoundTrip(t, db, "v", "tx", tc.in); typ != "text" || got != any(fmt.Sprint(tc.want)) {
			t.Errorf("%s in TEXT column: %T(%v) typeof %s", name, got, got, typ)
		}
	}
	// Scan into narrower Go types converts, and refuses overflow.
	var i8 int8
	if err := db.QueryRow("SELECT 127").Scan(&i8); err != nil || i8 != 127 {
		t.Errorf("Scan 127 into int8: %d, %v", i8, err)
	}
	if err := db.QueryRow("SELECT 128").Scan(&i8); err == nil {
		t.Errorf("Scan 128 into int8: no error (got %d)", i8)
	}
	var u64 uint64
	if err := db.QueryRow("SELECT 9223372036854775807").Scan(&u64); err != nil || u64 != math.MaxInt64 {
		t.Errorf("Scan MaxInt64 into uint64: %d, %v", u64, err)
	}
}

func TestValueUint64Overflow(t *testing.T) {
	db := testMemDB(t, "")
	testMustExec(t, db, "CREATE TABLE v(id INTEGER PRIMARY KEY, x)")
	for _, v := range []any{uint64(math.MaxInt64) + 1, uint64(math.MaxUint64)} {
		if _, err := db.Exec("INSERT INTO v(x) VALUES(?)", v); err == nil {
			t.Errorf("inserting %T(%v): no error", v, v)
		}
		var got any
		if err := db.QueryRow("SELECT ?", v).Scan(&got); err == nil {
			t.Errorf("SELECT ? with %T(%v): no error, read %T(%v)", v, v, got, got)
		}
	}
	if n := testQueryInt(t, db, "SELECT count(*) FROM v"); n != 0 {
		t.Fatalf("%d rows inserted from overflowing uint64 values", n)
	}
}

func TestValueFloats(t *testing.T) {
	db := testMemDB(t, "")
	testMustExec(t, db, "CREATE TABLE v(id INTEGER PRIMARY KEY, u, r REAL, f FLOAT, d DOUBLE)")
	tests := []struct {
		in   any
		want float64
	}{
		{3.14159, 3.14159},
		{-0.5, -0.5},
		{float32(1.5), 1.5},
		{float32(0.1), float64(float32(0.1))},
		{float32(math.MaxFloat32), math.MaxFloat32},
		{math.MaxFloat64, math.MaxFloat64},
		{math.SmallestNonzeroFloat64, math.SmallestNonzeroFloat64},
		{1e300, 1e300},
		{math.Inf(1), math.Inf(1)},
		{math.Inf(-1), math.Inf(-1)},
	}
	for _, tc := range tests {
		for _, col := range []string{"u", "r", "f", "d"} {
			got, typ := testRoundTrip(t, db, "v", col, tc.in)
			if typ != "real" {
				t.Errorf("%T(%v) in %s: typeof = %q, want real", tc.in, tc.in, col, typ)
			}
			if got != any(tc.want) {
				t.Errorf("%T(%v) in %s: read back %T(%v), want float64(%v)", tc.in, tc.in, col, got, got, tc.want)
			}
		}
	}
	// A whole float in a REAL column stays a float when read.
	if got, _ := testRoundTrip(t, db, "v", "r", 2.0); got != any(2.0) {
		t.Errorf("2.0 in REAL column read back as %T(%v)", got, got)
	}
	// SQLite stores NaN as NULL.
	for _, nan := range []any{math.NaN(), float32(math.NaN())} {
		for _, col := range []string{"u", "r"} {
			got, typ := testRoundTrip(t, db, "v", col, nan)
			if typ != "null" || got != nil {
				t.Errorf("NaN %T in %s: stored as %s, read back %T(%v); SQLite stores NaN as NULL", nan, col, typ, got, got)
			}
		}
	}
	var f32 float32
	if err := db.QueryRow("SELECT 0.25").Scan(&f32); err != nil || f32 != 0.25 {
		t.Errorf("Scan 0.25 into float32: %v, %v", f32, err)
	}
}

func TestValueBool(t *testing.T) {
	db := testMemDB(t, "")
	testMustExec(t, db, "CREATE TABLE v(id INTEGER PRIMARY KEY, b BOOLEAN, i INTEGER, u)")
	for _, in := range []bool{true, false} {
		want := int64(0)
		if in {
			want = 1
		}
		res, err := db.Exec("INSERT INTO v(b, i, u) VALUES(?, ?, ?)", in, in, in)
		if err != nil {
			t.Fatal(err)
		}
		id, _ := res.LastInsertId()
		var b, i, u any
		var tb, ti, tu string
		var raw int64
		err = db.QueryRow("SELECT b, i, u, typeof(b), typeof(i), typeof(u), b + 0 FROM v WHERE id = ?", id).Scan(&b, &i, &u, &tb, &ti, &tu, &raw)
		if err != nil {
			t.Fatal(err)
		}
		if tb != "integer" || ti != "integer" || tu != "integer" || raw != want {
			t.Errorf("%v stored as %s/%s/%s value %d, want integer %d", in, tb, ti, tu, raw, want)
		}
		if b != any(in) {
			t.Errorf("%v from BOOLEAN column: %T(%v), want bool", in, b, b)
		}
		if i != any(want) {
			t.Errorf("%v from INTEGER column: %T(%v), want int64(%d)", in, i, i, want)
		}
		if u != any(want) {
			t.Errorf("%v from untyped column: %T(%v), want int64(%d)", in, u, u, want)
		}
		var gb, gi bool
		if err := db.QueryRow("SELECT b, i FROM v WHERE id = ?", id).Scan(&gb, &gi); err != nil || gb != in || gi != in {
			t.Errorf("Scan %v into bool: %v %v %v", in, gb, gi, err)
		}
	}
	// A NULL BOOLEAN is NULL, not false.
	testMustExec(t, db, "INSERT INTO v(id, b) VALUES(100, NULL)")
	var nb sql.NullBool
	if err := db.QueryRow("SELECT b FROM v WHERE id = 100").Scan(&nb); err != nil || nb.Valid {
		t.Errorf("NULL BOOLEAN read as %+v, %v", nb, err)
	}
}

func TestValueStrings(t *testing.T) {
	db := testMemDB(t, "")
	testMustExec(t, db, "CREATE TABLE v(id INTEGER PRIMARY KEY, u, s TEXT, vc VARCHAR(3))")
	tests := []string{
		"",
		"hello",
		"a\x00b\x00c",
		"\x00",
		"trailing NUL\x00",
		"\xff\xfe\xfd invalid UTF-8 \xc3\x28",
		"emoji 😀🎉 and 日本語 and ünïcödé",
		"quotes ' \" ` and ; -- not a comment",
		strings.Repeat("x", 10000),
	}
	for _, in := range tests {
		for _, col := range []string{"u", "s", "vc"} {
			got, typ := testRoundTrip(t, db, "v", col, in)
			if typ != "text" {
				t.Errorf("%.40q in %s: typeof = %q, want text", in, col, typ)
			}
			if got != any(in) {
				t.Errorf("%.40q in %s: read back %T(%.40q)", in, col, got, got)
			}
		}
		var n int64
		var s string
		if err := db.QueryRow("SELECT length(CAST(? AS BLOB)), ?", in, in).Scan(&n, &s); err != nil {
			t.Fatal(err)
		}
		if n != int64(len(in)) || s != in {
			t.Errorf("%.40q: SQLite saw %d bytes, read back %.40q", in, n, s)
		}
	}
	// Scanning text into []byte and sql.RawBytes gives the same bytes.
	var b []byte
	if err := db.QueryRow("SELECT ?", "a\x00b").Scan(&b); err != nil || !bytes.Equal(b, []byte("a\x00b")) {
		t.Errorf("text into []byte: %q, %v", b, err)
	}
}

func TestValueBytes(t *testing.T) {
	db := testMemDB(t, "")
	testMustExec(t, db, "CREATE TABLE v(id INTEGER PRIMARY KEY, u, b BLOB)")
	for _, col := range []string{"u", "b"} {
		// nil is NULL.
		got, typ := testRoundTrip(t, db, "v", col, []byte(nil))
		if typ != "null" || got != nil {
			t.Errorf("[]byte(nil) in %s: typeof %s, read back %T(%v); want NULL", col, typ, got, got)
		}
		// An empty slice is a zero-length blob, distinct from NULL.
		got, typ = testRoundTrip(t, db, "v", col, []byte{})
		if typ != "blob" {
			t.Errorf("[]byte{} in %s: typeof %s, want blob", col, typ)
		}
		if gb, ok := got.([]byte); !ok || gb == nil || len(gb) != 0 {
			t.Errorf("[]byte{} in %s: read back %T(%#v), want non-nil empty []byte", col, got, got)
		}
		in := []byte{0, 1, 0, 0xff, 0xfe, 0, 'a', 0}
		got, typ = testRoundTrip(t, db, "v", col, in)
		if typ != "blob" {
			t.Errorf("%v in %s: typeof %s, want blob", in, col, typ)
		}
		if gb, ok := got.([]byte); !ok || !bytes.Equal(gb, in) {
			t.Errorf("%v in %s: read back %T(%v)", in, col, got, got)
		}
	}
	var isNull, isEmpty, length int64
	err := db.QueryRow("SELECT ? IS NULL, ? IS NULL, length(?)", []byte(nil), []byte{}, []byte{}).Scan(&isNull, &isEmpty, &length)
	if err != nil || isNull != 1 || isEmpty != 0 || length != 0 {
		t.Errorf("nil IS NULL = %d, []byte{} IS NULL = %d, length([]byte{}) = %d, err %v", isNull, isEmpty, length, err)
	}
	// Scan into []byte distinguishes NULL (nil) from an empty blob.
	var bn, be []byte
	if err := db.QueryRow("SELECT NULL, x''").Scan(&bn, &be); err != nil {
		t.Fatal(err)
	}
	if bn != nil {
		t.Errorf("NULL scanned into []byte = %#v, want nil", bn)
	}
	if be == nil || len(be) != 0 {
		t.Errorf("x'' scanned into []byte = %#v, want non-nil empty", be)
	}
	// The driver must not keep or reuse the caller's slice.
	buf := []byte("original")
	res, err := db.Exec("INSERT INTO v(b) VALUES(?)", buf)
	if err != nil {
		t.Fatal(err)
	}
	id, _ := res.LastInsertId()
	copy(buf, "CHANGED!")
	var stored []byte
	if err := db.QueryRow("SELECT b FROM v WHERE id = ?", id).Scan(&stored); err != nil || string(stored) != "original" {
		t.Errorf("stored blob = %q, %v; want \"original\"", stored, err)
	}
}

func TestValueLarge(t *testing.T) {
	db := testMemDB(t, "")
	testMustExec(t, db, "CREATE TABLE v(id INTEGER PRIMARY KEY, s TEXT, b BLOB)")
	const size = 1 << 20
	var sb strings.Builder
	for i := 0; sb.Len() < size; i++ {
		fmt.Fprintf(&sb, "%07d|", i)
	}
	text := sb.String()[:size]
	blob := make([]byte, size)
	rng := rand.New(rand.NewSource(1))
	rng.Read(blob)

	if _, err := db.Exec("INSERT INTO v(id, s, b) VALUES(1, ?, ?)", text, blob); err != nil {
		t.Fatal(err)
	}
	var gotText string
	var gotBlob []byte
	var ls, lb int64
	if err := db.QueryRow("SELECT s, b, length(s), length(b) FROM v WHERE id = 1").Scan(&gotText, &gotBlob, &ls, &lb); err != nil {
		t.Fatal(err)
	}
	if ls != size || lb != size {
		t.Errorf("SQLite lengths %d/%d, want %d", ls, lb, size)
	}
	if gotText != text {
		t.Errorf("1 MiB text did not round trip (len %d)", len(gotText))
	}
	if !bytes.Equal(gotBlob, blob) {
		t.Errorf("1 MiB blob did not round trip (len %d)", len(gotBlob))
	}
	// Also through Scan into *any and sql.RawBytes.
	rows, err := db.Query("SELECT s, b FROM v WHERE id = 1")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	if !rows.Next() {
		t.Fatalf("no row: %v", rows.Err())
	}
	var anyText any
	var raw sql.RawBytes
	if err := rows.Scan(&anyText, &raw); err != nil {
		t.Fatal(err)
	}
	if anyText != any(text) || !bytes.Equal(raw, blob) {
		t.Errorf("large values through *any / RawBytes differ")
	}
}

func TestValueTimeRoundTrip(t *testing.T) {
	db := testMemDB(t, "")
	testMustExec(t, db, "CREATE TABLE tm(id INTEGER PRIMARY KEY, dt DATETIME, d DATE, ts TIMESTAMP, txt TEXT, u)")
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skipf("no time zone data: %v", err)
	}
	if len(SQLiteTimestampFormats) == 0 || SQLiteTimestampFormats[0] != "2006-01-02 15:04:05.999999999-07:00" {
		t.Fatalf("SQLiteTimestampFormats[0] = %q", SQLiteTimestampFormats)
	}
	tests := []time.Time{
		time.Date(2024, 3, 15, 13, 45, 30, 123456789, time.UTC),
		time.Date(2024, 3, 15, 13, 45, 30, 0, time.UTC),
		time.Date(2024, 3, 15, 13, 45, 30, 1000, time.UTC),
		time.Date(1969, 7, 20, 20, 17, 40, 0, time.UTC),
		time.Date(2038, 1, 19, 3, 14, 8, 0, time.UTC),
		time.Date(2024, 3, 15, 13, 45, 30, 500000000, time.FixedZone("", 5*3600+30*60)),
		time.Date(2024, 11, 3, 1, 30, 0, 0, ny),
		time.Date(2024, 7, 1, 23, 59, 59, 999999999, time.FixedZone("X", -7*3600)),
		{},
	}
	for _, in := range tests {
		res, err := db.Exec("INSERT INTO tm(dt, d, ts, txt, u) VALUES(?, ?, ?, ?, ?)", in, in, in, in, in)
		if err != nil {
			t.Fatalf("insert %v: %v", in, err)
		}
		id, _ := res.LastInsertId()
		var dt, d, ts time.Time
		var txt string
		var u any
		err = db.QueryRow("SELECT dt, d, ts, txt, u FROM tm WHERE id = ?", id).Scan(&dt, &d, &ts, &txt, &u)
		if err != nil {
			t.Fatalf("select %v: %v", in, err)
		}
		wantText := in.Format(SQLiteTimestampFormats[0])
		if txt != wantText {
			t.Errorf("%v stored as %q, want %q", in, txt, wantText)
		}
		if u != any(wantText) {
			t.Errorf("%v in untyped column read back as %T(%v), want the text %q", in, u, u, wantText)
		}
		for name, got := range map[string]time.Time{"DATETIME": dt, "DATE": d, "TIMESTAMP": ts} {
			if !got.Equal(in) {
				t.Errorf("%v from %s column: %v", in, name, got)
			}
			if in.Location() == time.UTC && got.Location() != time.UTC {
				t.Errorf("%v from %s column: location %v, want UTC", in, name, got.Location())
			}
		}
		// Scan into *any yields a time.Time too.
		var a any
		if err := db.QueryRow("SELECT dt FROM tm WHERE id = ?", id).Scan(&a); err != nil {
			t.Fatal(err)
		}
		if at, ok := a.(time.Time); !ok || !at.Equal(in) {
			t.Errorf("%v from DATETIME into *any: %T(%v)", in, a, a)
		}
	}
	// NULL in a time column is NULL.
	testMustExec(t, db, "INSERT INTO tm(id) VALUES(1000)")
	var nt sql.NullTime
	if err := db.QueryRow("SELECT dt FROM tm WHERE id = 1000").Scan(&nt); err != nil || nt.Valid {
		t.Errorf("NULL DATETIME read as %+v, %v", nt, err)
	}
	// A time bound as a parameter is text SQLite's date functions understand.
	var day string
	if err := db.QueryRow("SELECT date(?)", time.Date(2020, 2, 29, 12, 0, 0, 0, time.UTC)).Scan(&day); err != nil || day != "2020-02-29" {
		t.Errorf("date(?) = %q, %v", day, err)
	}
}

func TestValueTimeLocation(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skipf("no time zone data: %v", err)
	}
	in := time.Date(2024, 6, 1, 12, 0, 0, 250000000, time.UTC)
	for _, tc := range []struct {
		params string
		want   *time.Location
	}{
		{"", time.UTC},
		{"_loc=auto", time.Local},
		{"_loc=America/New_York", ny},
		{"_loc=UTC", time.UTC},
	} {
		t.Run(tc.params, func(t *testing.T) {
			db := testMemDB(t, tc.params)
			testMustExec(t, db, "CREATE TABLE tm(dt DATETIME, n DATETIME)")
			testMustExec(t, db, "INSERT INTO tm VALUES(?, ?)", in, in.Unix())
			var dt, n time.Time
			if err := db.QueryRow("SELECT dt, n FROM tm").Scan(&dt, &n); err != nil {
				t.Fatal(err)
			}
			for name, got := range map[string]time.Time{"text": dt, "unix": n} {
				wantT := in
				if name == "unix" {
					wantT = in.Truncate(time.Second)
				}
				if !got.Equal(wantT) {
					t.Errorf("%s: %v, want %v", name, got, wantT)
				}
				if got.Location().String() != tc.want.String() {
					t.Errorf("%s: location %q, want %q", name, got.Location(), tc.want)
				}
				if tc.want == time.Local && got.Location() != time.Local {
					t.Errorf("%s: location %p is not time.Local", name, got.Location())
				}
			}
		})
	}
}

func TestValueTimeFromIntegers(t *testing.T) {
	db := testMemDB(t, "")
	testMustExec(t, db, "CREATE TABLE tm(id INTEGER PRIMARY KEY, dt DATETIME, d DATE, ts TIMESTAMP, i INTEGER)")
	tests := []struct {
		in   int64
		want time.Time
	}{
		{0, time.Unix(0, 0)},
		{1700000000, time.Unix(1700000000, 0)},
		{-86400, time.Unix(-86400, 0)},
		{999999999999, time.Unix(999999999999, 0)}, // not above 1e12: seconds
		{1700000000123, time.UnixMilli(1700000000123)},
		{-1700000000123, time.UnixMilli(-1700000000123)},
		// Beyond what nanoseconds in an int64 hold, where mattn/go-sqlite3
		// wraps around (README, Switching from mattn/go-sqlite3).
		{9223372036855, time.Date(2262, 4, 11, 23, 47, 16, 855e6, time.UTC)},
		{-9223372036855, time.Date(1677, 9, 21, 0, 12, 43, 145e6, time.UTC)},
		{1 << 62, time.UnixMilli(1 << 62)},
	}
	for _, tc := range tests {
		res, err := db.Exec("INSERT INTO tm(dt, d, ts, i) VALUES(?, ?, ?, ?)", tc.in, tc.in, tc.in, tc.in)
		if err != nil {
			t.Fatal(err)
		}
		id, _ := res.LastInsertId()
		var dt, d, ts time.Time
		var i any
		if err := db.QueryRow("SELECT dt, d, ts, i FROM tm WHERE id = ?", id).Scan(&dt, &d, &ts, &i); err != nil {
			t.Fatalf("%d: %v", tc.in, err)
		}
		for name, got := range map[string]time.Time{"DATETIME": dt, "DATE": d, "TIMESTAMP": ts} {
			if !got.Equal(tc.want) {
				t.Errorf("%d from %s: %v, want %v", tc.in, name, got, tc.want.UTC())
			}
			if got.Location() != time.UTC {
				t.Errorf("%d from %s: location %v, want UTC", tc.in, name, got.Location())
			}
		}
		if i != any(tc.in) {
			t.Errorf("%d from INTEGER column: %T(%v)", tc.in, i, i)
		}
	}
}

func TestValueTimeTextFormats(t *testing.T) {
	db := testMemDB(t, "")
	testMustExec(t, db, "CREATE TABLE tm(id INTEGER PRIMARY KEY, dt DATETIME, d DATE, ts TIMESTAMP)")
	tests := []struct {
		in   string
		want time.Time
	}{
		{"2006-01-02", time.Date(2006, 1, 2, 0, 0, 0, 0, time.UTC)},
		{"2006-01-02T15:04:05Z", time.Date(2006, 1, 2, 15, 4, 5, 0, time.UTC)},
		{"2006-01-02 15:04", time.Date(2006, 1, 2, 15, 4, 0, 0, time.UTC)},
		{"2006-01-02T15:04", time.Date(2006, 1, 2, 15, 4, 0, 0, time.UTC)},
		{"2006-01-02 15:04:05", time.Date(2006, 1, 2, 15, 4, 5, 0, time.UTC)},
		{"2006-01-02T15:04:05", time.Date(2006, 1, 2, 15, 4, 5, 0, time.UTC)},
		{"2006-01-02 15:04:05.5", time.Date(2006, 1, 2, 15, 4, 5, 500000000, time.UTC)},
		{"2006-01-02T15:04:05.123456789", time.Date(2006, 1, 2, 15, 4, 5, 123456789, time.UTC)},
		{"2006-01-02 15:04:05.123Z", time.Date(2006, 1, 2, 15, 4, 5, 123000000, time.UTC)},
		{"2006-01-02 15:04:05-07:00", time.Date(2006, 1, 2, 22, 4, 5, 0, time.UTC)},
		{"2006-01-02T15:04:05.25+02:00", time.Date(2006, 1, 2, 13, 4, 5, 250000000, time.UTC)},
	}
	for _, tc := range tests {
		res, err := db.Exec("INSERT INTO tm(dt, d, ts) VALUES(?, ?, ?)", tc.in, tc.in, tc.in)
		if err != nil {
			t.Fatal(err)
		}
		id, _ := res.LastInsertId()
		var dt, d, ts time.Time
		if err := db.QueryRow("SELECT dt, d, ts FROM tm WHERE id = ?", id).Scan(&dt, &d, &ts); err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		for name, got := range map[string]time.Time{"DATETIME": dt, "DATE": d, "TIMESTAMP": ts} {
			if !got.Equal(tc.want) {
				t.Errorf("%q from %s: %v, want %v", tc.in, name, got, tc.want)
			}
		}
		if !strings.ContainsAny(tc.in[10:], "+-") && dt.Location() != time.UTC {
			t.Errorf("%q: location %v, want UTC", tc.in, dt.Location())
		}
	}
}

// testUpperValuer is a driver.Valuer with a value receiver.
type testUpperValuer string

func (v testUpperValuer) Value() (driver.Value, error) { return strings.ToUpper(string(v)), nil }

// testPointValuer is a driver.Valuer returning an int64 from a pointer receiver.
type testPointValuer struct{ x, y int32 }

func (p *testPointValuer) Value() (driver.Value, error) {
	if p == nil {
		return nil, nil
	}
	return int64(p.x)<<32 | int64(uint32(p.y)), nil
}

// testFailingValuer always fails.
type testFailingValuer struct{}

func (testFailingValuer) Value() (driver.Value, error) { return nil, errors.New("valuer refused") }

func TestValueValuerAndNullTypes(t *testing.T) {
	db := testMemDB(t, "")
	testMustExec(t, db, "CREATE TABLE v(id INTEGER PRIMARY KEY, u, dt DATETIME)")

	if got, _ := testRoundTrip(t, db, "v", "u", testUpperValuer("shout")); got != any("SHOUT") {
		t.Errorf("value-receiver Valuer: %T(%v)", got, got)
	}
	if got, _ := testRoundTrip(t, db, "v", "u", &testPointValuer{1, 2}); got != any(int64(1<<32|2)) {
		t.Errorf("pointer-receiver Valuer: %T(%v)", got, got)
	}
	if got, typ := testRoundTrip(t, db, "v", "u", (*testPointValuer)(nil)); typ != "null" || got != nil {
		t.Errorf("nil pointer Valuer: %T(%v) typeof %s", got, got, typ)
	}
	if _, err := db.Exec("INSERT INTO v(u) VALUES(?)", testFailingValuer{}); err == nil || !strings.Contains(err.Error(), "valuer refused") {
		t.Errorf("failing Valuer: %v", err)
	}

	when := time.Date(2021, 5, 6, 7, 8, 9, 0, time.UTC)
	nulls := []struct {
		in   any
		want any // what Scan into *any reads back; nil for NULL
	}{
		{sql.NullString{}, nil},
		{sql.NullString{String: "s", Valid: true}, "s"},
		{sql.NullInt64{}, nil},
		{sql.NullInt64{Int64: 42, Valid: true}, int64(42)},
		{sql.NullInt32{Int32: -7, Valid: true}, int64(-7)},
		{sql.NullInt16{Int16: 300, Valid: true}, int64(300)},
		{sql.NullByte{Byte: 200, Valid: true}, int64(200)},
		{sql.NullFloat64{}, nil},
		{sql.NullFloat64{Float64: 2.5, Valid: true}, 2.5},
		{sql.NullBool{}, nil},
		{sql.NullBool{Bool: true, Valid: true}, int64(1)},
		{sql.NullTime{}, nil},
		{sql.Null[int64]{V: 9, Valid: true}, int64(9)},
		{sql.Null[string]{}, nil},
	}
	for _, tc := range nulls {
		got, typ := testRoundTrip(t, db, "v", "u", tc.in)
		if got != tc.want {
			t.Errorf("%#v: read back %T(%v), want %T(%v)", tc.in, got, got, tc.want, tc.want)
		}
		if (tc.want == nil) != (typ == "null") {
			t.Errorf("%#v: typeof %s", tc.in, typ)
		}
	}
	// A valid NullTime goes in like a time.Time.
	res, err := db.Exec("INSERT INTO v(dt) VALUES(?)", sql.NullTime{Time: when, Valid: true})
	if err != nil {
		t.Fatal(err)
	}
	id, _ := res.LastInsertId()
	var nt sql.NullTime
	if err := db.QueryRow("SELECT dt FROM v WHERE id = ?", id).Scan(&nt); err != nil || !nt.Valid || !nt.Time.Equal(when) {
		t.Errorf("NullTime round trip: %+v, %v", nt, err)
	}
	// Reading NULL and non-NULL into Null* types.
	var ns sql.NullString
	var ni sql.NullInt64
	var nf sql.NullFloat64
	if err := db.QueryRow("SELECT NULL, 5, NULL").Scan(&ns, &ni, &nf); err != nil {
		t.Fatal(err)
	}
	if ns.Valid || !ni.Valid || ni.Int64 != 5 || nf.Valid {
		t.Errorf("Null* scan: %+v %+v %+v", ns, ni, nf)
	}
}

func TestValueUnsupportedType(t *testing.T) {
	db := testMemDB(t, "")
	testMustExec(t, db, "CREATE TABLE v(x)")
	ch := make(chan int)
	for _, v := range []any{struct{}{}, struct{ A int }{1}, []int{1, 2}, map[string]int{"a": 1}, ch, complex(1, 2), &struct{}{}} {
		if _, err := db.Exec("INSERT INTO v VALUES(?)", v); err == nil {
			t.Errorf("binding %T: no error", v)
		}
		if rows, err := db.Query("SELECT ?", v); err == nil {
			rows.Close()
			t.Errorf("querying with %T: no error", v)
		}
	}
	if n := testQueryInt(t, db, "SELECT count(*) FROM v"); n != 0 {
		t.Fatalf("%d rows inserted from unbindable values", n)
	}
	// Named types of supported kinds are fine.
	type myInt int
	type myString string
	type myBytes []byte
	var got any
	if err := db.QueryRow("SELECT ?", myInt(3)).Scan(&got); err != nil || got != any(int64(3)) {
		t.Errorf("named int: %T(%v), %v", got, got, err)
	}
	if err := db.QueryRow("SELECT ?", myString("s")).Scan(&got); err != nil || got != any("s") {
		t.Errorf("named string: %T(%v), %v", got, got, err)
	}
	if err := db.QueryRow("SELECT ?", myBytes("b")).Scan(&got); err != nil || !bytes.Equal(got.([]byte), []byte("b")) {
		t.Errorf("named []byte: %T(%v), %v", got, got, err)
	}
	p := new(int64)
	*p = 77
	if err := db.QueryRow("SELECT ?", p).Scan(&got); err != nil || got != any(int64(77)) {
		t.Errorf("*int64: %T(%v), %v", got, got, err)
	}
	if err := db.QueryRow("SELECT ?", (*int64)(nil)).Scan(&got); err != nil || got != nil {
		t.Errorf("nil *int64: %T(%v), %v", got, got, err)
	}
}

func TestParamsPositional(t *testing.T) {
	db := testMemDB(t, "")
	var a int64
	var b string
	var c float64
	if err := db.QueryRow("SELECT ?, ?, ?", 1, "two", 3.5).Scan(&a, &b, &c); err != nil || a != 1 || b != "two" || c != 3.5 {
		t.Errorf("?: %v %v %v %v", a, b, c, err)
	}
	var x, y, z string
	if err := db.QueryRow("SELECT ?2, ?1, ?2", "a", "b").Scan(&x, &y, &z); err != nil || x != "b" || y != "a" || z != "b" {
		t.Errorf("?NNN: %q %q %q %v", x, y, z, err)
	}
	var n int64
	if err := db.QueryRow("SELECT ?3", 1, 2, 3).Scan(&n); err != nil || n != 3 {
		t.Errorf("?3 with three args: %d %v", n, err)
	}
	// A parameter inside a string literal is not a parameter.
	var lit string
	if err := db.QueryRow("SELECT '?' || ?", "x").Scan(&lit); err != nil || lit != "?x" {
		t.Errorf("literal ?: %q %v", lit, err)
	}
	// Prepared statements are reusable with different arguments.
	st, err := db.Prepare("SELECT ? * 2")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for i := int64(0); i < 5; i++ {
		if err := st.QueryRow(i).Scan(&n); err != nil || n != 2*i {
			t.Errorf("stmt with %d: %d %v", i, n, err)
		}
	}
}

func TestParamsNamed(t *testing.T) {
	db := testMemDB(t, "")
	var a, b, c int64
	if err := db.QueryRow("SELECT :a, @b, $c", sql.Named("a", 1), sql.Named("b", 2), sql.Named("c", 3)).Scan(&a, &b, &c); err != nil || a != 1 || b != 2 || c != 3 {
		t.Errorf(":a @b $c: %d %d %d %v", a, b, c, err)
	}
	// Order of the arguments does not matter, and a name may repeat.
	var s1, s2 string
	if err := db.QueryRow("SELECT :first, :second", sql.Named("second", "2"), sql.Named("first", "1")).Scan(&s1, &s2); err != nil || s1 != "1" || s2 != "2" {
		t.Errorf("reordered named: %q %q %v", s1, s2, err)
	}
	var sum int64
	if err := db.QueryRow("SELECT :x + :x * 2", sql.Named("x", 7)).Scan(&sum); err != nil || sum != 21 {
		t.Errorf("repeated name: %d %v", sum, err)
	}
	for _, prefix := range []string{":", "@", "$"} {
		testMustExec(t, db, "CREATE TABLE IF NOT EXISTS nm(k TEXT, v INTEGER)")
		q := fmt.Sprintf("INSERT INTO nm(k, v) VALUES(%sk, %sv)", prefix, prefix)
		if _, err := db.Exec(q, sql.Named("v", 10), sql.Named("k", prefix)); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if got := testQueryInt(t, db, "SELECT v FROM nm WHERE k = ?", prefix); got != 10 {
			t.Errorf("%s: v = %d", q, got)
		}
	}
	// Named arguments work with prepared statements too.
	st, err := db.Prepare("SELECT @name || '!'")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var out string
	if err := st.QueryRow(sql.Named("name", "hi")).Scan(&out); err != nil || out != "hi!" {
		t.Errorf("prepared named: %q %v", out, err)
	}
}

// TestParamsWrongCount and TestParamsUnknownNamed run in strict mode;
// strict_test.go has the default, mattn/go-sqlite3's.
func TestParamsWrongCount(t *testing.T) {
	db := testMemDB(t, "_strict=1")
	testMustExec(t, db, "CREATE TABLE t(a, b)")
	tests := []struct {
		query string
		args  []any
	}{
		{"INSERT INTO t VALUES(?, ?)", []any{1}},
		{"INSERT INTO t VALUES(?, ?)", nil},
		{"INSERT INTO t VALUES(?, ?)", []any{1, 2, 3}},
		{"INSERT INTO t VALUES(1, 2)", []any{1}},
		{"INSERT INTO t VALUES(?2, ?2)", []any{1}},
		{"INSERT INTO t VALUES(:a, :b)", []any{sql.Named("a", 1)}},
	}
	for _, tc := range tests {
		if _, err := db.Exec(tc.query, tc.args...); err == nil {
			t.Errorf("Exec(%q, %v): no error", tc.query, tc.args)
		}
		st, err := db.Prepare(tc.query)
		if err != nil {
			t.Fatalf("Prepare(%q): %v", tc.query, err)
		}
		if _, err := st.Exec(tc.args...); err == nil {
			t.Errorf("Stmt.Exec(%q, %v): no error", tc.query, tc.args)
		}
		st.Close()
	}
	for _, tc := range []struct {
		query string
		args  []any
	}{
		{"SELECT ?, ?", []any{1}},
		{"SELECT ?", []any{1, 2}},
		{"SELECT 1", []any{1}},
	} {
		rows, err := db.Query(tc.query, tc.args...)
		if err == nil {
			rows.Close()
			t.Errorf("Query(%q, %v): no error", tc.query, tc.args)
		}
	}
	if n := testQueryInt(t, db, "SELECT count(*) FROM t"); n != 0 {
		t.Fatalf("%d rows inserted by statements with the wrong number of arguments", n)
	}
}

func TestParamsUnknownNamed(t *testing.T) {
	db := testMemDB(t, "_strict=1")
	testMustExec(t, db, "CREATE TABLE t(a)")
	if _, err := db.Exec("INSERT INTO t VALUES(:a)", sql.Named("a", 1), sql.Named("zzz", 2)); err == nil {
		t.Error("named argument zzz matching no parameter: no error")
	}
	if _, err := db.Exec("INSERT INTO t VALUES(:a)", sql.Named("b", 1)); err == nil {
		t.Error("named argument b for parameter :a: no error")
	}
	var v any
	if err := db.QueryRow("SELECT :a", sql.Named("nope", 1)).Scan(&v); err == nil {
		t.Errorf("SELECT :a with only nope: no error, got %v", v)
	}
	if n := testQueryInt(t, db, "SELECT count(*) FROM t"); n != 0 {
		t.Fatalf("%d rows inserted with mismatched named arguments", n)
	}
}

func TestMultiStatementExec(t *testing.T) {
	db := testMemDB(t, "")
	res, err := db.Exec("CREATE TABLE t(x); INSERT INTO t VALUES(?); INSERT INTO t VALUES(?)", 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		t.Errorf("RowsAffected = %d, %v; want 1 (the last statement)", n, err)
	}
	if id, err := res.LastInsertId(); err != nil || id != 2 {
		t.Errorf("LastInsertId = %d, %v; want 2", id, err)
	}
	if got := testQueryString(t, db, "SELECT group_concat(x, ',') FROM (SELECT x FROM t ORDER BY rowid)"); got != "1,2" {
		t.Fatalf("rows = %q, want 1,2", got)
	}

	// Arguments are consumed in order across statements with different counts.
	res, err = db.Exec("INSERT INTO t VALUES(?); UPDATE t SET x = x + ? WHERE x >= ?; INSERT INTO t VALUES(?),(?)", 3, 100, 2, 4, 5)
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 2 {
		t.Errorf("RowsAffected = %d, want 2", n)
	}
	if got := testQueryString(t, db, "SELECT group_concat(x, ',') FROM (SELECT x FROM t ORDER BY rowid)"); got != "1,102,103,4,5" {
		t.Fatalf("rows = %q, want 1,102,103,4,5", got)
	}

	// Trailing semicolons, whitespace and comments are fine.
	for _, q := range []string{
		"INSERT INTO t VALUES(6);",
		"INSERT INTO t VALUES(7);;\n\t;  ",
		"  -- leading comment\nINSERT INTO t VALUES(8); -- trailing comment",
		"/* block */ INSERT INTO t VALUES(9) /* after */ ; /* end */\n",
		"INSERT INTO t VALUES(10); -- comment with ? and :name in it\n",
	} {
		if _, err := db.Exec(q); err != nil {
			t.Errorf("Exec(%q): %v", q, err)
		}
	}
	if _, err := db.Exec("INSERT INTO t VALUES(?); -- trailing ? in a comment", 11); err != nil {
		t.Errorf("args with trailing comment: %v", err)
	}
	if got := testQueryInt(t, db, "SELECT count(*) FROM t WHERE x BETWEEN 6 AND 11"); got != 6 {
		t.Errorf("%d of the 6 decorated inserts ran", got)
	}

}

func TestMultiStatementQuery(t *testing.T) {
	db := testMemDB(t, "")
	rows, err := db.Query("CREATE TABLE u(x); INSERT INTO u VALUES(1); INSERT INTO u VALUES(2); SELECT x FROM u ORDER BY x")
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for rows.Next() {
		var x int64
		if err := rows.Scan(&x); err != nil {
			t.Fatal(err)
		}
		got = append(got, x)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if !reflect.DeepEqual(got, []int64{1, 2}) {
		t.Fatalf("rows = %v, want [1 2]", got)
	}
	if n := testQueryInt(t, db, "SELECT count(*) FROM u"); n != 2 {
		t.Fatalf("leading statements inserted %d rows, want 2 (each exactly once)", n)
	}

	// With arguments, spread across the statements.
	var c int64
	if err := db.QueryRow("INSERT INTO u VALUES(?); SELECT count(*) FROM u WHERE x = ?", 5, 5).Scan(&c); err != nil || c != 1 {
		t.Fatalf("count = %d, %v", c, err)
	}
	// A trailing semicolon and comment after the SELECT still return its rows.
	if err := db.QueryRow("SELECT max(x) FROM u; -- done").Scan(&c); err != nil || c != 5 {
		t.Fatalf("max = %d, %v", c, err)
	}
	if n := testQueryInt(t, db, "SELECT count(*) FROM u"); n != 3 {
		t.Fatalf("count = %d, want 3", n)
	}
}

func testScript(n int, withArgs bool) (string, []any) {
	var sb strings.Builder
	var args []any
	for i := 0; i < n; i++ {
		if withArgs {
			sb.WriteString("INSERT INTO m(i) VALUES(?);\n")
			args = append(args, i)
		} else {
			fmt.Fprintf(&sb, "INSERT INTO m(i) VALUES(%d);\n", i)
		}
	}
	return sb.String(), args
}

func TestMultiStatementLargeScript(t *testing.T) {
	for _, withArgs := range []bool{false, true} {
		t.Run(fmt.Sprintf("args=%v", withArgs), func(t *testing.T) {
			db := testMemDB(t, "")
			testMustExec(t, db, "CREATE TABLE m(i INTEGER)")
			const n = 10000
			script, args := testScript(n, withArgs)
			res, err := db.Exec("BEGIN;\n"+script+"COMMIT;", args...)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := res.RowsAffected(); err != nil {
				t.Fatal(err)
			}
			var count, sum int64
			if err := db.QueryRow("SELECT count(*), sum(i) FROM m").Scan(&count, &sum); err != nil {
				t.Fatal(err)
			}
			if count != n || sum != n*(n-1)/2 {
				t.Fatalf("count %d sum %d, want %d and %d", count, sum, n, n*(n-1)/2)
			}
		})
	}
}

func TestMultiStatementMemoryLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("memory growth measurement skipped in -short mode")
	}
	measure := func(t *testing.T, n int, withArgs bool) uint64 {
		db := testMemDB(t, "")
		testMustExec(t, db, "CREATE TABLE m(i INTEGER)")
		script, args := testScript(n, withArgs)
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := db.Exec(script, args...)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if got := testQueryInt(t, db, "SELECT count(*) FROM m"); got != int64(n) {
			t.Fatalf("%d rows, want %d", got, n)
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	for _, withArgs := range []bool{false, true} {
		t.Run(fmt.Sprintf("args=%v", withArgs), func(t *testing.T) {
			measure(t, 1000, withArgs) // warm up
			a10 := measure(t, 10000, withArgs)
			a20 := measure(t, 20000, withArgs)
			t.Logf("TotalAlloc: 10k statements %d bytes, 20k statements %d bytes", a10, a20)
			// Linear growth doubles; quadratic growth quadruples. The 1 MiB
			// slack keeps a nearly allocation-free driver from failing on noise.
			if a20 > 3*a10+1<<20 {
				t.Errorf("allocation grows faster than linearly: %d bytes for 10k statements, %d for 20k", a10, a20)
			}
		})
	}
}

func TestMultiStatementErrorStops(t *testing.T) {
	db := testMemDB(t, "")
	testMustExec(t, db, "CREATE TABLE t(x); CREATE TABLE uq(x UNIQUE)")

	_, err := db.Exec("INSERT INTO t VALUES(1); INSERT INTO t VALUES(2); INSERT INTO nosuch VALUES(3); INSERT INTO t VALUES(4)")
	if err == nil {
		t.Fatal("no error from a script with a bad statement")
	}
	if !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("error %q does not name the missing table", err)
	}
	if got := testQueryString(t, db, "SELECT group_concat(x, ',') FROM t"); got != "1,2" {
		t.Errorf("rows = %q, want 1,2 (statements before the error run, after it do not)", got)
	}

	// A run-time error in statement k stops there too.
	_, err = db.Exec("INSERT INTO uq VALUES(?); INSERT INTO uq VALUES(?); INSERT INTO uq VALUES(?)", 1, 1, 2)
	e := testAsError(t, err)
	if e.Code != ErrConstraint || e.ExtendedCode != ErrConstraintUnique {
		t.Errorf("error %v: code %d/%d, want UNIQUE constraint", err, e.Code, e.ExtendedCode)
	}
	if got := testQueryString(t, db, "SELECT group_concat(x, ',') FROM uq"); got != "1" {
		t.Errorf("uq rows = %q, want 1", got)
	}

	// Same through Query.
	rows, err := db.Query("INSERT INTO t VALUES(5); SELECT * FROM nosuch2; INSERT INTO t VALUES(6); SELECT 1")
	if err == nil {
		for rows.Next() {
		}
		err = rows.Err()
		rows.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "nosuch2") {
		t.Errorf("Query script error = %v, want one naming nosuch2", err)
	}
	if got := testQueryInt(t, db, "SELECT count(*) FROM t WHERE x = 6"); got != 0 {
		t.Error("statement after the failing one ran")
	}
	// The connection is still fine.
	if got := testQueryInt(t, db, "SELECT count(*) FROM t"); got < 2 {
		t.Errorf("count = %d", got)
	}
}

func TestTxCommitRollback(t *testing.T) {
	db := openTestDB(t, testTempPath(t))
	testMustExec(t, db, "CREATE TABLE t(x)")

	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	testMustExec(t, tx, "INSERT INTO t VALUES(1)")
	if got := testQueryInt(t, tx, "SELECT count(*) FROM t"); got != 1 {
		t.Errorf("inside tx: count %d, want 1", got)
	}
	if got := testQueryInt(t, db, "SELECT count(*) FROM t"); got != 0 {
		t.Errorf("other connection during tx: count %d, want 0", got)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := testQueryInt(t, db, "SELECT count(*) FROM t"); got != 1 {
		t.Errorf("after commit: count %d, want 1", got)
	}
	if err := tx.Rollback(); !errors.Is(err, sql.ErrTxDone) {
		t.Errorf("Rollback after Commit: %v, want ErrTxDone", err)
	}

	tx, err = db.BeginTx(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	testMustExec(t, tx, "INSERT INTO t VALUES(2)")
	testMustExec(t, tx, "DELETE FROM t WHERE x = 1")
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if got := testQueryString(t, db, "SELECT group_concat(x) FROM t"); got != "1" {
		t.Errorf("after rollback: rows %q, want 1", got)
	}

	// Prepared statements inside a transaction.
	tx, err = db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	st, err := tx.Prepare("INSERT INTO t VALUES(?)")
	if err != nil {
		t.Fatal(err)
	}
	for i := 10; i < 20; i++ {
		if _, err := st.Exec(i); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := testQueryInt(t, db, "SELECT count(*) FROM t"); got != 11 {
		t.Errorf("count = %d, want 11", got)
	}
}

func TestTxReadOnly(t *testing.T) {
	for _, end := range []string{"commit", "rollback"} {
		t.Run(end, func(t *testing.T) {
			db := testMemDB(t, "")
			testMustExec(t, db, "CREATE TABLE t(x); INSERT INTO t VALUES(1)")
			ctx := context.Background()
			tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
			if err != nil {
				t.Fatalf("BeginTx(ReadOnly): %v", err)
			}
			if got := testQueryInt(t, tx, "SELECT count(*) FROM t"); got != 1 {
				t.Errorf("read in read-only tx: %d", got)
			}
			if _, err := tx.Exec("INSERT INTO t VALUES(2)"); err == nil {
				t.Error("INSERT in a read-only transaction succeeded")
			}
			if _, err := tx.Exec("CREATE TABLE t3(y)"); err == nil {
				t.Error("CREATE TABLE in a read-only transaction succeeded")
			}
			if end == "commit" {
				err = tx.Commit()
			} else {
				err = tx.Rollback()
			}
			if err != nil {
				t.Fatalf("%s: %v", end, err)
			}
			// The same (only) connection can write again.
			if _, err := db.Exec("INSERT INTO t VALUES(3)"); err != nil {
				t.Fatalf("write after read-only tx: %v", err)
			}
			tx, err = db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Exec("INSERT INTO t VALUES(4)"); err != nil {
				t.Fatalf("write in a normal tx after a read-only one: %v", err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			if got := testQueryString(t, db, "SELECT group_concat(x) FROM t"); got != "1,3,4" {
				t.Errorf("rows = %q, want 1,3,4", got)
			}
		})
	}
}

// Every isolation level is accepted, as mattn/go-sqlite3 v1.14.53 accepts
// them (it ignores TxOptions.Isolation), and each is served by SQLite's
// serializable isolation: a Read Committed transaction does not see another
// connection's commit made after its first read, which keeps every promise of
// Read Committed. With _strict=1 only the levels SQLite gives as asked are.
func TestTxIsolationLevels(t *testing.T) {
	ctx := context.Background()
	all := []sql.IsolationLevel{sql.LevelDefault, sql.LevelReadUncommitted, sql.LevelReadCommitted,
		sql.LevelWriteCommitted, sql.LevelRepeatableRead, sql.LevelSnapshot, sql.LevelSerializable,
		sql.LevelLinearizable, sql.IsolationLevel(99)}

	t.Run("default", func(t *testing.T) {
		path := testTempPath(t)
		db := openTestDB(t, path+"?_journal_mode=WAL")
		testMustExec(t, db, "CREATE TABLE t(x)")
		for _, lvl := range all {
			tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: lvl})
			if err != nil {
				t.Errorf("%v: %v", lvl, err)
				continue
			}
			if _, err := tx.Exec("INSERT INTO t VALUES(?)", int(lvl)); err != nil {
				t.Errorf("%v: insert: %v", lvl, err)
			}
			if err := tx.Commit(); err != nil {
				t.Errorf("%v: commit: %v", lvl, err)
			}
		}
		if got := testQueryString(t, db, "SELECT count(*) FROM t"); got != "9" {
			t.Fatalf("%s rows committed, want 9", got)
		}

		// Read Committed served as serializable: the snapshot of the first
		// read holds for the whole transaction.
		tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelReadCommitted})
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback()
		if got := testQueryString(t, tx, "SELECT count(*) FROM t"); got != "9" {
			t.Fatalf("in the transaction: %s rows, want 9", got)
		}
		other := openTestDB(t, path)
		testMustExec(t, other, "INSERT INTO t VALUES(100)")
		if got := testQueryString(t, tx, "SELECT count(*) FROM t"); got != "9" {
			t.Errorf("after another connection's commit: %s rows, want still 9 (serializable)", got)
		}
	})

	t.Run("strict", func(t *testing.T) {
		db := testMemDB(t, "_strict=1")
		testMustExec(t, db, "CREATE TABLE t(x)")
		for _, lvl := range all {
			tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: lvl})
			switch lvl {
			case sql.LevelDefault, sql.LevelSerializable, sql.LevelLinearizable:
				if err != nil {
					t.Errorf("%v: %v", lvl, err)
					continue
				}
				tx.Rollback()
				continue
			}
			want := "sqlite3: isolation level " + lvl.String() + " is refused with _strict=1: SQLite transactions are serializable (ask for sql.LevelSerializable)"
			if err == nil {
				tx.Rollback()
				t.Errorf("%v: BeginTx accepted with _strict=1", lvl)
			} else if err.Error() != want {
				t.Errorf("%v: %q, want %q", lvl, err, want)
			}
			// A refused BeginTx leaves no transaction open on the connection.
			if _, err := db.Exec("INSERT INTO t VALUES(100)"); err != nil {
				t.Fatalf("after refused %v: %v", lvl, err)
			}
			tx2, err := db.Begin()
			if err != nil {
				t.Fatalf("Begin after refused %v: %v", lvl, err)
			}
			tx2.Rollback()
		}
	})
}

func TestTxLockImmediate(t *testing.T) {
	path := testTempPath(t)
	setup := openTestDB(t, path)
	testMustExec(t, setup, "CREATE TABLE t(x); INSERT INTO t VALUES(1)")

	db1 := openTestDB(t, path+"?_txlock=immediate&_busy_timeout=0")
	db2 := openTestDB(t, path+"?_txlock=immediate&_busy_timeout=0")
	tx1, err := db1.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx1.Rollback()

	start := time.Now()
	tx2, err := db2.Begin()
	if err == nil {
		tx2.Rollback()
		t.Fatal("second BEGIN IMMEDIATE succeeded while the first holds the write lock")
	}
	e := testAsError(t, err)
	if e.Code != ErrBusy {
		t.Errorf("Code = %d (%v), want ErrBusy", e.Code, err)
	}
	if !errors.Is(err, ErrBusy) {
		t.Errorf("errors.Is(err, ErrBusy) = false for %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("busy error took %v with _busy_timeout=0", d)
	}
	// Readers are not blocked by an immediate transaction.
	if got := testQueryInt(t, db2, "SELECT count(*) FROM t"); got != 1 {
		t.Errorf("reader count = %d", got)
	}
	if err := tx1.Rollback(); err != nil {
		t.Fatal(err)
	}
	// Once released, the second writer gets in.
	tx2, err = db2.Begin()
	if err != nil {
		t.Fatalf("Begin after release: %v", err)
	}
	testMustExec(t, tx2, "INSERT INTO t VALUES(2)")
	if err := tx2.Commit(); err != nil {
		t.Fatal(err)
	}

	// Contrast: with the default (deferred) BEGIN the second Begin succeeds and
	// only its first write is refused.
	dd1 := openTestDB(t, path+"?_busy_timeout=0")
	dd2 := openTestDB(t, path+"?_txlock=deferred&_busy_timeout=0")
	txa, err := dd1.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer txa.Rollback()
	testMustExec(t, txa, "INSERT INTO t VALUES(3)")
	txb, err := dd2.Begin()
	if err != nil {
		t.Fatalf("deferred Begin while another writes: %v", err)
	}
	defer txb.Rollback()
	_, err = txb.Exec("INSERT INTO t VALUES(4)")
	if e := testAsError(t, err); e.Code != ErrBusy {
		t.Errorf("deferred write: Code = %d (%v), want ErrBusy", e.Code, err)
	}
}

func TestTxLockExclusive(t *testing.T) {
	path := testTempPath(t)
	setup := openTestDB(t, path)
	testMustExec(t, setup, "CREATE TABLE t(x); INSERT INTO t VALUES(1)")
	if err := setup.Close(); err != nil {
		t.Fatal(err)
	}

	db1 := openTestDB(t, path+"?_txlock=exclusive&_busy_timeout=0")
	db2 := openTestDB(t, path+"?_txlock=exclusive&_busy_timeout=0")
	tx1, err := db1.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx1.Rollback()
	tx2, err := db2.Begin()
	if err == nil {
		tx2.Rollback()
		t.Fatal("second BEGIN EXCLUSIVE succeeded")
	}
	if e := testAsError(t, err); e.Code != ErrBusy {
		t.Errorf("Code = %d (%v), want ErrBusy", e.Code, err)
	}
	// In rollback-journal mode an exclusive transaction also keeps readers out.
	var n int64
	err = db2.QueryRow("SELECT count(*) FROM t").Scan(&n)
	if e := testAsError(t, err); e.Code != ErrBusy {
		t.Errorf("reader during exclusive tx: Code = %d (%v), want ErrBusy", e.Code, err)
	}
	if err := tx1.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := testQueryInt(t, db2, "SELECT count(*) FROM t"); got != 1 {
		t.Errorf("count = %d after release", got)
	}
}

func TestTxRollbackAfterError(t *testing.T) {
	db := testMemDB(t, "")
	testMustExec(t, db, "CREATE TABLE t(x UNIQUE)")
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	testMustExec(t, tx, "INSERT INTO t VALUES(1)")
	if _, err := tx.Exec("INSERT INTO t VALUES(1)"); err == nil {
		t.Fatal("duplicate insert succeeded")
	}
	if _, err := tx.Exec("INSERT INTO nosuch VALUES(1)"); err == nil {
		t.Fatal("insert into a missing table succeeded")
	}
	// The statement failed, the transaction goes on.
	if got := testQueryInt(t, tx, "SELECT count(*) FROM t"); got != 1 {
		t.Errorf("inside tx after errors: count %d, want 1", got)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatalf("Rollback after error: %v", err)
	}
	if got := testQueryInt(t, db, "SELECT count(*) FROM t"); got != 0 {
		t.Errorf("after rollback: count %d, want 0", got)
	}
	// The connection is out of the transaction: BEGIN works again.
	tx, err = db.Begin()
	if err != nil {
		t.Fatalf("Begin after rollback: %v", err)
	}
	testMustExec(t, tx, "INSERT INTO t VALUES(2)")
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := testQueryInt(t, db, "SELECT count(*) FROM t"); got != 1 {
		t.Errorf("count = %d, want 1", got)
	}
}

// testLongQuery runs for minutes unless interrupted.
const testLongQuery = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 1000000000) SELECT count(*) FROM c"

// testBounded runs f and fails the test if it does not return within d.
func testBounded(t *testing.T, d time.Duration, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("operation still running after %v: cancellation not honoured", d)
		return nil
	}
}

func TestContextCancelLongQuery(t *testing.T) {
	for _, strict := range []bool{false, true} {
		dsn := ":memory:"
		if strict {
			dsn += "?_strict=1"
		}
		testContextCancelLongQuery(t, openTestDB(t, dsn), strict)
	}
}

func testContextCancelLongQuery(t *testing.T, db *sql.DB, strict bool) {
	for _, op := range []string{"query", "exec"} {
		t.Run(fmt.Sprintf("%s/strict=%v", op, strict), func(t *testing.T) {
			conn := testConn(t, db)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var cancelledAt atomic.Int64
			timer := time.AfterFunc(50*time.Millisecond, func() {
				cancelledAt.Store(time.Now().UnixNano())
				cancel()
			})
			defer timer.Stop()
			err := testBounded(t, 10*time.Second, func() error {
				if op == "exec" {
					_, err := conn.ExecContext(ctx, testLongQuery)
					return err
				}
				var n int64
				return conn.QueryRowContext(ctx, testLongQuery).Scan(&n)
			})
			returned := time.Now()
			if err == nil {
				t.Fatal("cancelled long query returned no error")
			}
			if at := cancelledAt.Load(); at == 0 {
				t.Fatalf("query failed before it was cancelled: %v", err)
			} else if d := returned.Sub(time.Unix(0, at)); d > time.Second {
				t.Errorf("query returned %v after cancellation, want within 1s", d)
			}
			if !errors.Is(err, context.Canceled) {
				t.Errorf("errors.Is(err, context.Canceled) = false for %v (%T)", err, err)
			}
			// By default the error is the context's, as in mattn/go-sqlite3
			// (programs compare it with ==). With _strict, the driver's error
			// carries both causes. (database/sql itself may substitute the bare
			// ctx.Err() when it closes Rows on cancellation; that error is
			// context.Canceled itself.)
			if !strict && err != context.Canceled {
				t.Errorf("err = %v (%T), want context.Canceled itself", err, err)
			}
			if strict && (op == "exec" || err != context.Canceled) {
				if !errors.Is(err, ErrInterrupt) {
					t.Errorf("errors.Is(err, ErrInterrupt) = false for %v (%T)", err, err)
				}
				var se Error
				if !errors.As(err, &se) || se.Code != ErrInterrupt || se.ExtendedCode != ErrNoExtended(ErrInterrupt) {
					t.Errorf("errors.As(err, *Error) = %v, %#v for %v", errors.As(err, &se), se, err)
				}
				// database/sql unwraps it several times per failed query.
				if n := testing.AllocsPerRun(10, func() { _ = errors.Is(err, driver.ErrBadConn) }); n != 0 {
					t.Errorf("errors.Is on the interrupted error allocates %v times", n)
				}
			}
			var n int64
			if err := conn.QueryRowContext(context.Background(), "SELECT 1").Scan(&n); err != nil || n != 1 {
				t.Fatalf("SELECT 1 on the same connection afterwards: %d, %v", n, err)
			}
		})
	}
}

func TestContextDeadline(t *testing.T) {
	db := openTestDB(t, ":memory:")
	conn := testConn(t, db)
	for _, op := range []string{"query", "exec"} {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Millisecond)
		err := testBounded(t, 10*time.Second, func() error {
			if op == "exec" {
				_, err := conn.ExecContext(ctx, testLongQuery)
				return err
			}
			var n int64
			return conn.QueryRowContext(ctx, testLongQuery).Scan(&n)
		})
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: errors.Is(err, context.DeadlineExceeded) = false for %v", op, err)
		}
		if errors.Is(err, context.Canceled) {
			t.Errorf("%s: deadline error also claims context.Canceled: %v", op, err)
		}
		if got := testQueryInt(t, conn, "SELECT 2"); got != 2 {
			t.Fatalf("%s: connection unusable afterwards", op)
		}
	}
}

func TestContextAlreadyCancelled(t *testing.T) {
	db := openTestDB(t, testTempPath(t))
	testMustExec(t, db, "CREATE TABLE t(x)")
	conn := testConn(t, db)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	if _, err := conn.ExecContext(ctx, "INSERT INTO t VALUES(1)"); !errors.Is(err, context.Canceled) {
		t.Errorf("Conn.ExecContext: %v, want context.Canceled", err)
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO t VALUES(2)"); !errors.Is(err, context.Canceled) {
		t.Errorf("DB.ExecContext: %v, want context.Canceled", err)
	}
	if rows, err := conn.QueryContext(ctx, "SELECT 1"); err == nil {
		if rows.Next() {
			t.Error("QueryContext with a cancelled context returned a row")
		}
		err = rows.Err()
		rows.Close()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("QueryContext: rows.Err = %v, want context.Canceled", err)
		}
	} else if !errors.Is(err, context.Canceled) {
		t.Errorf("QueryContext: %v, want context.Canceled", err)
	}
	if _, err := conn.BeginTx(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("BeginTx: %v, want context.Canceled", err)
	}
	if err := db.PingContext(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("DB.PingContext: %v, want context.Canceled", err)
	}
	st, err := conn.PrepareContext(context.Background(), "INSERT INTO t VALUES(3)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.ExecContext(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Stmt.ExecContext: %v, want context.Canceled", err)
	}
	st.Close()
	if got := testQueryInt(t, conn, "SELECT count(*) FROM t"); got != 0 {
		t.Errorf("%d rows inserted with a cancelled context", got)
	}
	if got := testQueryInt(t, conn, "SELECT 1"); got != 1 {
		t.Error("connection unusable")
	}
}

func TestContextNoStaleInterrupt(t *testing.T) {
	db := openTestDB(t, ":memory:")
	conn := testConn(t, db)
	testMustExec(t, conn, "CREATE TABLE t(x)")
	const follow = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000) SELECT sum(x) FROM c"
	const followSum = 5000 * 5001 / 2
	for i := 0; i < 200; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		var err error
		switch i % 3 {
		case 0:
			var v int64
			err = conn.QueryRowContext(ctx, "SELECT ?", i).Scan(&v)
			if err == nil && v != int64(i) {
				err = fmt.Errorf("got %d", v)
			}
		case 1:
			_, err = conn.ExecContext(ctx, "INSERT INTO t VALUES(?)", i)
		case 2:
			var rows *sql.Rows
			rows, err = conn.QueryContext(ctx, "SELECT x FROM t LIMIT 3")
			if err == nil {
				for rows.Next() {
				}
				err = rows.Err()
				rows.Close()
			}
		}
		cancel()
		if err != nil {
			t.Fatalf("iteration %d: quick op with a live context: %v", i, err)
		}
		var sum int64
		if err := conn.QueryRowContext(context.Background(), follow).Scan(&sum); err != nil || sum != followSum {
			t.Fatalf("iteration %d: next query after cancelling a finished one: %d, %v", i, sum, err)
		}
		if _, err := conn.ExecContext(context.Background(), "UPDATE t SET x = x WHERE x < 0"); err != nil {
			t.Fatalf("iteration %d: exec after cancelling a finished one: %v", i, err)
		}
	}
}

func TestContextCancelMidScan(t *testing.T) {
	db := openTestDB(t, ":memory:")
	conn := testConn(t, db)
	const total = 1000000
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rows, err := conn.QueryContext(ctx, fmt.Sprintf("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < %d) SELECT x FROM c", total))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for n < 10 && rows.Next() {
		var x int64
		if err := rows.Scan(&x); err != nil {
			t.Fatal(err)
		}
		n++
		if x != int64(n) {
			t.Fatalf("row %d = %d", n, x)
		}
	}
	if n != 10 {
		t.Fatalf("only %d rows before cancelling: %v", n, rows.Err())
	}
	cancel()
	for rows.Next() {
		n++
	}
	err = rows.Err()
	rows.Close()
	if n >= total {
		t.Errorf("all %d rows were read despite cancellation", n)
	}
	if !errors.Is(err, context.Canceled) {
		t.Errorf("rows.Err() after cancel = %v, want context.Canceled", err)
	}
	t.Logf("%d rows read, then %v", n, err)
	if got := testQueryInt(t, conn, "SELECT 3"); got != 3 {
		t.Fatal("connection unusable after mid-scan cancellation")
	}
}

func TestContextRandomCancel(t *testing.T) {
	db := openTestDB(t, ":memory:")
	conn := testConn(t, db)
	testMustExec(t, conn, "CREATE TABLE t(x)")
	const q = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 20000) SELECT sum(x) FROM c"
	const want = 20000 * 20001 / 2
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	var ok, cancelled int
	inserted := 0
	for i := 0; i < 300; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(rng.Int63n(int64(2*time.Millisecond)+1)))
		var err error
		switch i % 3 {
		case 0, 1:
			var sum int64
			err = conn.QueryRowContext(ctx, q).Scan(&sum)
			if err == nil && sum != want {
				t.Fatalf("iteration %d: sum %d, want %d", i, sum, want)
			}
		case 2:
			var res sql.Result
			res, err = conn.ExecContext(ctx, "INSERT INTO t SELECT x FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000) SELECT x FROM c)")
			if err == nil {
				if n, _ := res.RowsAffected(); n != 2000 {
					t.Fatalf("iteration %d: RowsAffected %d, want 2000", i, n)
				}
				inserted += 2000
			}
		}
		cancel()
		switch {
		case err == nil:
			ok++
		case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
			cancelled++
		default:
			t.Fatalf("iteration %d: error is neither a result nor a context error: %v (%T)", i, err, err)
		}
		var one int64
		if err := conn.QueryRowContext(context.Background(), "SELECT 1").Scan(&one); err != nil || one != 1 {
			t.Fatalf("iteration %d: connection unusable: %v", i, err)
		}
		// Statements are atomic: an interrupted INSERT ... SELECT adds nothing.
		if got := testQueryInt(t, conn, "SELECT count(*) FROM t"); got != int64(inserted) {
			t.Fatalf("iteration %d: %d rows in t, want %d", i, got, inserted)
		}
	}
	t.Logf("%d completed, %d cancelled", ok, cancelled)
}

func TestColumnTypes(t *testing.T) {
	db := testMemDB(t, "")
	var (
		nullInt64   = reflect.TypeOf(sql.NullInt64{})
		nullString  = reflect.TypeOf(sql.NullString{})
		rawBytes    = reflect.TypeOf(sql.RawBytes{})
		nullFloat64 = reflect.TypeOf(sql.NullFloat64{})
		nullBool    = reflect.TypeOf(sql.NullBool{})
		nullTime    = reflect.TypeOf(sql.NullTime{})
		anyPtr      = reflect.TypeOf(new(any))
	)
	cols := []struct {
		name, decl string
		scan       reflect.Type
	}{
		{"c_integer", "INTEGER", nullInt64},
		{"c_int", "INT", nullInt64},
		{"c_bigint", "BIGINT", nullInt64},
		{"c_tinyint", "TINYINT", nullInt64},
		{"c_ubig", "UNSIGNED BIG INT", nullInt64},
		{"c_lower_vc", "varchar(5)", nullString},
		{"c_lower_dt", "datetime", nullTime},
		{"c_varchar", "VARCHAR(10)", nullString},
		{"c_text", "TEXT", nullString},
		{"c_char", "CHARACTER(20)", nullString},
		{"c_nvarchar", "NVARCHAR(100)", nullString},
		{"c_clob", "CLOB", nullString},
		{"c_blob", "BLOB", rawBytes},
		{"c_real", "REAL", nullFloat64},
		{"c_float", "FLOAT", nullFloat64},
		{"c_double", "DOUBLE", nullFloat64},
		{"c_dp", "DOUBLE PRECISION", nullFloat64},
		{"c_numeric", "NUMERIC", nullFloat64},
		{"c_decimal", "DECIMAL(10,5)", nullFloat64},
		{"c_boolean", "BOOLEAN", nullBool},
		{"c_date", "DATE", nullTime},
		{"c_datetime", "DATETIME", nullTime},
		{"c_timestamp", "TIMESTAMP", nullTime},
		{"c_none", "", anyPtr},
		{"c_json", "JSON", anyPtr},
	}
	var defs, names []string
	for _, c := range cols {
		defs = append(defs, strings.TrimSpace(c.name+" "+c.decl))
		names = append(names, c.name)
	}
	testMustExec(t, db, "CREATE TABLE ct("+strings.Join(defs, ", ")+", c_notnull INTEGER NOT NULL, c_nn_text TEXT NOT NULL DEFAULT '')")
	query := "SELECT " + strings.Join(names, ", ") + ", c_notnull, c_nn_text, c_integer + 1 AS expr FROM ct"

	check := func(t *testing.T) {
		rows, err := db.Query(query)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		cts, err := rows.ColumnTypes()
		if err != nil {
			t.Fatal(err)
		}
		if len(cts) != len(cols)+3 {
			t.Fatalf("%d column types, want %d", len(cts), len(cols)+3)
		}
		for i, c := range cols {
			ct := cts[i]
			if ct.Name() != c.name {
				t.Errorf("column %d: Name = %q, want %q", i, ct.Name(), c.name)
			}
			if got := ct.DatabaseTypeName(); got != c.decl {
				t.Errorf("%s: DatabaseTypeName = %q, want %q", c.name, got, c.decl)
			}
			if got := ct.ScanType(); got != c.scan {
				t.Errorf("%s (%s): ScanType = %v, want %v", c.name, c.decl, got, c.scan)
			}
			if nullable, ok := ct.Nullable(); !ok || !nullable {
				t.Errorf("%s: Nullable = %v, %v; want true, true", c.name, nullable, ok)
			}
		}
		for _, i := range []int{len(cols), len(cols) + 1} {
			if nullable, ok := cts[i].Nullable(); !ok || nullable {
				t.Errorf("%s (NOT NULL): Nullable = %v, %v; want false, true", cts[i].Name(), nullable, ok)
			}
		}
		if got := cts[len(cols)].DatabaseTypeName(); got != "INTEGER" {
			t.Errorf("c_notnull: DatabaseTypeName = %q", got)
		}
		expr := cts[len(cols)+2]
		if expr.Name() != "expr" {
			t.Errorf("expression column Name = %q, want expr", expr.Name())
		}
		if nullable, ok := expr.Nullable(); ok && !nullable {
			t.Errorf("expression column claims NOT NULL")
		}
		if got := expr.DatabaseTypeName(); got != "" {
			t.Errorf("expression column DatabaseTypeName = %q, want empty", got)
		}
		for rows.Next() {
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("empty table", check)
	testMustExec(t, db, "INSERT INTO ct(c_integer, c_text, c_notnull) VALUES(1, 'x', 2)")
	t.Run("one row", check)

	// Scanning into the reported ScanType works for every column.
	testMustExec(t, db, `UPDATE ct SET c_int = 2, c_bigint = 3, c_tinyint = 4, c_ubig = 5, c_lower_vc = 'lv', c_lower_dt = '2021-01-01',
		c_varchar = 'v', c_char = 'c', c_nvarchar = 'n', c_clob = 'l', c_blob = x'0102',
		c_real = 1.5, c_float = 2.5, c_double = 3.5, c_dp = 4.5, c_numeric = 5.5, c_decimal = 6.5,
		c_boolean = 1, c_date = '2020-01-02', c_datetime = '2020-01-02 03:04:05', c_timestamp = 1577934245,
		c_none = 'any', c_json = '{}'`)
	rows, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		t.Fatal(err)
	}
	if !rows.Next() {
		t.Fatal(rows.Err())
	}
	dest := make([]any, len(cts))
	for i, ct := range cts {
		st := ct.ScanType()
		if st.Kind() == reflect.Pointer && st.Elem().Kind() == reflect.Interface {
			dest[i] = reflect.New(st.Elem()).Interface()
		} else {
			dest[i] = reflect.New(st).Interface()
		}
	}
	if err := rows.Scan(dest...); err != nil {
		t.Fatalf("Scan into ScanType values: %v", err)
	}
	if v := dest[0].(*sql.NullInt64); !v.Valid || v.Int64 != 1 {
		t.Errorf("c_integer = %+v", v)
	}
	if v := dest[19].(*sql.NullBool); !v.Valid || !v.Bool {
		t.Errorf("c_boolean = %+v", v)
	}
	if v := dest[21].(*sql.NullTime); !v.Valid || !v.Time.Equal(time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)) {
		t.Errorf("c_datetime = %+v", v)
	}
	if v := dest[22].(*sql.NullTime); !v.Valid || !v.Time.Equal(time.Unix(1577934245, 0)) {
		t.Errorf("c_timestamp = %+v", v)
	}
	if v := dest[12].(*sql.RawBytes); !bytes.Equal(*v, []byte{1, 2}) {
		t.Errorf("c_blob = %v", *v)
	}
}

func TestColumnNames(t *testing.T) {
	db := testMemDB(t, "")
	testMustExec(t, db, "CREATE TABLE t(a INTEGER, b TEXT, \"Mixed Case\" REAL)")
	tests := []struct {
		query string
		want  []string
	}{
		{"SELECT a, b FROM t", []string{"a", "b"}},
		{"SELECT a AS alias1, b, \"Mixed Case\" FROM t", []string{"alias1", "b", "Mixed Case"}},
		{"SELECT a + 1, 'lit' AS \"Quoted Name\", count(*) FROM t", []string{"a + 1", "Quoted Name", "count(*)"}},
		{"SELECT * FROM t", []string{"a", "b", "Mixed Case"}},
		{"SELECT 1 AS x, 2 AS x", []string{"x", "x"}},
		{"SELECT t.a FROM t", []string{"a"}},
	}
	for _, tc := range tests {
		rows, err := db.Query(tc.query)
		if err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		got, err := rows.Columns()
		rows.Close()
		if err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: Columns = %q, want %q", tc.query, got, tc.want)
		}
	}
	// A statement that returns no rows has no columns.
	rows, err := db.Query("INSERT INTO t(a) VALUES(1)")
	if err != nil {
		t.Fatal(err)
	}
	cols, err := rows.Columns()
	rows.Close()
	if err != nil || len(cols) != 0 {
		t.Errorf("INSERT via Query: Columns = %q, %v", cols, err)
	}
	if got := testQueryInt(t, db, "SELECT count(*) FROM t"); got != 1 {
		t.Errorf("INSERT via Query inserted %d rows, want exactly 1", got)
	}
}

func TestPoolConcurrentWAL(t *testing.T) {
	path := testTempPath(t)
	db := openTestDB(t, path+"?_busy_timeout=5000&_txlock=immediate&_journal_mode=WAL")
	db.SetMaxOpenConns(8)
	testMustExec(t, db, `CREATE TABLE items(id INTEGER PRIMARY KEY, worker INTEGER NOT NULL, n INTEGER NOT NULL, payload TEXT);
		CREATE TABLE counter(id INTEGER PRIMARY KEY, v INTEGER NOT NULL);
		INSERT INTO counter VALUES(1, 0)`)
	if got := testQueryString(t, db, "PRAGMA journal_mode"); got != "wal" {
		t.Fatalf("journal_mode = %q", got)
	}
	countStmt, err := db.Prepare("SELECT count(*) FROM items WHERE worker = ?")
	if err != nil {
		t.Fatal(err)
	}
	defer countStmt.Close()

	const workers, iters = 8, 40
	var wg sync.WaitGroup
	errc := make(chan error, workers*iters)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < iters; i++ {
				err := func() error {
					tx, err := db.Begin()
					if err != nil {
						return fmt.Errorf("begin: %w", err)
					}
					defer tx.Rollback()
					if _, err := tx.Exec("INSERT INTO items(worker, n, payload) VALUES(?, ?, ?)", w, i, strings.Repeat("p", 100+i)); err != nil {
						return fmt.Errorf("insert: %w", err)
					}
					if _, err := tx.Exec("UPDATE counter SET v = v + 1 WHERE id = 1"); err != nil {
						return fmt.Errorf("update: %w", err)
					}
					var mine int
					if err := tx.QueryRow("SELECT count(*) FROM items WHERE worker = ?", w).Scan(&mine); err != nil {
						return fmt.Errorf("count in tx: %w", err)
					}
					if mine != i+1 {
						return fmt.Errorf("worker %d sees %d own rows in tx, want %d", w, mine, i+1)
					}
					return tx.Commit()
				}()
				if err != nil {
					errc <- fmt.Errorf("worker %d iteration %d: %w", w, i, err)
					return
				}
				var mine int
				if err := countStmt.QueryRow(w).Scan(&mine); err != nil {
					errc <- fmt.Errorf("worker %d read: %w", w, err)
					return
				}
				if mine != i+1 {
					errc <- fmt.Errorf("worker %d reads %d own rows, want %d", w, mine, i+1)
					return
				}
				var total, v int
				if err := db.QueryRow("SELECT (SELECT count(*) FROM items), (SELECT v FROM counter)").Scan(&total, &v); err != nil {
					errc <- fmt.Errorf("worker %d total: %w", w, err)
					return
				}
				if total != v {
					errc <- fmt.Errorf("snapshot inconsistent: %d items, counter %d", total, v)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
	var total, v, distinct int64
	if err := db.QueryRow("SELECT (SELECT count(*) FROM items), (SELECT v FROM counter), (SELECT count(DISTINCT worker || '/' || n) FROM items)").Scan(&total, &v, &distinct); err != nil {
		t.Fatal(err)
	}
	if total != workers*iters || v != workers*iters || distinct != workers*iters {
		t.Fatalf("items %d, counter %d, distinct %d; want %d each", total, v, distinct, workers*iters)
	}
}
