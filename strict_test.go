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
	"regexp"
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

// Unknown parameter names: ignored by default, as mattn/go-sqlite3 ignores
// them (the defaults apply); with _strict=1 an error at sql.Open that names
// each and the closest known name; CheckDSN reports the same without
// _strict.
func TestStrictUnknownParams(t *testing.T) {
	for _, tc := range []struct {
		dsn, err string
	}{
		{"x.db?_txlok=immediate", "unknown DSN parameter _txlok (did you mean _txlock?)"},
		{"x.db?_jurnal_mode=WAL", "unknown DSN parameter _jurnal_mode (did you mean _journal_mode?)"},
		{"x.db?_busy_timout=100", "unknown DSN parameter _busy_timout (did you mean _busy_timeout?)"},
		{"x.db?_txlcok=immediate", "unknown DSN parameter _txlcok (did you mean _txlock?)"},
		{"x.db?_JOURNAL_MODE=WAL", "unknown DSN parameter _JOURNAL_MODE (did you mean _journal_mode?)"},
		{"x.db?_frobnicate=1", "unknown DSN parameter _frobnicate (docs/dsn.md lists the parameters)"},
		{"file:x.db?journal_mode=WAL", `unknown DSN parameter journal_mode (did you mean _journal_mode? the driver's parameters start with "_")`},
		{"x.db?txlock=immediate", `unknown DSN parameter txlock (did you mean _txlock? the driver's parameters start with "_")`},
		{"file:x.db?trusted_schema=0", "unknown DSN parameter trusted_schema (a PRAGMA: did you mean _pragma=trusted_schema(...)?)"},
		{"x.db?key=secret", "unknown DSN parameter key (after a plain filename nobody reads it)"},
		{"x.db?immutable=1", "DSN parameter immutable is read by SQLite only in a file: URI"},
		{"x.db?_auth=&_auth_user=admin", "DSN parameter _auth (mattn/go-sqlite3's user authentication) is not supported"},
		{"file:x.db?_txlok=immediate&_jurnal_mode=WAL&_fk=1",
			"sqlite3: unknown DSN parameter _txlok (did you mean _txlock?); unknown DSN parameter _jurnal_mode (did you mean _journal_mode?)"},
	} {
		// Default: opens as mattn does, with the defaults.
		cfg, err := parseDSN(tc.dsn)
		if err != nil {
			t.Errorf("default %s: %v", tc.dsn, err)
		} else if cfg.txlock != "BEGIN" || cfg.busyTimeout != 5000 || len(cfg.pragmas) > 1 {
			t.Errorf("default %s: txlock %q, busy timeout %d, pragmas %q: want the defaults", tc.dsn, cfg.txlock, cfg.busyTimeout, cfg.pragmas)
		}
		// _strict=1: an error at sql.Open.
		db, err := sql.Open("sqlite3", tc.dsn+"&_strict=1")
		if err == nil {
			db.Close()
			t.Errorf("strict %s: opened", tc.dsn)
		} else if !strings.Contains(err.Error(), tc.err) || !strings.HasPrefix(err.Error(), "sqlite3: ") {
			t.Errorf("strict %s:\n%v\nwant %q", tc.dsn, err, tc.err)
		}
		// CheckDSN, without _strict and with _strict=0.
		for _, dsn := range []string{tc.dsn, tc.dsn + "&_strict=0"} {
			if err := CheckDSN(dsn); err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("CheckDSN(%s):\n%v\nwant %q", dsn, err, tc.err)
			}
		}
	}

	// Known names, and what SQLite or a VFS reads from a file: URI.
	for _, dsn := range []string{
		"", "x.db", ":memory:", "file::memory:?cache=shared", "x.db?mode=ro&cache=private&vfs=unix",
		"file:x.db?vfs=unix&mode=rwc&cache=shared&psow=1&nolock=1&immutable=0&modeof=/tmp",
		"file:x.db?key=secret&hexkey=00", // a VFS's own parameters (sqlite3_uri_parameter)
		"file:app.db?_journal_mode=WAL&_txlock=immediate&_busy_timeout=5000&_fk=1",
		"x.db?_loc=auto&_mutex=full&_timeout=5&_stmt_cache_size=2&_wal_bound=0&_defensive=1&_vacuum=full" +
			"&_cslike=0&_defer_fk=1&_foreign_keys=1&_ignore_check_constraints=0&_journal=WAL&_locking=normal" +
			"&_query_only=0&_rt=1&_secure_delete=fast&_sync=2&_writable_schema=0&_cache_size=-2000" +
			"&_pragma=trusted_schema(0)&_auto_vacuum=none&_case_sensitive_like=0&_defer_foreign_keys=0" +
			"&_locking_mode=NORMAL&_recursive_triggers=0&_synchronous=NORMAL&_strict=1",
	} {
		if err := CheckDSN(dsn); err != nil {
			t.Errorf("CheckDSN(%q): %v", dsn, err)
		}
	}
	// CheckDSN also reports what _strict=1 refuses in values.
	for dsn, want := range map[string]string{
		"x.db?_busy_timeout=":   `invalid DSN parameter _busy_timeout=""`,
		"x.db?_txlock=later":    `invalid DSN parameter _txlock="later"`,
		"x.db?_strict=maybe":    `invalid DSN parameter _strict="maybe"`,
		"x.db?%zz":              "invalid DSN parameters",
		"x.db?mode=nonsense":    `invalid DSN parameter mode="nonsense"`,
		"x.db\x00?_txlock=late": "NUL byte",
	} {
		if err := CheckDSN(dsn); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckDSN(%q): %v, want %q", dsn, err, want)
		}
	}
}

