//go:build cgo

package sqlite3

// The entry points of database/sql/driver's first interfaces, without a
// context. database/sql calls the context-taking ones this driver implements;
// these stay for programs that use the driver directly, and run the same code.

import (
	"context"
	"database/sql/driver"
)

// Begin starts a transaction; use BeginTx.
//
// Deprecated: Drivers should implement ConnBeginTx instead (or additionally).
func (c *SQLiteConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

// Exec runs the statement; see ExecContext.
//
// Deprecated: Drivers should implement StmtExecContext instead (or additionally).
func (s *SQLiteStmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), valuesToNamed(args))
}

// Query runs the statement; see QueryContext.
//
// Deprecated: Drivers should implement StmtQueryContext instead (or additionally).
func (s *SQLiteStmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), valuesToNamed(args))
}

// Exec runs query; see ExecContext.
//
// Deprecated: Drivers should implement ExecerContext instead (or additionally).
func (c *SQLiteConn) Exec(query string, args []driver.Value) (driver.Result, error) {
	return c.ExecContext(context.Background(), query, valuesToNamed(args))
}

// Query runs query; see QueryContext.
//
// Deprecated: Drivers should implement QueryerContext instead (or additionally).
func (c *SQLiteConn) Query(query string, args []driver.Value) (driver.Rows, error) {
	return c.QueryContext(context.Background(), query, valuesToNamed(args))
}

// valuesToNamed gives positional arguments their ordinals.
func valuesToNamed(args []driver.Value) []driver.NamedValue {
	if len(args) == 0 {
		return nil
	}
	named := make([]driver.NamedValue, len(args))
	for i, v := range args {
		named[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return named
}
