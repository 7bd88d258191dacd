//go:build cgo

package sqlite3

import (
	"context"
	"database/sql/driver"
	"errors"
	"strings"
	"testing"
)

// The statement cache must not change a result: each scenario runs with the
// default cache and with _stmt_cache_size=0, and both must give the same
// outcomes, step by step.

func cacheScenario(t *testing.T, run func(t *testing.T, c *SQLiteConn) []string) {
	t.Helper()
	withCache := run(t, rawConn(t, ":memory:"))
	without := run(t, rawConn(t, ":memory:?_stmt_cache_size=0"))
	if strings.Join(withCache, "\n") != strings.Join(without, "\n") {
		t.Fatalf("results differ with the statement cache:\ncached:   %q\nuncached: %q", withCache, without)
	}
}

// outcome names the result of one step of a scenario.
func outcome(err error) string {
	if err == nil {
		return "ok"
	}
	var e Error
	if errors.As(err, &e) {
		return e.Code.Error()
	}
	return err.Error()
}

func TestStmtCacheAuthorizerDecidesEachTime(t *testing.T) {
	cacheScenario(t, func(t *testing.T, c *SQLiteConn) []string {
		ctx := context.Background()
		if _, err := c.ExecContext(ctx, "CREATE TABLE t(x); INSERT INTO t VALUES (1)", nil); err != nil {
			t.Fatal(err)
		}
		deny := false
		calls := 0
		c.RegisterAuthorizer(func(op int, a, b, db string) int {
			calls++
			if deny && op == SQLITE_UPDATE {
				return SQLITE_DENY
			}
			return SQLITE_OK
		})
		var got []string
		for _, d := range []bool{false, false, true, true, false} {
			deny = d
			_, err := c.ExecContext(ctx, "UPDATE t SET x = x + 1", nil)
			got = append(got, outcome(err))
			rows, err := c.QueryContext(ctx, "SELECT x FROM t", nil)
			got = append(got, outcome(err))
			if err == nil {
				rows.Close()
			}
		}
		c.RegisterAuthorizer(nil)
		_, err := c.ExecContext(ctx, "UPDATE t SET x = x + 1", nil)
		got = append(got, outcome(err), "authorizer calls while registered: "+itoa(calls))
		return got
	})
}

func TestStmtCacheLimitAppliesToCachedStatements(t *testing.T) {
	cacheScenario(t, func(t *testing.T, c *SQLiteConn) []string {
		ctx := context.Background()
		if _, err := c.ExecContext(ctx, "CREATE TABLE t(x)", nil); err != nil {
			t.Fatal(err)
		}
		insert := "INSERT INTO t VALUES (?)" + strings.Repeat(", (?)", 799)
		args := make([]driver.NamedValue, 800)
		for i := range args {
			args[i] = driver.NamedValue{Ordinal: i + 1, Value: int64(i)}
		}
		var got []string
		_, err := c.ExecContext(ctx, insert, args)
		got = append(got, outcome(err))
		c.SetLimit(SQLITE_LIMIT_VARIABLE_NUMBER, 500)
		_, err = c.ExecContext(ctx, insert, args)
		got = append(got, outcome(err))
		c.SetLimit(SQLITE_LIMIT_SQL_LENGTH, 100)
		_, err = c.ExecContext(ctx, "SELECT count(*) FROM t WHERE x > 0 AND x < 1000000 AND x <> 5 AND x <> 6 AND x <> 7", nil)
		got = append(got, outcome(err))
		c.SetLimit(SQLITE_LIMIT_SQL_LENGTH, 1000000)
		c.SetLimit(SQLITE_LIMIT_VARIABLE_NUMBER, 1000)
		_, err = c.ExecContext(ctx, insert, args)
		got = append(got, outcome(err))
		return got
	})
}

// A limit lowered while a cached statement is in use (its rows open) applies
// to the next run: the statement is finalized when released, not kept.
func TestStmtCacheLimitRetiresStatementInUse(t *testing.T) {
	c := rawConn(t, ":memory:")
	ctx := context.Background()
	q := "SELECT ?, ?, ?"
	args := []driver.NamedValue{{Ordinal: 1, Value: int64(1)}, {Ordinal: 2, Value: int64(2)}, {Ordinal: 3, Value: int64(3)}}
	rows, err := c.QueryContext(ctx, q, args)
	if err != nil {
		t.Fatal(err)
	}
	c.SetLimit(SQLITE_LIMIT_VARIABLE_NUMBER, 2)
	rows.Close()
	if _, err := c.QueryContext(ctx, q, args); err == nil {
		t.Fatal("a statement compiled before SetLimit lowered the variable limit ran again from the cache")
	}
}
