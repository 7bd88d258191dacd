//go:build cgo

package sqlite3

// Security: extension loading is off, the hardening recipe of the README
// works, and read-only connections (mode=ro, _query_only=1) cannot change the
// database file through any statement. Where SQLite lets something through on
// purpose (VACUUM INTO a new file, temporary tables, query_only's own PRAGMA),
// the test says so and checks that the database file itself is unchanged.

import (
	"crypto/sha256"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSecurityLoadExtensionOff(t *testing.T) {
	db := testMemDB(t, "")
	want, wantView := "not authorized", "unsafe use of load_extension()"
	var omitted bool
	if err := db.QueryRow("SELECT sqlite_compileoption_used('OMIT_LOAD_EXTENSION')").Scan(&omitted); err != nil {
		t.Fatal(err)
	}
	if omitted { // -tags sqlite_omit_load_extension: the SQL function does not exist at all
		want, wantView = "no such function: load_extension", "no such function: load_extension"
	}
	for _, q := range []string{
		"SELECT load_extension('libnosuch')",
		"SELECT load_extension('/nonexistent/lib.so', 'sqlite3_extension_init')",
	} {
		_, err := db.Exec(q)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", q, err, want)
		}
	}
	// Not from the schema either: a view calling it is refused outright.
	testMustExec(t, db, "CREATE VIEW v AS SELECT load_extension('libnosuch') AS x")
	var x any
	if err := db.QueryRow("SELECT x FROM v").Scan(&x); err == nil || !strings.Contains(err.Error(), wantView) {
		t.Errorf("load_extension in a view: %v, want %q", err, wantView)
	}
}

// TestSecurityDefensiveRecipe: _defensive=1&_pragma=trusted_schema(0), the
// README's recipe for databases that untrusted parties may have written.
func TestSecurityDefensiveRecipe(t *testing.T) {
	const recipe = "?_defensive=1&_pragma=trusted_schema(0)"
	dir := t.TempDir()
	hard := openTestDB(t, filepath.Join(dir, "hard.db")+recipe)
	hard.SetMaxOpenConns(1)
	soft := openTestDB(t, filepath.Join(dir, "soft.db"))
	soft.SetMaxOpenConns(1)
	const schema = `CREATE TABLE t(x); INSERT INTO t VALUES(1);
		CREATE VIRTUAL TABLE ft USING fts4(body);
		CREATE VIEW cols AS SELECT count(*) AS n FROM pragma_table_info('t');
		CREATE VIEW tok AS SELECT fts3_tokenizer('simple') AS p`
	testMustExec(t, hard, schema)
	testMustExec(t, soft, schema)
	if got := testQueryInt(t, hard, "PRAGMA trusted_schema"); got != 0 {
		t.Errorf("PRAGMA trusted_schema = %d with the recipe", got)
	}

	// Defensive: SQL cannot corrupt the file.
	for _, q := range []struct{ sql, msg string }{
		{"PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = sql WHERE name = 't'", "table sqlite_master may not be modified"},
		{"INSERT INTO ft_segments VALUES(1000, x'00')", "table ft_segments may not be modified"},
		{"DELETE FROM ft_stat", "table ft_stat may not be modified"},
	} {
		if _, err := hard.Exec(q.sql); err == nil || !strings.Contains(err.Error(), q.msg) {
			t.Errorf("defensive: %s: %v, want %q", q.sql, err, q.msg)
		}
		if _, err := soft.Exec(q.sql); err != nil {
			t.Errorf("without _defensive: %s: %v (the recipe should be what stops it)", q.sql, err)
		}
		testMustExec(t, soft, "PRAGMA writable_schema = OFF")
	}
	if got := testQueryString(t, hard, "PRAGMA journal_mode = OFF"); got != "delete" {
		t.Errorf("defensive: PRAGMA journal_mode = OFF switched the journal to %q", got)
	}
	before := testQueryInt(t, hard, "PRAGMA schema_version")
	testMustExec(t, hard, "PRAGMA schema_version = 12345")
	if after := testQueryInt(t, hard, "PRAGMA schema_version"); after != before {
		t.Errorf("defensive: PRAGMA schema_version changed from %d to %d", before, after)
	}

	// trusted_schema(0): schema objects cannot use what is not innocuous.
	var n any
	if err := hard.QueryRow("SELECT n FROM cols").Scan(&n); err == nil || !strings.Contains(err.Error(), `unsafe use of virtual table "pragma_table_info"`) {
		t.Errorf("trusted_schema(0): view over pragma_table_info: %v, want \"unsafe use of virtual table\"", err)
	}
	if err := soft.QueryRow("SELECT n FROM cols").Scan(&n); err != nil {
		t.Errorf("without the recipe, the same view: %v", err)
	}
	for _, d := range []*sql.DB{hard, soft} {
		if err := d.QueryRow("SELECT p FROM tok").Scan(&n); err == nil || !strings.Contains(err.Error(), "unsafe use of fts3_tokenizer()") {
			t.Errorf("fts3_tokenizer in a view: %v, want \"unsafe use of fts3_tokenizer()\"", err)
		}
	}
	// Ordinary use is unaffected.
	testMustExec(t, hard, "INSERT INTO t VALUES(2); INSERT INTO ft VALUES('hello world')")
	if got := testQueryInt(t, hard, "SELECT count(*) FROM ft WHERE ft MATCH 'hello'"); got != 1 {
		t.Errorf("full-text search under the recipe: %d matches", got)
	}
}

