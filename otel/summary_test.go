package otelsqlite

import (
	"strings"
	"testing"
)

func TestSummarize(t *testing.T) {
	for _, c := range []struct {
		sql                     string
		summary, op, collection string
	}{
		{"SELECT * FROM wuser_table WHERE username = ?", "SELECT wuser_table", "SELECT", "wuser_table"},
		{"INSERT INTO shipping_details (order_id, address) SELECT order_id, address FROM orders WHERE order_id = ?",
			"INSERT shipping_details SELECT orders", "", ""},
		{"SELECT * FROM songs, artists WHERE songs.artist_id == artists.id", "SELECT songs artists", "SELECT", ""},
		{"SELECT order_date FROM (SELECT * FROM orders o JOIN customers c ON o.customer_id = c.customer_id)",
			"SELECT SELECT orders customers", "", ""},
		{`SELECT * FROM "song list", 'artists'`, `SELECT "song list"`, "SELECT", `"song list"`},
		{"select v from t where v > 1", "select t", "select", "t"},
		{"INSERT INTO t VALUES (1), (2)", "INSERT t", "INSERT", "t"},
		{"INSERT INTO main.t(a, b) VALUES (?, ?) RETURNING id", "INSERT main.t", "INSERT", "main.t"},
		{"INSERT OR REPLACE INTO kv(k, v) VALUES (?, ?)", "INSERT kv", "INSERT", "kv"},
		{"REPLACE INTO kv VALUES (?, ?)", "REPLACE kv", "REPLACE", "kv"},
		{"INSERT INTO kv VALUES (?, ?) ON CONFLICT(k) DO UPDATE SET v = excluded.v", "INSERT kv", "INSERT", "kv"},
		{"UPDATE t SET v = v + 10 WHERE v >= ?", "UPDATE t", "UPDATE", "t"},
		{"UPDATE OR IGNORE [my t] SET v = 1", "UPDATE [my t]", "UPDATE", "[my t]"},
		{"DELETE FROM t", "DELETE t", "DELETE", "t"},
		{"SELECT count(*) FROM t", "SELECT t", "SELECT", "t"},
		{"SELECT replace(name, 'a', 'b') FROM users u", "SELECT users", "SELECT", "users"},
		{"SELECT a.x, b.y FROM a AS aa LEFT JOIN b bb ON aa.id = bb.id WHERE aa.z = :from", "SELECT a b", "SELECT", ""},
		{"SELECT CASE WHEN v > 1 THEN 'x' END FROM t", "SELECT t", "SELECT", "t"},
		{"SELECT * FROM t WHERE id IN (SELECT id FROM u)", "SELECT t SELECT u", "", ""},
		{"SELECT value FROM json_each(?) AS j", "SELECT json_each", "SELECT", "json_each"},
		{"SELECT 1", "SELECT", "SELECT", ""},
		{"WITH recent AS (SELECT * FROM notes ORDER BY id DESC LIMIT 10) SELECT * FROM recent", "SELECT notes SELECT recent", "", ""},
		{"WITH x AS (SELECT 1) DELETE FROM t WHERE id IN x", "SELECT DELETE t", "", "t"},
		{"-- FROM nothing\nSELECT /* FROM nothing */ 'FROM nothing' FROM t", "SELECT t", "SELECT", "t"},
		{"CREATE TABLE t(v INT UNIQUE)", "CREATE TABLE t", "CREATE TABLE", "t"},
		{"CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)", "CREATE TABLE notes", "CREATE TABLE", "notes"},
		{"CREATE UNIQUE INDEX IF NOT EXISTS i ON t(v)", "CREATE INDEX i", "CREATE INDEX", ""},
		{"DROP TABLE t", "DROP TABLE t", "DROP TABLE", "t"},
		{"CREATE TRIGGER tr AFTER INSERT ON t BEGIN UPDATE u SET n = n + 1; END", "CREATE TRIGGER tr", "CREATE TRIGGER", ""},
		{"CREATE TABLE a(x); CREATE TABLE b(y)", "CREATE TABLE a CREATE TABLE b", "", ""},
		{"PRAGMA journal_mode = WAL", "PRAGMA journal_mode", "PRAGMA", ""},
		{"PRAGMA optimize", "PRAGMA optimize", "PRAGMA", ""},
		{"BEGIN IMMEDIATE", "BEGIN", "BEGIN", ""},
		{"COMMIT", "COMMIT", "COMMIT", ""},
		{"ROLLBACK TO SAVEPOINT s1", "ROLLBACK", "ROLLBACK", ""},
		{"EXPLAIN QUERY PLAN SELECT * FROM t", "EXPLAIN SELECT t", "", "t"},
		{"VACUUM", "VACUUM", "VACUUM", ""},
		{"", "", "", ""},
		{"-- nothing", "", "", ""},
		{"SELECT * FROM 'unterminated", "SELECT", "SELECT", ""},
	} {
		q := summarize(c.sql)
		if q.summary != c.summary || q.operation != c.op || q.collection != c.collection {
			t.Errorf("summarize(%q) = %q, operation %q, collection %q; want %q, %q, %q",
				c.sql, q.summary, q.operation, q.collection, c.summary, c.op, c.collection)
		}
	}
}

// A long statement is read up to scanLimit, and a summary has at most
// maxParts words.
func TestSummarizeLimits(t *testing.T) {
	long := "INSERT INTO t VALUES " + strings.Repeat("(1, 'x'), ", scanLimit/8) + "(2, 'y')"
	if q := summarize(long); q.summary != "INSERT t" || q.collection != "t" {
		t.Errorf("a long INSERT: %+v", q)
	}
	many := strings.Repeat("SELECT * FROM t UNION ALL ", 40) + "SELECT 1"
	if n := len(strings.Fields(summarize(many).summary)); n != maxParts {
		t.Errorf("a summary of %d words, want %d", n, maxParts)
	}
}

func FuzzSummarize(f *testing.F) {
	f.Add("SELECT * FROM t WHERE x = 'a''b' -- c")
	f.Add("INSERT INTO \"a\"\"b\".c VALUES (?1, :x, @y, $z)")
	f.Add("((((((((((((((((((((((((((((((((((((SELECT 1")
	f.Fuzz(func(t *testing.T, sql string) {
		q := summarize(sql)
		if len(strings.Fields(q.summary)) > maxParts*4 {
			t.Fatalf("summary too long: %q", q.summary)
		}
	})
}
