//go:build cgo

package sqlite3

import (
	"reflect"
	"strconv"
	"strings"
)

// User-defined SQL functions, aggregates, window functions and collations,
// written in Go. The Go signature is inspected once, at registration, and
// turned into converters; a call then costs one cgo callback: C decodes every
// argument before calling Go, and Go leaves the result for C to set, without
// reflection for the common signatures (fastScalar, fastAggMethod) and
// without allocation unless a string, []byte or any crosses over.

// maxFunctionArgs is SQLITE_MAX_FUNCTION_ARG's default.
const maxFunctionArgs = 1000

// RegisterFunc makes the Go function impl available to SQL as name on this
// connection (https://sqlite.org/c3ref/create_function.html: registered with
// sqlite3_create_function_v2; registering the same name and number of
// arguments again replaces it). Register functions in a ConnectHook so that
// every connection of a sql.DB has them, or on one connection reached with
// sql.Conn.Raw.
//
// impl's parameters may be of any integer type, float32, float64, bool,
// string, []byte or any (and named types of those), and impl may be variadic
// (...T), in which case SQL may pass any number of arguments beyond the fixed
// ones. SQL values convert as follows:
//   - integer parameters take an INTEGER; a value out of the parameter's range
//     wraps around as a Go conversion does (int8 takes 300 as 44, uint64 -1
//     as MaxUint64), as in mattn/go-sqlite3; with _strict it is an error.
//   - float parameters take a REAL or an INTEGER.
//   - bool takes an INTEGER (non-zero is true).
//   - string and []byte take TEXT or a BLOB (a copy: impl may keep it).
//   - any receives int64 (INTEGER), float64 (REAL), string (TEXT), []byte
//     (BLOB) or, for NULL, a nil []byte, as in mattn/go-sqlite3.
//
// Any other SQL type, NULL included, is an error for a parameter that is not
// any, as in mattn/go-sqlite3. As there, impl cannot take a *SQLiteContext.
//
// impl returns one value, optionally followed by an error; or only an error
// (the SQL result is then NULL, and the error is dropped as in
// mattn/go-sqlite3, unless _strict is set). The value may be of any integer
// type (a uint64 above MaxInt64 wraps to a negative INTEGER, as in mattn; an
// error with _strict), float32, float64, bool (1 or 0),
// string (TEXT), []byte (BLOB; nil or empty is NULL, as in mattn), or any
// holding one of those, nil (NULL) or a time.Time (TEXT in
// SQLiteTimestampFormats[0]).
//
// A returned error, or a panic in impl, fails the SQL statement with the
// error's message (sqlite3_result_error); an Error, ErrNo or ErrNoExtended in
// the error's chain sets the statement's result code. The connection stays
// usable. Results beyond SQLite's length limit fail with ErrTooBig.
//
// impl runs on the goroutine that runs the statement. Registered in a
// ConnectHook, one impl serves every connection of the pool, so it may run
// on several goroutines at once and must be safe for that. It may run SQL on
// the connection it runs on only through that *SQLiteConn itself (as a
// ConnectHook received it: ExecContext, QueryContext or a DirectStmt), never
// through database/sql, which holds the connection while the statement runs.
//
// pure declares that impl's result depends only on its arguments
// (SQLITE_DETERMINISTIC): SQLite may then evaluate it once for constant
// arguments and allows it in index expressions, CHECK constraints and
// generated columns.
//
// Cost per call: one cgo callback from SQLite into Go (about 100 ns) and,
// for the common signatures, a direct call with no reflection and no
// allocation: func(int64) int64, func(int64, int64) int64, func(int) int,
// func(int, int) int, func(float64) float64, func(float64, float64) float64,
// func(string) string, func(string) (string, error), func(string) int64,
// func(string) int, func(string, string) bool, func(string, string) (bool,
// error), func([]byte) []byte, func(any) any, func(any) (any, error),
// func(...any) any, func(...any) (any, error), func() int64 and func() any
// (named func types with these signatures too). Other signatures go through
// reflect.Value.Call, a few hundred ns more. Strings and []byte arguments are
// copied into Go memory (one allocation each); TEXT and BLOB results up to
// 4 KiB are copied into a per-function C buffer and set without another cgo
// call, larger ones with one cgo call.
func (c *SQLiteConn) RegisterFunc(name string, impl any, pure bool) error {
	defer c.core.unlock(c.core.lock())
	if err := c.checkRegister(name); err != nil {
		return err
	}
	fi, nArg, err := newFuncInfo(name, impl)
	if err != nil {
		return err
	}
	fi.strict = c.strict
	return c.createFunction(name, nArg, pure, callFunc, &udf{fn: fi})
}

