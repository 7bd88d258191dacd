// Package nopdriver is a database/sql driver that does no work: every
// statement succeeds at once and every query returns rows it was handed in
// advance. Running a workload on it measures what database/sql itself costs
// per operation and per row (pooling, argument conversion, Scan), the floor
// under any real driver.
//
// The driver answers from a table of canned answers keyed by the exact query
// text. Execs of unknown statements succeed with an empty result, so fixture
// setup (CREATE, INSERT, ...) is free; queries with no canned answer fail, so
// a workload that forgets one is noticed instead of silently timing nothing.
package nopdriver

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
)

// Answer is the canned result of one query.
type Answer struct {
	Columns []string
	// Rows are returned in order and repeated until Count rows have been
	// returned; each row has one value per column. Values are handed to
	// database/sql as they are, so they are boxed once, here, not per row.
	Rows [][]driver.Value
	// Count is the number of rows returned; 0 means len(Rows).
	Count int
	// Block makes the query wait until its context is done and return the
	// context's error, like a long query that is cancelled.
	Block bool
}

// Driver is a database/sql driver answering from a fixed table.
type Driver struct {
	answers map[string]*Answer
}

// New returns a driver that answers queries from answers, keyed by the exact
// query text.
func New(answers map[string]*Answer) *Driver {
	for _, a := range answers {
		if a.Count == 0 {
			a.Count = len(a.Rows)
		}
	}
	return &Driver{answers: answers}
}

// Register registers a new driver under name.
func Register(name string, answers map[string]*Answer) {
	sql.Register(name, New(answers))
}

// Open returns a new connection; the name is ignored.
func (d *Driver) Open(string) (driver.Conn, error) { return &conn{d: d}, nil }

var errNoAnswer = errors.New("nopdriver: no canned answer for this query")

type conn struct {
	d      *Driver
	closed bool
}

func (c *conn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *conn) PrepareContext(_ context.Context, query string) (driver.Stmt, error) {
	return &stmt{c: c, a: c.d.answers[query]}, nil
}

func (c *conn) Close() error { c.closed = true; return nil }

func (c *conn) Begin() (driver.Tx, error) { return c, nil }

func (c *conn) BeginTx(context.Context, driver.TxOptions) (driver.Tx, error) { return c, nil }

func (c *conn) Commit() error { return nil }

func (c *conn) Rollback() error { return nil }

func (c *conn) Ping(context.Context) error { return nil }

func (c *conn) ResetSession(context.Context) error { return nil }

func (c *conn) IsValid() bool { return !c.closed }

// CheckNamedValue accepts every argument as it is: no conversion at all is
// the least a driver can do.
func (c *conn) CheckNamedValue(*driver.NamedValue) error { return nil }

// RegisterFunc has the signature of mattn's (and this driver's)
// SQLiteConn.RegisterFunc, so the CustomFunctions workload runs on the nop
// driver too; the function is never called.
func (c *conn) RegisterFunc(string, any, bool) error { return nil }

func (c *conn) ExecContext(context.Context, string, []driver.NamedValue) (driver.Result, error) {
	return result{}, nil
}

func (c *conn) QueryContext(ctx context.Context, query string, _ []driver.NamedValue) (driver.Rows, error) {
	return query1(ctx, c.d.answers[query])
}

func query1(ctx context.Context, a *Answer) (driver.Rows, error) {
	if a == nil {
		return nil, errNoAnswer
	}
	if a.Block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return &rows{a: a}, nil
}

type stmt struct {
	c *conn
	a *Answer
}

func (s *stmt) Close() error  { return nil }
func (s *stmt) NumInput() int { return -1 }

func (s *stmt) Exec([]driver.Value) (driver.Result, error) { return result{}, nil }

func (s *stmt) ExecContext(context.Context, []driver.NamedValue) (driver.Result, error) {
	return result{}, nil
}

func (s *stmt) Query([]driver.Value) (driver.Rows, error) {
	return query1(context.Background(), s.a)
}

func (s *stmt) QueryContext(ctx context.Context, _ []driver.NamedValue) (driver.Rows, error) {
	return query1(ctx, s.a)
}

func (s *stmt) CheckNamedValue(*driver.NamedValue) error { return nil }

type result struct{}

func (result) LastInsertId() (int64, error) { return 0, nil }
func (result) RowsAffected() (int64, error) { return 0, nil }

type rows struct {
	a   *Answer
	i   int
	cur []driver.Value // the row NextRow moved to (Go 1.27, scan_go127.go)
}

func (r *rows) Columns() []string { return r.a.Columns }
func (r *rows) Close() error      { return nil }

func (r *rows) Next(dest []driver.Value) error {
	if r.i >= r.a.Count {
		return io.EOF
	}
	copy(dest, r.a.Rows[r.i%len(r.a.Rows)])
	r.i++
	return nil
}
