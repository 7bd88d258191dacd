//go:build cgo

package sqlite3

import (
	"database/sql"
	"errors"
	"strings"
	"testing"
)

// The SQL features compiled into the vendored SQLite (compile_options.go),
// each used for real.
// fts5Tag is set when the tests are built with -tags sqlite_fts5 or fts5.
var fts5Tag bool

func TestCompiledInFeatures(t *testing.T) {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	str := func(t *testing.T, query string, args ...any) string {
		t.Helper()
		var s sql.NullString
		if err := db.QueryRow(query, args...).Scan(&s); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		return s.String
	}
	exec := func(t *testing.T, query string) {
		t.Helper()
		if _, err := db.Exec(query); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
	}

	t.Run("JSON", func(t *testing.T) {
		if got := str(t, `SELECT json_extract('{"a":{"b":[1,2,3]}}', '$.a.b[2]')`); got != "3" {
			t.Fatalf("json_extract = %q", got)
		}
		if got := str(t, `SELECT json_group_array(value) FROM json_each('[3,1,2]')`); got != "[3,1,2]" {
			t.Fatalf("json_each/json_group_array = %q", got)
		}
		if got := str(t, `SELECT '{"x":[1,{"y":2}]}' ->> '$.x[1].y'`); got != "2" {
			t.Fatalf("->> = %q", got)
		}
	})
	t.Run("JSONB", func(t *testing.T) {
		// jsonb() stores the binary form; json() turns it back into text.
		if got := str(t, `SELECT json(jsonb('{"k": [true, null, 1.5]}'))`); got != `{"k":[true,null,1.5]}` {
			t.Fatalf("json(jsonb(...)) = %q", got)
		}
		if got := str(t, `SELECT typeof(jsonb('[1]'))`); got != "blob" {
			t.Fatalf("jsonb is a %s, want blob", got)
		}
	})
	t.Run("FTS5", func(t *testing.T) {
		if str(t, `SELECT sqlite_compileoption_used('ENABLE_FTS5')`) != "1" {
			if fts5Tag {
				t.Fatal("built with -tags sqlite_fts5, but SQLite has no FTS5")
			}
			t.Skip("FTS5 is compiled in with -tags sqlite_fts5 (or fts5), as in mattn/go-sqlite3")
		}
		exec(t, `CREATE VIRTUAL TABLE docs USING fts5(title, body)`)
		exec(t, `INSERT INTO docs VALUES ('Go', 'a driver for SQLite written with cgo'),
			('C', 'the SQLite amalgamation'), ('Rust', 'nothing about it')`)
		if got := str(t, `SELECT group_concat(title, ',') FROM (SELECT title FROM docs WHERE docs MATCH 'sqlite' ORDER BY rank, title)`); got != "C,Go" && got != "Go,C" {
			t.Fatalf("FTS5 MATCH 'sqlite' = %q", got)
		}
		if got := str(t, `SELECT highlight(docs, 1, '[', ']') FROM docs WHERE docs MATCH 'amalgamation'`); !strings.Contains(got, "[amalgamation]") {
			t.Fatalf("highlight = %q", got)
		}
	})
	t.Run("FTS4", func(t *testing.T) {
		exec(t, `CREATE VIRTUAL TABLE notes USING fts4(body)`)
		exec(t, `INSERT INTO notes VALUES ('alpha beta'), ('beta gamma')`)
		if got := str(t, `SELECT count(*) FROM notes WHERE notes MATCH 'beta NOT alpha'`); got != "1" {
			t.Fatalf("FTS4 enhanced query syntax: %q rows", got)
		}
	})
	t.Run("RTree", func(t *testing.T) {
		exec(t, `CREATE VIRTUAL TABLE boxes USING rtree(id, minx, maxx, miny, maxy)`)
		exec(t, `INSERT INTO boxes VALUES (1, 0, 10, 0, 10), (2, 20, 30, 20, 30), (3, 5, 25, 5, 25)`)
		if got := str(t, `SELECT group_concat(id) FROM (SELECT id FROM boxes WHERE maxx >= 8 AND minx <= 9 AND maxy >= 8 AND miny <= 9 ORDER BY id)`); got != "1,3" {
			t.Fatalf("R*Tree overlap query = %q", got)
		}
	})
	t.Run("MathFunctions", func(t *testing.T) {
		if got := str(t, `SELECT printf('%.4f|%d|%.1f', pi(), pow(2, 10), log10(1000))`); got != "3.1416|1024|3.0" {
			t.Fatalf("math functions = %q", got)
		}
	})
	t.Run("DBStat", func(t *testing.T) {
		exec(t, `CREATE TABLE sized (x); INSERT INTO sized VALUES (randomblob(10000))`)
		if got := str(t, `SELECT count(*) > 0 FROM dbstat WHERE name = 'sized'`); got != "1" {
			t.Fatalf("dbstat has no pages for the table")
		}
	})
	t.Run("STRICT", func(t *testing.T) {
		exec(t, `CREATE TABLE strict_t (i INTEGER, s TEXT) STRICT`)
		_, err := db.Exec(`INSERT INTO strict_t VALUES ('not a number', 'ok')`)
		var e Error
		if !errors.As(err, &e) || e.ExtendedCode != ErrNoExtended(3091) { // SQLITE_CONSTRAINT_DATATYPE
			t.Fatalf("STRICT type violation: %v, want SQLITE_CONSTRAINT_DATATYPE", err)
		}
	})
	t.Run("RETURNING", func(t *testing.T) {
		exec(t, `CREATE TABLE ret (id INTEGER PRIMARY KEY, v TEXT)`)
		rows, err := db.Query(`INSERT INTO ret (v) VALUES ('a'), ('b') RETURNING id, upper(v)`)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for rows.Next() {
			var id int64
			var v string
			if err := rows.Scan(&id, &v); err != nil {
				t.Fatal(err)
			}
			got = append(got, itoa(int(id))+v)
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, ",") != "1A,2B" {
			t.Fatalf("RETURNING rows = %q", got)
		}
		// Through Exec, RETURNING rows are stepped and the changes counted.
		res, err := db.Exec(`UPDATE ret SET v = v || '!' RETURNING id`)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := res.RowsAffected(); n != 2 {
			t.Fatalf("UPDATE ... RETURNING through Exec affected %d rows, want 2", n)
		}
	})
	t.Run("NoUpdateDeleteLimit", func(t *testing.T) {
		// The amalgamation's parser is built without ORDER BY/LIMIT on DELETE
		// and UPDATE, whatever SQLITE_ENABLE_UPDATE_DELETE_LIMIT says; say so
		// rather than pretend (compile_options.go).
		exec(t, `CREATE TABLE lim (x)`)
		if _, err := db.Exec(`DELETE FROM lim ORDER BY x LIMIT 1`); err == nil {
			t.Fatal("DELETE ... LIMIT works: document it in compile_options.go and the README")
		}
	})
}