// RegisterAggregator makes an aggregate implemented in Go available to SQL as
// name on this connection (https://sqlite.org/c3ref/create_function.html:
// sqlite3_create_function_v2 with xStep and xFinal).
//
// impl is a constructor, a func taking no argument and returning a pointer
// (or an interface value), optionally followed by an error. It is called
// once per group (per partition for a window function) when SQLite starts
// aggregating it. The returned value must have the methods
//
//	Step(args...)            // optionally returning an error
//	Done() T                 // or Done() (T, error)
//
// Step receives one row's arguments, with the parameter types RegisterFunc
// accepts (variadic too); Done returns the aggregate's result, with the
// result types RegisterFunc accepts. For a group with no rows, Done is called
// on a freshly constructed value.
//
// Window functions (not in mattn/go-sqlite3): when the type also has
//
//	Inverse(args...)         // the same parameters as Step
//	Value() T                // or Value() (T, error)
//
// the aggregate is registered with sqlite3_create_window_function and can be
// used with OVER (...) (https://sqlite.org/windowfunctions.html#udfwinfunc):
// Inverse removes the oldest row that Step added from the frame, Value
// returns the result for the current frame without ending the aggregation,
// and Done ends it. Such a type still works as a plain aggregate.
//
// Errors and panics in any of these fail the statement, as for RegisterFunc;
// Done is then not called for that group. pure means SQLITE_DETERMINISTIC.
//
// Cost: the constructor runs through reflection once per group; each Step,
// Inverse, Value and Done is one cgo callback and, for the common signatures,
// a direct interface call with no reflection: Step and Inverse taking one
// int64, int, float64, string or any (returning nothing or an error), Done
// and Value returning int64, int, float64, string, []byte or any (alone or
// with an error). Other signatures go through reflect.Value.Call.
func (c *SQLiteConn) RegisterAggregator(name string, impl any, pure bool) error {
	defer c.core.unlock(c.core.lock())
	if err := c.checkRegister(name); err != nil {
		return err
	}
	ai, nArg, window, err := newAggInfo(name, impl)
	if err != nil {
		return err
	}
	ai.strict = c.strict
	kind := callStep
	if window {
		kind = callInverse
	}
	return c.createFunction(name, nArg, pure, kind, &udf{agg: ai})
}

// RegisterCollation makes cmp available to SQL as the collating sequence name
// (COLLATE name) on this connection (https://sqlite.org/c3ref/create_collation.html:
// sqlite3_create_collation_v2, UTF-8). cmp returns a negative number, zero or
// a positive number when a sorts before, equal to or after b; it must be a
// consistent total order. A nil cmp removes the collation.
//
// Each comparison is one cgo callback into Go and one allocation holding
// copies of both strings (cmp may keep them). cmp cannot report an error: if
// it panics, the statement is interrupted and fails with ErrInterrupt.
func (c *SQLiteConn) RegisterCollation(name string, cmp func(string, string) int) error {
	defer c.core.unlock(c.core.lock())
	if err := c.checkRegister(name); err != nil {
		return err
	}
	var v *udf
	if cmp != nil {
		v = &udf{coll: &collation{cmp: cmp, h: c.h}}
	}
	if rc := cCreateCollation(c.h, name, v); rc != sqliteOK {
		return errorFor(c.h, rc, 0)
	}
	return nil
}

func (c *SQLiteConn) checkRegister(name string) error {
	if c.closed.Load() {
		return driverError("connection is closed")
	}
	if strings.IndexByte(name, 0) >= 0 {
		return driverError("name " + strconv.Quote(name) + " contains a NUL byte")
	}
	return nil
}

func (c *SQLiteConn) createFunction(name string, nArg int, pure bool, kind int, v *udf) error {
	if nArg > maxFunctionArgs {
		return driverError(name + ": SQLite functions take at most " + itoa(maxFunctionArgs) + " arguments")
	}
	flags := flagUTF8
	if pure {
		flags |= flagDeterministic
	}
	if rc := cCreateFunction(c.h, name, nArg, flags, kind, v); rc != sqliteOK {
		return errorFor(c.h, rc, 0)
	}
	return nil
}

// ---- scalar functions ----

// funcInfo is a registered scalar function: what its handle resolves to.
type funcInfo struct {
	name   string
	call   func(f fcall)
	strict bool // the registering connection's _strict
}

