//go:build cgo

package sqlite3

// Every leniency of the default mode (mattn/go-sqlite3 v1.14.53's behaviour,
// checked against mattn itself) and the error or result the same program gets
// with _strict=1.

import (
	"database/sql"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// strictModes runs f on a fresh in-memory database holding table t(a, b),
// once by default and once with _strict=1.
func strictModes(t *testing.T, f func(t *testing.T, db *sql.DB, strict bool)) {
	for _, strict := range []bool{false, true} {
		name, params := "default", ""
		if strict {
			name, params = "strict", "_strict=1"
		}
		t.Run(name, func(t *testing.T) {
			db := testMemDB(t, params)
			testMustExec(t, db, "CREATE TABLE t(a, b)")
			f(t, db, strict)
		})
	}
}

// strictWantErr checks err: nil by default, an error containing msg in strict
// mode.
func strictWantErr(t *testing.T, what string, err error, strict bool, msg string) {
	t.Helper()
	switch {
	case !strict && err != nil:
		t.Errorf("%s: %v, want no error (as mattn/go-sqlite3)", what, err)
	case strict && (err == nil || !strings.Contains(err.Error(), msg)):
		t.Errorf("%s: %v, want an error containing %q", what, err, msg)
	}
}

func strictRows(t *testing.T, db *sql.DB) string {
	t.Helper()
	return testQueryString(t, db, "SELECT coalesce(group_concat(coalesce(a, 'NULL') || ':' || coalesce(b, 'NULL'), ','), '') FROM t")
}

func TestStrictSurplusArguments(t *testing.T) {
	strictModes(t, func(t *testing.T, db *sql.DB, strict bool) {
		_, err := db.Exec("INSERT INTO t VALUES(?, ?)", 1, 2, 3)
		strictWantErr(t, "positional surplus", err, strict, "too many arguments: 3 positional arguments given, statements use 2")
		_, err = db.Exec("INSERT INTO t VALUES(:a, :b)", sql.Named("a", 3), sql.Named("b", 4), sql.Named("bar", 42))
		strictWantErr(t, "unused named", err, strict, `no parameter named "bar"`)
		_, err = db.Exec("INSERT INTO t VALUES(5, 6)", 7)
		strictWantErr(t, "argument for a statement without parameters", err, strict, "too many arguments")
		_, err = db.Exec("INSERT INTO t VALUES(?, 8); INSERT INTO t VALUES(?, 10)", 9, 11, 12)
		strictWantErr(t, "script surplus", err, strict, "too many arguments")
		want := "1:2,3:4,5:6,9:8,11:10"
		if strict {
			want = "9:8" // the script's first statement ran before the surplus showed
		}
		if got := strictRows(t, db); got != want {
			t.Errorf("rows %q, want %q", got, want)
		}
		var v any
		err = db.QueryRow("SELECT ?", 1, 2).Scan(&v)
		strictWantErr(t, "query surplus", err, strict, "too many arguments")
		if !strict && v != int64(1) {
			t.Errorf("SELECT ? with 1, 2: %v, want 1", v)
		}
	})
}

// A parameter that no argument names is NULL while the statement has as many
// arguments as parameters (mattn binds by position and name, and leaves the
// rest unbound).
func TestStrictUnboundParameter(t *testing.T) {
	strictModes(t, func(t *testing.T, db *sql.DB, strict bool) {
		var a, b any
		err := db.QueryRow("SELECT ?, :b", 1, sql.Named("zz", 2)).Scan(&a, &b)
		strictWantErr(t, "SELECT ?, :b", err, strict, "not enough arguments: parameter 2 (:b) has no value")
		if !strict && (a != int64(1) || b != nil) {
			t.Errorf("SELECT ?, :b with 1 and zz: %v, %v, want 1, NULL", a, b)
		}
	})
}

// TestStrictNotEnoughArgs: by default mattn's error text, which programs
// compare (mattn's TestNotEnoughArgsErrorMessage), with SQLite's code for an
// index out of range.
func TestStrictNotEnoughArgs(t *testing.T) {
	strictModes(t, func(t *testing.T, db *sql.DB, strict bool) {
		for _, tc := range []struct {
			query  string
			args   []any
			mattn  string
			strict string
		}{
			{"SELECT ?; SELECT ?", []any{"hello"}, "not enough args to execute query: want 1 got 0", "sqlite3: not enough arguments: parameter 1 has no value (the query has 1 parameters in this statement)"},
			{"SELECT ?", nil, "not enough args to execute query: want 1 got 0", "sqlite3: not enough arguments: parameter 1 has no value"},
			{"SELECT ?, ?", []any{1}, "not enough args to execute query: want 2 got 1", "sqlite3: not enough arguments: parameter 2 has no value"},
			{"SELECT ?3", []any{1, 2}, "not enough args to execute query: want 3 got 2", "sqlite3: not enough arguments: parameter 3 (?3) has no value"},
			{"SELECT :a, ?", []any{sql.Named("a", 1)}, "not enough args to execute query: want 2 got 1", "sqlite3: not enough arguments: parameter 2 has no value"},
		} {
			_, execErr := db.Exec(tc.query, tc.args...)
			rows, queryErr := db.Query(tc.query, tc.args...)
			if queryErr == nil {
				rows.Close()
			}
			for _, err := range []error{execErr, queryErr} {
				switch {
				case err == nil:
					t.Errorf("%q %v: no error", tc.query, tc.args)
				case !strict && err.Error() != tc.mattn:
					t.Errorf("%q %v: %q, want %q", tc.query, tc.args, err, tc.mattn)
				case !strict && !errors.Is(err, ErrRange):
					t.Errorf("%q %v: %v is not ErrRange", tc.query, tc.args, err)
				case strict && !strings.HasPrefix(err.Error(), tc.strict):
					t.Errorf("%q %v: %q, want %q", tc.query, tc.args, err, tc.strict)
				}
			}
		}
	})
}

func TestStrictEmptySQL(t *testing.T) {
	strictModes(t, func(t *testing.T, db *sql.DB, strict bool) {
		testMustExec(t, db, "INSERT INTO t VALUES(1, 2)")
		for _, q := range []string{"", "   ", "-- c", "/* b */", ";", " ; -- c\n;"} {
			res, err := db.Exec(q)
			if err != nil {
				t.Errorf("Exec(%q): %v", q, err)
			} else if id, _ := res.LastInsertId(); id != 0 {
				t.Errorf("Exec(%q): LastInsertId %d, want 0", q, id)
			} else if n, _ := res.RowsAffected(); n != 0 {
				t.Errorf("Exec(%q): RowsAffected %d, want 0", q, n)
			}
			_, err = db.Exec(q, 1)
			strictWantErr(t, "Exec with an argument", err, strict, "too many arguments")
			for _, args := range [][]any{nil, {1}} {
				rows, err := db.Query(q, args...)
				strictWantErr(t, "Query", err, strict, "query has no SQL statement")
				if err != nil {
					continue
				}
				cols, err := rows.Columns()
				if err != nil || cols == nil || len(cols) != 0 {
					t.Errorf("Query(%q).Columns() = %#v, %v, want none", q, cols, err)
				}
				if rows.Next() {
					t.Errorf("Query(%q) has a row", q)
				}
				if err := rows.Err(); err != nil {
					t.Errorf("Query(%q): %v", q, err)
				}
				rows.Close()
			}
			// Prepare refuses in both modes: mattn's statement crashes when run.
			if _, err := db.Prepare(q); err == nil || !strings.Contains(err.Error(), "query has no SQL statement") {
				t.Errorf("Prepare(%q): %v, want an error", q, err)
			}
		}
	})
}

func TestStrictPrepareSeveralStatements(t *testing.T) {
	strictModes(t, func(t *testing.T, db *sql.DB, strict bool) {
		st, err := db.Prepare("INSERT INTO t VALUES(7, 7); INSERT INTO t VALUES(8, 8)")
		strictWantErr(t, "Prepare", err, strict, "Prepare takes one statement")
		if err == nil {
			defer st.Close()
			if _, err := st.Exec(); err != nil {
				t.Fatal(err)
			}
			if got := strictRows(t, db); got != "7:7" {
				t.Errorf("rows %q, want 7:7 (the first statement only, as mattn)", got)
			}
		}
		st, err = db.Prepare("SELECT 1; this is not SQL")
		strictWantErr(t, "Prepare of a statement and junk", err, strict, "Prepare takes one statement")
		if err == nil {
			defer st.Close()
			var v int
			if err := st.QueryRow().Scan(&v); err != nil || v != 1 {
				t.Errorf("first statement: %d, %v", v, err)
			}
		}
	})
}

func TestStrictUnparseableTime(t *testing.T) {
	for _, strict := range []bool{false, true} {
		params := "_loc=auto"
		if strict {
			params += "&_strict=1"
		}
		db := testMemDB(t, params)
		testMustExec(t, db, "CREATE TABLE tm(ts TIMESTAMP, dt DATETIME, d DATE); INSERT INTO tm VALUES('garbage', '', '2026-13-45')")
		var vals [3]any
		if err := db.QueryRow("SELECT ts, dt, d FROM tm").Scan(&vals[0], &vals[1], &vals[2]); err != nil {
			t.Fatal(err)
		}
		for i, text := range []string{"garbage", "", "2026-13-45"} {
			if strict {
				if vals[i] != text {
					t.Errorf("strict: column %d = %#v, want the text %q", i, vals[i], text)
				}
				continue
			}
			tm, ok := vals[i].(time.Time)
			if !ok || !tm.IsZero() || tm.Location() != time.Local {
				t.Errorf("default: column %d = %#v, want the zero time.Time in _loc (as mattn)", i, vals[i])
			}
		}
		var tm time.Time
		err := db.QueryRow("SELECT ts FROM tm").Scan(&tm)
		if strict != (err != nil) {
			t.Errorf("strict=%v: Scan into time.Time: %v", strict, err)
		}
	}
}

func TestStrictFuncConversions(t *testing.T) {
	funcs := registerAll(map[string]any{
		"inc8":    func(a int8) int8 { return a + 1 },
		"ident":   func(a uint64) uint64 { return a },
		"big":     func() uint64 { return math.MaxUint64 },
		"onlyerr": func() error { return errors.New("only an error") },
	}, false)
	for _, strict := range []bool{false, true} {
		dsn := ":memory:"
		if strict {
			dsn += "?_strict=1"
		}
		db := openFuncDSN(t, dsn, funcs)
		for _, tc := range []struct {
			query string
			mattn any
			msg   string
		}{
			{"SELECT inc8(300)", int64(45), "inc8(): argument 1: 300 overflows int8"},
			{"SELECT ident(-1)", int64(-1), "ident(): argument 1: -1 overflows uint64"},
			{"SELECT big()", int64(-1), "big(): result 18446744073709551615 overflows"},
			{"SELECT onlyerr()", nil, "only an error"},
		} {
			var v any
			err := db.QueryRow(tc.query).Scan(&v)
			strictWantErr(t, tc.query, err, strict, tc.msg)
			if !strict && !reflect.DeepEqual(v, tc.mattn) {
				t.Errorf("%s = %#v, want %#v (as mattn)", tc.query, v, tc.mattn)
			}
		}
	}
}

func TestStrictDSN(t *testing.T) {
	for _, tc := range []struct {
		params string
		strict bool // the parsed switch
		err    string
	}{
		{"_strict=1", true, ""}, {"_strict=true", true, ""}, {"_strict=yes", true, ""}, {"_strict=ON", true, ""},
		{"_strict=0", false, ""}, {"_strict=off", false, ""}, {"_strict=", false, ""},
		{"_strict=maybe", false, `invalid DSN parameter _strict="maybe"`},
	} {
		cfg, err := parseDSN("x.db?" + tc.params)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: %v, want %q", tc.params, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.params, err)
		case err == nil && cfg.strict != tc.strict:
			t.Errorf("%s: strict = %v", tc.params, cfg.strict)
		}
	}
	// What mattn accepts, and _strict refuses.
	for _, tc := range []struct {
		params string
		check  func(*config) bool
	}{
		{"_busy_timeout=", func(c *config) bool { return c.busyTimeout == 5000 }},
		{"_busy_timeout=-1", func(c *config) bool { return c.busyTimeout == 0 }},
		{"_fk=", func(c *config) bool { return len(c.pragmas) == 0 }},
		{"_txlock=", func(c *config) bool { return c.txlock == "BEGIN" }},
		{"_journal=&_journal_mode=WAL", func(c *config) bool { return len(c.pragmas) == 0 }},
		{"mode=nonsense&cache=nonsense", func(c *config) bool { return c.flags&(openReadWrite|openCreate) == openReadWrite|openCreate }},
		{"mode=memory&cache=shared", func(c *config) bool { return c.flags&(openMemory|openSharedCache) == 0 }},
	} {
		cfg, err := parseDSN("x.db?" + tc.params)
		if err != nil || !tc.check(cfg) {
			t.Errorf("default %s: %+v, %v", tc.params, cfg, err)
		}
		cfg, err = parseDSN("x.db?" + tc.params + "&_strict=1")
		if strings.HasPrefix(tc.params, "mode=memory") {
			if err != nil || cfg.flags&(openMemory|openSharedCache) != openMemory|openSharedCache {
				t.Errorf("strict %s: flags %#x, %v, want memory and shared cache", tc.params, cfg.flags, err)
			}
		} else if err == nil || !strings.HasPrefix(err.Error(), "sqlite3: invalid DSN parameter") {
			t.Errorf("strict %s: %v, want an invalid DSN parameter", tc.params, err)
		}
	}
	// As in mattn, an alias beats its long name, in both modes.
	for _, dsn := range []string{"x.db?_timeout=10&_busy_timeout=abc", "x.db?_busy_timeout=abc&_timeout=10&_strict=1"} {
		if cfg, err := parseDSN(dsn); err != nil || cfg.busyTimeout != 10 {
			t.Errorf("%s: %+v, %v, want a busy timeout of 10 ms", dsn, cfg, err)
		}
	}
}

// A plain filename's mode=memory opens the file, as mattn (which drops
// SQLite's parameters from a plain filename) does; mode=ro is honoured in
// both modes: a program that asks for read-only never writes.
func TestStrictPlainFilenameMode(t *testing.T) {
	dir := t.TempDir()
	for _, strict := range []bool{false, true} {
		suffix := ""
		if strict {
			suffix = "&_strict=1"
		}
		path := filepath.Join(dir, "mem"+suffix+".db")
		db := openTestDB(t, path+"?mode=memory"+suffix)
		testMustExec(t, db, "CREATE TABLE x(a)")
		db.Close()
		if _, err := os.Stat(path); (err == nil) == strict {
			t.Errorf("strict=%v: mode=memory on a plain filename: file exists = %v", strict, err == nil)
		}
		ro := openTestDB(t, filepath.Join(dir, "missing.db")+"?mode=ro"+suffix)
		if err := ro.Ping(); !errors.Is(err, ErrCantOpen) {
			t.Errorf("strict=%v: mode=ro on a missing plain filename: %v, want ErrCantOpen", strict, err)
		}
	}
}