// securityFixture creates a database file (and a second one to attach) and
// returns their paths.
func securityFixture(t *testing.T) (path, other string) {
	t.Helper()
	dir := t.TempDir()
	path, other = filepath.Join(dir, "main.db"), filepath.Join(dir, "other.db")
	for _, p := range []string{path, other} {
		db, err := sql.Open("sqlite3", p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`CREATE TABLE t(x, y); CREATE INDEX t_x ON t(x); INSERT INTO t VALUES(1, 2);
			CREATE TABLE spare(z); CREATE VIEW v AS SELECT x FROM t; CREATE TRIGGER tr AFTER DELETE ON spare BEGIN SELECT 1; END`); err != nil {
			t.Fatal(err)
		}
		db.Close()
	}
	return path, other
}

// securityHash returns the SHA-256 of a file.
func securityHash(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// securityWrites are statements that write to the main database. On a
// read-only connection every one fails with SQLITE_READONLY.
var securityWrites = []string{
	"INSERT INTO t VALUES(3, 4)",
	"INSERT INTO t VALUES(3, 4) RETURNING x",
	"INSERT INTO t VALUES(1, 2) ON CONFLICT DO NOTHING",
	"UPDATE t SET x = 5",
	"DELETE FROM t",
	"REPLACE INTO t VALUES(1, 2)",
	"DELETE FROM spare",
	"CREATE TABLE n(x)",
	"CREATE TABLE n AS SELECT * FROM t",
	"CREATE INDEX t_y ON t(y)",
	"CREATE VIEW v2 AS SELECT 1",
	"CREATE TRIGGER tr2 AFTER INSERT ON t BEGIN SELECT 1; END",
	"CREATE VIRTUAL TABLE ft USING fts4(a)",
	"DROP TABLE spare",
	"DROP INDEX t_x",
	"DROP VIEW v",
	"DROP TRIGGER tr",
	"ALTER TABLE t RENAME TO t2",
	"ALTER TABLE t ADD COLUMN z",
	"ALTER TABLE t RENAME COLUMN x TO xx",
	"ALTER TABLE t DROP COLUMN y",
	"VACUUM",
	"REINDEX",
	"ANALYZE",
	"PRAGMA optimize",
	"PRAGMA user_version = 7",
	"PRAGMA application_id = 7",
	"PRAGMA incremental_vacuum",
	"PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = 'garbage' WHERE name = 't'",
	"BEGIN; INSERT INTO t VALUES(5, 6)",
	"SAVEPOINT s; DELETE FROM t",
}

// securityHarmless are accepted on a read-only connection and change nothing
// in the file.
var securityHarmless = []string{
	"SELECT * FROM t",
	"PRAGMA auto_vacuum = FULL",       // takes effect only at the next VACUUM, which fails
	"PRAGMA page_size = 512",          // likewise
	"PRAGMA writable_schema = OFF",    // a connection setting
	"PRAGMA wal_checkpoint(TRUNCATE)", // nothing to checkpoint in rollback mode
	"PRAGMA integrity_check",
}

// securityCheckReadOnly runs every write on db and checks that each fails
// with ErrReadonly, and every harmless statement succeeds.
func securityCheckReadOnly(t *testing.T, db *sql.DB) {
	t.Helper()
	for _, q := range securityWrites {
		_, err := db.Exec(q)
		if !errors.Is(err, ErrReadonly) {
			t.Errorf("%s: %v, want ErrReadonly (attempt to write a readonly database)", q, err)
		}
		db.Exec("ROLLBACK") // for the statements that began a transaction
	}
	for _, q := range securityHarmless {
		if _, err := db.Exec(q); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
}

// TestSecurityReadOnly opens a database read-only, as a file: URI and as a
// plain filename, tries every way to write, and checks that the file is
// byte for byte what it was.
func TestSecurityReadOnly(t *testing.T) {
	for _, form := range []string{"uri", "plain"} {
		t.Run(form, func(t *testing.T) {
			path, other := securityFixture(t)
			dsn := path + "?mode=ro"
			if form == "uri" {
				dsn = "file:" + dsn
			}
			sum, otherSum := securityHash(t, path), securityHash(t, other)
			db := openTestDB(t, dsn)
			db.SetMaxOpenConns(1)
			securityCheckReadOnly(t, db)
			// Switching to WAL rewrites the header: refused. Switching
			// between rollback-journal modes is a connection setting: allowed,
			// and the file stays as it is (checked at the end).
			if _, err := db.Exec("PRAGMA journal_mode = WAL"); !errors.Is(err, ErrReadonly) {
				t.Errorf("PRAGMA journal_mode = WAL: %v, want ErrReadonly", err)
			}
			testMustExec(t, db, "PRAGMA journal_mode = OFF")
			testMustExec(t, db, "PRAGMA journal_mode = DELETE")
			// BeginTx, even BEGIN IMMEDIATE, reads; the write in it fails.
			tx, err := db.Begin()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.Exec("INSERT INTO t VALUES(7, 8)"); !errors.Is(err, ErrReadonly) {
				t.Errorf("write in a transaction: %v, want ErrReadonly", err)
			}
			tx.Rollback()

			// Temporary tables live in the temp database, not in the file:
			// SQLite allows them on a read-only connection.
			testMustExec(t, db, "CREATE TEMP TABLE scratch(x); INSERT INTO scratch SELECT x FROM t")

			// VACUUM INTO writes a new file, a snapshot of the read-only one:
			// SQLite allows it (https://sqlite.org/lang_vacuum.html#vacuuminto).
			// The database itself is untouched.
			copyPath := filepath.Join(filepath.Dir(path), "copy.db")
			testMustExec(t, db, "VACUUM INTO ?", copyPath)
			if _, err := os.Stat(copyPath); err != nil {
				t.Errorf("VACUUM INTO on a read-only connection: %v", err)
			}
			if _, err := db.Exec("VACUUM INTO ?", path); err == nil {
				t.Error("VACUUM INTO the database itself succeeded")
			}

			// ATTACH of a file that does not exist cannot create it with the
			// plain form (the connection's open flags are read-only); see
			// TestSecurityReadOnlyURIAttach for the file: URI form.
			if form == "plain" {
				newPath := filepath.Join(filepath.Dir(path), "new.db")
				_, err := db.Exec("ATTACH ? AS n", newPath)
				if err == nil {
					_, err = db.Exec("CREATE TABLE n.x(y)")
				}
				if err == nil {
					t.Error("created a new database through ATTACH on a read-only connection")
				}
				if _, err := os.Stat(newPath); err == nil {
					t.Error("ATTACH on a read-only connection created a file")
				}
				testMustExec(t, db, "ATTACH ? AS o", other)
				if _, err := db.Exec("INSERT INTO o.t VALUES(9, 9)"); !errors.Is(err, ErrReadonly) {
					t.Errorf("write to a database attached to a read-only connection: %v, want ErrReadonly", err)
				}
				testMustExec(t, db, "DETACH o")
			}
			if got := testQueryInt(t, db, "SELECT count(*) FROM t"); got != 1 {
				t.Errorf("%d rows in t, want 1", got)
			}
			db.Close()
			if securityHash(t, path) != sum {
				t.Error("the database file changed through a read-only connection")
			}
			if form == "plain" && securityHash(t, other) != otherSum {
				t.Error("the attached file changed through a read-only connection")
			}
			for _, suffix := range []string{"-journal", "-wal"} {
				if _, err := os.Stat(path + suffix); err == nil {
					t.Errorf("a read-only connection left %s%s", filepath.Base(path), suffix)
				}
			}
		})
	}
}

// TestSecurityReadOnlyURIAttach: mode=ro in a file: URI is SQLite's URI
// parameter, which SQLite applies to the main database only; ATTACH opens
// with the connection's open flags. By default those are mattn/go-sqlite3's
// (SQLITE_OPEN_READWRITE|SQLITE_OPEN_CREATE), so a program that attaches a
// database to a read-only connection to write it, as it may on mattn, can:
// an existing file is written and a missing one created, while the main
// database stays read-only. With _strict=1 the open flags say read-only too,
// as they always do for the plain filename form (path?mode=ro): nothing is
// written or created through any attachment.
func TestSecurityReadOnlyURIAttach(t *testing.T) {
	for _, strict := range []bool{false, true} {
		t.Run(map[bool]string{false: "default", true: "strict"}[strict], func(t *testing.T) {
			path, other := securityFixture(t)
			sum, otherSum := securityHash(t, path), securityHash(t, other)
			dsn := "file:" + path + "?mode=ro"
			if strict {
				dsn += "&_strict=1"
			}
			db := openTestDB(t, dsn)
			db.SetMaxOpenConns(1)
			if _, err := db.Exec("INSERT INTO t VALUES(5, 5)"); !errors.Is(err, ErrReadonly) {
				t.Errorf("write to the mode=ro main database: %v, want ErrReadonly", err)
			}
			testMustExec(t, db, "ATTACH ? AS o", other)
			_, errOther := db.Exec("INSERT INTO o.t VALUES(9, 9)")
			newPath := filepath.Join(filepath.Dir(path), "created.db")
			_, errNew := db.Exec("ATTACH ? AS n", newPath)
			if errNew == nil {
				_, errNew = db.Exec("CREATE TABLE n.x(y); INSERT INTO n.x VALUES(3)")
			}
			if strict {
				if !errors.Is(errOther, ErrReadonly) {
					t.Errorf("write to an attached database: %v, want ErrReadonly", errOther)
				}
				if errNew == nil {
					t.Error("created a new database through ATTACH")
				}
				if _, err := os.Stat(newPath); err == nil {
					t.Error("ATTACH created a file")
				}
			} else {
				if errOther != nil {
					t.Errorf("write to an attached existing database: %v, want success as on mattn", errOther)
				}
				if errNew != nil {
					t.Errorf("ATTACH of a new database and a write to it: %v, want success as on mattn", errNew)
				}
			}
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			if securityHash(t, path) != sum {
				t.Error("the mode=ro main database file changed")
			}
			if strict {
				if securityHash(t, other) != otherSum {
					t.Error("the attached file changed")
				}
				return
			}
			// The writes are in the files, for any connection to see.
			check := openTestDB(t, other)
			if got := testQueryInt(t, check, "SELECT count(*) FROM t WHERE x = 9"); got != 1 {
				t.Errorf("%d rows written through the attachment in %s, want 1", got, filepath.Base(other))
			}
			check = openTestDB(t, newPath)
			if got := testQueryInt(t, check, "SELECT y FROM x"); got != 3 {
				t.Errorf("the created database holds %d, want 3", got)
			}
		})
	}
}

// TestSecurityQueryOnly: _query_only=1 refuses every write, to the main
// database, temporary tables, attached databases and VACUUM INTO alike. It is
// a guard against mistakes, not a boundary against untrusted SQL: SQL can
// switch it off (PRAGMA query_only = 0), and SQLite lets PRAGMA journal_mode
// change the file's header through it. Untrusted SQL needs mode=ro.
func TestSecurityQueryOnly(t *testing.T) {
	path, other := securityFixture(t)
	sum, otherSum := securityHash(t, path), securityHash(t, other)
	db := openTestDB(t, path+"?_query_only=1")
	db.SetMaxOpenConns(1)
	securityCheckReadOnly(t, db)
	for _, q := range []string{
		"CREATE TEMP TABLE scratch(x)",
		"VACUUM INTO '" + filepath.Join(filepath.Dir(path), "copy.db") + "'",
		"BEGIN IMMEDIATE",
	} {
		if _, err := db.Exec(q); !errors.Is(err, ErrReadonly) {
			t.Errorf("%s: %v, want ErrReadonly", q, err)
		}
	}
	testMustExec(t, db, "ATTACH ? AS o", other)
	if _, err := db.Exec("INSERT INTO o.t VALUES(9, 9)"); !errors.Is(err, ErrReadonly) {
		t.Errorf("write to an attached database: %v, want ErrReadonly", err)
	}
	testMustExec(t, db, "DETACH o")
	if securityHash(t, path) != sum || securityHash(t, other) != otherSum {
		t.Fatal("a file changed through a _query_only=1 connection")
	}

	// What query_only does not stop.
	if mode := testQueryString(t, db, "PRAGMA journal_mode = WAL"); mode != "wal" {
		t.Errorf("PRAGMA journal_mode = WAL under query_only: %q (SQLite used to allow it; update the doc comment)", mode)
	}
	testMustExec(t, db, "PRAGMA query_only = 0")
	testMustExec(t, db, "INSERT INTO t VALUES(3, 4)")
	if got := testQueryInt(t, db, "SELECT count(*) FROM t"); got != 2 {
		t.Errorf("after PRAGMA query_only = 0: %d rows", got)
	}
}