func newFuncInfo(name string, impl any) (*funcInfo, int, error) {
	fn := reflect.ValueOf(impl)
	if fn.Kind() != reflect.Func || fn.IsNil() {
		return nil, 0, driverError("RegisterFunc " + name + ": impl must be a non-nil func, not " + typeString(impl))
	}
	sig, err := compileSig(fn.Type(), roleFunc)
	if err != nil {
		return nil, 0, driverError("RegisterFunc " + name + ": " + err.Error())
	}
	fi := &funcInfo{name: name}
	if fast := fastScalar(unnamed(fn).Interface()); fast != nil {
		fi.call = fast
	} else {
		inv := newInvoker(sig)
		fi.call = func(f fcall) {
			if out, ok := inv.call(fn, f); ok {
				sig.finish(f, out)
			}
		}
	}
	return fi, sig.nArg, nil
}

// unnamed converts a func of a named func type to the unnamed func type with
// the same signature, so that the fast paths' type switches match it.
func unnamed(fn reflect.Value) reflect.Value {
	t := fn.Type()
	if t.Name() == "" {
		return fn
	}
	in := make([]reflect.Type, t.NumIn())
	for i := range in {
		in[i] = t.In(i)
	}
	out := make([]reflect.Type, t.NumOut())
	for i := range out {
		out[i] = t.Out(i)
	}
	return fn.Convert(reflect.FuncOf(in, out, t.IsVariadic()))
}

// fastScalar calls the most common signatures directly, without reflection.
func fastScalar(impl any) func(fcall) {
	switch g := impl.(type) {
	case func(int64) int64:
		return func(f fcall) {
			if a, ok := f.int64Arg(0); ok {
				f.setInt64(g(a))
			}
		}
	case func(int64, int64) int64:
		return func(f fcall) {
			if a, ok := f.int64Arg(0); ok {
				if b, ok := f.int64Arg(1); ok {
					f.setInt64(g(a, b))
				}
			}
		}
	case func(int) int:
		return func(f fcall) {
			if a, ok := f.intArg(0); ok {
				f.setInt64(int64(g(a)))
			}
		}
	case func(int, int) int:
		return func(f fcall) {
			if a, ok := f.intArg(0); ok {
				if b, ok := f.intArg(1); ok {
					f.setInt64(int64(g(a, b)))
				}
			}
		}
	case func(float64) float64:
		return func(f fcall) {
			if a, ok := f.float64Arg(0); ok {
				f.setFloat64(g(a))
			}
		}
	case func(float64, float64) float64:
		return func(f fcall) {
			if a, ok := f.float64Arg(0); ok {
				if b, ok := f.float64Arg(1); ok {
					f.setFloat64(g(a, b))
				}
			}
		}
	case func(string) string:
		return func(f fcall) {
			if a, ok := f.stringArg(0); ok {
				f.setText(g(a))
			}
		}
	case func(string) (string, error):
		return func(f fcall) {
			if a, ok := f.stringArg(0); ok {
				if r, err := g(a); err != nil {
					f.failErr(err)
				} else {
					f.setText(r)
				}
			}
		}
	case func(string) int64:
		return func(f fcall) {
			if a, ok := f.stringArg(0); ok {
				f.setInt64(g(a))
			}
		}
	case func(string) int:
		return func(f fcall) {
			if a, ok := f.stringArg(0); ok {
				f.setInt64(int64(g(a)))
			}
		}
	case func(string, string) bool:
		return func(f fcall) {
			if a, ok := f.stringArg(0); ok {
				if b, ok := f.stringArg(1); ok {
					f.setBool(g(a, b))
				}
			}
		}
	case func(string, string) (bool, error):
		return func(f fcall) {
			if a, ok := f.stringArg(0); ok {
				if b, ok := f.stringArg(1); ok {
					if r, err := g(a, b); err != nil {
						f.failErr(err)
					} else {
						f.setBool(r)
					}
				}
			}
		}
	case func([]byte) []byte:
		return func(f fcall) {
			if a, ok := f.bytesArg(0); ok {
				f.setBlob(g(a))
			}
		}
	case func(any) any:
		return func(f fcall) { f.setAny(g(f.anyArg(0))) }
	case func(any) (any, error):
		return func(f fcall) {
			if r, err := g(f.anyArg(0)); err != nil {
				f.failErr(err)
			} else {
				f.setAny(r)
			}
		}
	case func(...any) any:
		return func(f fcall) { f.setAny(g(f.anyArgs()...)) }
	case func(...any) (any, error):
		return func(f fcall) {
			if r, err := g(f.anyArgs()...); err != nil {
				f.failErr(err)
			} else {
				f.setAny(r)
			}
		}
	case func() int64:
		return func(f fcall) { f.setInt64(g()) }
	case func() any:
		return func(f fcall) { f.setAny(g()) }
	}
	return nil
}
