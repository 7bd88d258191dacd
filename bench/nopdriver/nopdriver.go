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
	// Work, when set, runs on every query and every exec of this text, with
	// the connection's state (nil at first, kept for the connection's life)
	// and the arguments. bench/cmd/cfloor uses it to do SQLite's C work
	// under database/sql, one cgo call per operation.
	Work func(state *any, args []driver.NamedValue) error
}

// Driver is a database/sql driver answering from a fixed table.
type Driver struct {
	answers map[string]*Answer
	hasWork bool // some answer has Work: execs look their text up
	// Tx, when set, runs at BEGIN, COMMIT and ROLLBACK (the SQL word is
	// passed), with the connection's state, as Answer.Work does.
	Tx func(state *any, sql string) error
	// Close, when set, runs when a connection closes, to free its state.
	Close func(state any)
}

// New returns a driver that answers queries from answers, keyed by the exact
// query text.
func New(answers map[string]*Answer) *Driver {
	d := &Driver{answers: answers}
	for _, a := range answers {
		if a.Count == 0 {
			a.Count = len(a.Rows)
		}
		d.hasWork = d.hasWork || a.Work != nil
	}
	return d
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
	state  any // Answer.Work's and Driver.Tx's
}

func (c *conn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *conn) PrepareContext(_ context.Context, query string) (driver.Stmt, error) {
	return &stmt{c: c, a: c.d.answers[query]}, nil
}

func (c *conn) Close() error {
	c.closed = true
	if c.d.Close != nil && c.state != nil {
		c.d.Close(c.state)
		c.state = nil
	}
	return nil
}

func (c *conn) Begin() (driver.Tx, error) { return c.BeginTx(context.Background(), driver.TxOptions{}) }

func (c *conn) BeginTx(context.Context, driver.TxOptions) (driver.Tx, error) { return c, c.tx("BEGIN") }

func (c *conn) Commit() error { return c.tx("COMMIT") }

func (c *conn) Rollback() error { return c.tx("ROLLBACK") }

func (c *conn) tx(sql string) error {
	if c.d.Tx == nil {
		return nil
	}
	return c.d.Tx(&c.state, sql)
}

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

func (c *conn) ExecContext(_ context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if c.d.hasWork {
		return exec1(c, c.d.answers[query], args)
	}
	return result{}, nil
}

func exec1(c *conn, a *Answer, args []driver.NamedValue) (driver.Result, error) {
	if a != nil && a.Work != nil {
		if err := a.Work(&c.state, args); err != nil {
			return nil, err
		}
	}
	return result{}, nil
}

func (c *conn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	return query1(ctx, c, c.d.answers[query], args)
}

func query1(ctx context.Context, c *conn, a *Answer, args []driver.NamedValue) (driver.Rows, error) {
	if a == nil {
		return nil, errNoAnswer
	}
	if a.Block {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	if a.Work != nil {
		if err := a.Work(&c.state, args); err != nil {
			return nil, err
		}
	}
	return &rows{a: a}, nil
}

type stmt struct {
	c *conn
	a *Answer
}

func (s *stmt) Close() error  { return nil }
func (s *stmt) NumInput() int { return -1 }

func (s *stmt) Exec(args []driver.Value) (driver.Result, error) {
	return exec1(s.c, s.a, named(args))
}

func (s *stmt) ExecContext(_ context.Context, args []driver.NamedValue) (driver.Result, error) {
	return exec1(s.c, s.a, args)
}

func (s *stmt) Query(args []driver.Value) (driver.Rows, error) {
	return query1(context.Background(), s.c, s.a, named(args))
}

func (s *stmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	return query1(ctx, s.c, s.a, args)
}

// named converts the arguments of the pre-context methods, which
// database/sql never calls on this driver.
func named(args []driver.Value) []driver.NamedValue {
	nv := make([]driver.NamedValue, len(args))
	for i, v := range args {
		nv[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return nv
}

func (s *stmt) CheckNamedValue(*driver.NamedValue) error { return nil }

type result struct{}

func (result) LastInsertId() (int64, error) { return 0, nil }
func (result) RowsAffected() (int64, error) { return 0, nil }

type rows struct {
	a *Answer
	i int
	//lint:ignore U1000 used by scan_go127.go, built from Go 1.27 on
	cur []driver.Value // the row NextRow moved to
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