// The parameter lists of dsn_names.go follow the code that reads them: every
// "_name" dsn.go reads is a known driver parameter and the other way round,
// every name mattn/go-sqlite3 v1.14.53 reads is known (or refused as
// mattn's alone), and the PRAGMA names are the vendored SQLite's.
func TestDSNParamLists(t *testing.T) {
	src, err := os.ReadFile("dsn.go")
	if err != nil {
		t.Fatal(err)
	}
	read := map[string]bool{}
	for _, m := range regexp.MustCompile(`"(_[a-z_]+)"`).FindAllStringSubmatch(string(src), -1) {
		read[m[1]] = true
	}
	for name := range read {
		if !contains(driverParams, name) {
			t.Errorf("dsn.go reads %s, which driverParams lacks", name)
		}
	}
	for _, name := range driverParams {
		if !read[name] {
			t.Errorf("driverParams lists %s, which dsn.go never reads", name)
		}
	}
	// Read from mattn's sqlite3.go Open (params.Get and params[...]).
	mattn := []string{"_auth", "_auth_user", "_auth_pass", "_auth_crypt", "_auth_salt", "_loc", "_mutex",
		"_txlock", "_auto_vacuum", "_vacuum", "_busy_timeout", "_timeout", "_case_sensitive_like", "_cslike",
		"_defer_foreign_keys", "_defer_fk", "_foreign_keys", "_fk", "_ignore_check_constraints",
		"_journal_mode", "_journal", "_locking_mode", "_locking", "_query_only", "_recursive_triggers", "_rt",
		"_secure_delete", "_synchronous", "_sync", "_writable_schema", "_cache_size", "_stmt_cache_size", "vfs"}
	for _, name := range mattn {
		if p := paramNameProblem(name, false); p != "" && !contains(mattnOnlyParams, name) {
			t.Errorf("mattn's %s: %s", name, p)
		}
	}

	amalg, err := os.ReadFile("sqlite3-binding.c")
	if err != nil {
		t.Fatal(err)
	}
	table := string(amalg)
	i := strings.Index(table, "static const PragmaName aPragmaName[] = {")
	if i < 0 {
		t.Fatal("aPragmaName not found in sqlite3-binding.c")
	}
	table = table[i:]
	table = table[:strings.Index(table, "\n};")]
	var pragmas []string
	for _, m := range regexp.MustCompile(`zName: +\*/ "([a-z_0-9]+)"`).FindAllStringSubmatch(table, -1) {
		pragmas = append(pragmas, m[1])
	}
	if !reflect.DeepEqual(pragmas, sqlitePragmas) {
		t.Errorf("sqlitePragmas differs from the amalgamation's aPragmaName:\n got %q\nwant %q", sqlitePragmas, pragmas)
	}
}

func TestEditDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{
		{"", "", 0}, {"", "abc", 3}, {"abc", "", 3}, {"_txlok", "_txlock", 1}, {"_txlcok", "_txlock", 1},
		{"kitten", "sitting", 3}, {"ca", "abc", 3}, {"_fk", "_rt", 2},
	} {
		if d := editDistance(tc.a, tc.b); d != tc.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tc.a, tc.b, d, tc.d)
		}
	}
}

// The README's recommended DSN passes CheckDSN: no misspelled name in the
// DSN users copy first (TestReadmeServerDSN).
func checkRecommendedDSN(t *testing.T, dsn string) {
	t.Helper()
	if err := CheckDSN(dsn); err != nil {
		t.Errorf("the recommended DSN: %v", err)
	}
}
