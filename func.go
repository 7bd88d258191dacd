//go:build cgo

package sqlite3

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"
	"unsafe"
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
//     is an error, not a wrap-around.
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
// (the SQL result is then NULL). The value may be of any integer type (a
// uint64 above MaxInt64 is an error), float32, float64, bool (1 or 0),
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
// on several goroutines at once and must be safe for that. It must not use
// the connection it runs on (no queries on it from inside impl).
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
	if err := c.checkRegister(name); err != nil {
		return err
	}
	fi, nArg, err := newFuncInfo(name, impl)
	if err != nil {
		return err
	}
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
	if err := c.checkRegister(name); err != nil {
		return err
	}
	ai, nArg, window, err := newAggInfo(name, impl)
	if err != nil {
		return err
	}
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
	if c.closed {
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
	name string
	call func(f fcall)
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

// ---- signatures, through reflection ----

type role int

const (
	roleFunc   role = iota // a scalar function: args -> value[, error] or error
	roleStep               // Step, Inverse: args -> [error]
	roleResult             // Done, Value: () -> value[, error]
)

var errorType = reflect.TypeFor[error]()

// funcSig is a func type compiled once: a converter per parameter and one
// for the result.
type funcSig struct {
	params   []argConv
	variadic *argConv // the element of a ...T parameter
	result   func(f fcall, v reflect.Value)
	errOut   int // index of the error result, or -1
	nArg     int // SQLite's nArg: len(params), or -1 when variadic
}

// argConv stores SQL argument i into dst, an addressable value of type t;
// it reports false after making the call's result an error.
type argConv struct {
	t   reflect.Type
	set func(f fcall, i int, dst reflect.Value) bool
}

func compileSig(t reflect.Type, r role) (*funcSig, error) {
	s := &funcSig{errOut: -1}
	n := t.NumIn()
	if t.IsVariadic() {
		n--
	}
	if r == roleResult && t.NumIn() != 0 {
		return nil, errors.New("must take no arguments")
	}
	for i := 0; i < n; i++ {
		conv, err := argConverter(t.In(i))
		if err != nil {
			return nil, fmt.Errorf("parameter %d: %w", i+1, err)
		}
		s.params = append(s.params, conv)
	}
	s.nArg = n
	if t.IsVariadic() {
		conv, err := argConverter(t.In(n).Elem())
		if err != nil {
			return nil, fmt.Errorf("variadic parameter: %w", err)
		}
		s.variadic = &conv
		s.nArg = -1
	}
	switch r {
	case roleStep:
		switch {
		case t.NumOut() == 0:
		case t.NumOut() == 1 && t.Out(0).Implements(errorType):
			s.errOut = 0
		default:
			return nil, errors.New("must return nothing or an error")
		}
		return s, nil
	}
	switch t.NumOut() {
	case 1:
		if t.Out(0).Kind() == reflect.Interface && t.Out(0).Implements(errorType) {
			s.errOut = 0 // only an error: the result is NULL
			return s, nil
		}
	case 2:
		if !t.Out(1).Implements(errorType) {
			return nil, errors.New("the second result must be an error")
		}
		s.errOut = 1
	default:
		return nil, errors.New("must return a value, optionally followed by an error")
	}
	set, err := resultConverter(t.Out(0))
	if err != nil {
		return nil, fmt.Errorf("result: %w", err)
	}
	s.result = set
	return s, nil
}

func argConverter(t reflect.Type) (argConv, error) {
	c := argConv{t: t}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		c.set = func(f fcall, i int, dst reflect.Value) bool {
			v, ok := f.int64Arg(i)
			if ok && dst.OverflowInt(v) {
				f.overflowArg(i, strconv.FormatInt(v, 10), dst.Type())
				return false
			}
			dst.SetInt(v)
			return ok
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		c.set = func(f fcall, i int, dst reflect.Value) bool {
			v, ok := f.int64Arg(i)
			if ok && (v < 0 || dst.OverflowUint(uint64(v))) {
				f.overflowArg(i, strconv.FormatInt(v, 10), dst.Type())
				return false
			}
			dst.SetUint(uint64(v))
			return ok
		}
	case reflect.Float32, reflect.Float64:
		c.set = func(f fcall, i int, dst reflect.Value) bool {
			v, ok := f.float64Arg(i)
			dst.SetFloat(v)
			return ok
		}
	case reflect.Bool:
		c.set = func(f fcall, i int, dst reflect.Value) bool {
			v, ok := f.boolArg(i)
			dst.SetBool(v)
			return ok
		}
	case reflect.String:
		c.set = func(f fcall, i int, dst reflect.Value) bool {
			v, ok := f.stringArg(i)
			dst.SetString(v)
			return ok
		}
	case reflect.Slice:
		if t.Elem().Kind() != reflect.Uint8 {
			return c, fmt.Errorf("unsupported type %s (the only slice type is []byte)", t)
		}
		c.set = func(f fcall, i int, dst reflect.Value) bool {
			v, ok := f.bytesArg(i)
			dst.SetBytes(v)
			return ok
		}
	case reflect.Interface:
		if t.NumMethod() != 0 {
			return c, fmt.Errorf("unsupported type %s (the only interface type is any)", t)
		}
		c.set = func(f fcall, i int, dst reflect.Value) bool {
			dst.Set(reflect.ValueOf(f.anyArg(i)))
			return true
		}
	default:
		return c, fmt.Errorf("unsupported type %s", t)
	}
	return c, nil
}

func resultConverter(t reflect.Type) (func(f fcall, v reflect.Value), error) {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(f fcall, v reflect.Value) { f.setInt64(v.Int()) }, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return func(f fcall, v reflect.Value) { f.setUint64(v.Uint()) }, nil
	case reflect.Float32, reflect.Float64:
		return func(f fcall, v reflect.Value) { f.setFloat64(v.Float()) }, nil
	case reflect.Bool:
		return func(f fcall, v reflect.Value) { f.setBool(v.Bool()) }, nil
	case reflect.String:
		return func(f fcall, v reflect.Value) { f.setText(v.String()) }, nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return func(f fcall, v reflect.Value) { f.setBlob(v.Bytes()) }, nil
		}
		return nil, fmt.Errorf("unsupported type %s (the only slice type is []byte)", t)
	case reflect.Interface:
		if t.NumMethod() == 0 {
			return func(f fcall, v reflect.Value) { f.setAny(v.Interface()) }, nil
		}
		return nil, fmt.Errorf("unsupported type %s (the only interface type is any)", t)
	}
	return nil, fmt.Errorf("unsupported type %s", t)
}

// finish sets the result from what a reflective call returned.
func (s *funcSig) finish(f fcall, out []reflect.Value) {
	if s.errOut >= 0 {
		if err := asError(out[s.errOut]); err != nil {
			f.failErr(err)
			return
		}
	}
	if s.result != nil {
		s.result(f, out[0])
	}
}

func asError(v reflect.Value) error {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan:
		if v.IsNil() {
			return nil
		}
	}
	return v.Interface().(error)
}

// invoker calls a func of a compiled signature through reflect.Value.Call.
// Its argument values are allocated once and reused: a nested call of the
// same function (SQL run from inside it) may overwrite them, which is safe
// because Call has copied them by then.
type invoker struct {
	sig   *funcSig
	slots []reflect.Value // an addressable value per fixed parameter
	extra []reflect.Value // addressable values for variadic arguments
	in    []reflect.Value
}

func newInvoker(s *funcSig) *invoker {
	v := &invoker{sig: s, slots: make([]reflect.Value, len(s.params))}
	for i, p := range s.params {
		v.slots[i] = reflect.New(p.t).Elem()
	}
	return v
}

func (v *invoker) call(fn reflect.Value, f fcall) ([]reflect.Value, bool) {
	s := v.sig
	if len(f.args) < len(s.params) {
		f.fail(fmt.Sprintf("%s(): needs at least %d arguments, got %d", f.name, len(s.params), len(f.args)), 0)
		return nil, false
	}
	in := v.in[:0]
	for i := range s.params {
		if !s.params[i].set(f, i, v.slots[i]) {
			return nil, false
		}
		in = append(in, v.slots[i])
	}
	for i := len(s.params); i < len(f.args); i++ {
		j := i - len(s.params)
		if j == len(v.extra) {
			v.extra = append(v.extra, reflect.New(s.variadic.t).Elem())
		}
		if !s.variadic.set(f, i, v.extra[j]) {
			return nil, false
		}
		in = append(in, v.extra[j])
	}
	v.in = in
	return fn.Call(in), true
}

// ---- arguments ----

func (f fcall) int64Arg(i int) (int64, bool) {
	a := &f.args[i]
	if a.typ == typeInteger {
		return a.int64(), true
	}
	f.badArg(i, "an INTEGER")
	return 0, false
}

func (f fcall) intArg(i int) (int, bool) {
	v, ok := f.int64Arg(i)
	if ok && int64(int(v)) != v {
		f.overflowArg(i, strconv.FormatInt(v, 10), reflect.TypeFor[int]())
		return 0, false
	}
	return int(v), ok
}

func (f fcall) float64Arg(i int) (float64, bool) {
	a := &f.args[i]
	switch a.typ {
	case typeFloat:
		return a.float64(), true
	case typeInteger:
		return float64(a.int64()), true
	}
	f.badArg(i, "a REAL or an INTEGER")
	return 0, false
}

func (f fcall) boolArg(i int) (bool, bool) {
	a := &f.args[i]
	if a.typ == typeInteger {
		return a.int64() != 0, true
	}
	f.badArg(i, "an INTEGER")
	return false, false
}

func (f fcall) stringArg(i int) (string, bool) {
	a := &f.args[i]
	if a.typ == typeText || a.typ == typeBlob {
		return string(a.bytes()), true
	}
	f.badArg(i, "TEXT or a BLOB")
	return "", false
}

func (f fcall) bytesArg(i int) ([]byte, bool) {
	a := &f.args[i]
	if a.typ == typeText || a.typ == typeBlob {
		return append([]byte{}, a.bytes()...), true
	}
	f.badArg(i, "TEXT or a BLOB")
	return nil, false
}

// anyArg converts argument i to its natural Go type; NULL is a nil []byte,
// as in mattn/go-sqlite3.
func (f fcall) anyArg(i int) any {
	a := &f.args[i]
	switch a.typ {
	case typeInteger:
		return a.int64()
	case typeFloat:
		return a.float64()
	case typeText:
		return string(a.bytes())
	case typeBlob:
		return append([]byte{}, a.bytes()...)
	}
	return []byte(nil)
}

func (f fcall) anyArgs() []any {
	args := make([]any, len(f.args))
	for i := range args {
		args[i] = f.anyArg(i)
	}
	return args
}

func (f fcall) badArg(i int, want string) {
	f.fail(fmt.Sprintf("%s(): argument %d must be %s, not %s", f.name, i+1, want, sqlTypeName(f.args[i].typ)), 0)
}

func (f fcall) overflowArg(i int, v string, t reflect.Type) {
	f.fail(fmt.Sprintf("%s(): argument %d: %s overflows %s", f.name, i+1, v, t), 0)
}

func sqlTypeName(t int32) string {
	switch t {
	case typeInteger:
		return "an INTEGER"
	case typeFloat:
		return "a REAL"
	case typeText:
		return "TEXT"
	case typeBlob:
		return "a BLOB"
	}
	return "NULL"
}

// ---- results ----

func (f fcall) setInt(v int) { f.setInt64(int64(v)) }

func (f fcall) setUint64(v uint64) {
	if v > math.MaxInt64 {
		f.fail(fmt.Sprintf("%s(): result %d overflows SQLite's 64-bit signed INTEGER", f.name, v), 0)
		return
	}
	f.setInt64(int64(v))
}

// setAny sets the result from a value of dynamic type.
func (f fcall) setAny(x any) {
	switch v := x.(type) {
	case nil:
		f.setNull()
	case int64:
		f.setInt64(v)
	case float64:
		f.setFloat64(v)
	case string:
		f.setText(v)
	case []byte:
		f.setBlob(v)
	case bool:
		f.setBool(v)
	case int:
		f.setInt64(int64(v))
	case int32:
		f.setInt64(int64(v))
	case int16:
		f.setInt64(int64(v))
	case int8:
		f.setInt64(int64(v))
	case uint8:
		f.setInt64(int64(v))
	case uint16:
		f.setInt64(int64(v))
	case uint32:
		f.setInt64(int64(v))
	case uint:
		f.setUint64(uint64(v))
	case uint64:
		f.setUint64(v)
	case float32:
		f.setFloat64(float64(v))
	case time.Time:
		var tmp [64]byte
		b := v.AppendFormat(tmp[:0], SQLiteTimestampFormats[0])
		f.setBytes(unsafe.SliceData(b), len(b), typeText)
	default:
		rv := reflect.ValueOf(x)
		if set, err := resultConverter(rv.Type()); err == nil && rv.Kind() != reflect.Interface {
			set(f, rv)
			return
		}
		f.fail(fmt.Sprintf("%s(): cannot return a value of type %T", f.name, x), 0)
	}
}

// failErr makes err the call's result. An Error, ErrNo or ErrNoExtended in
// err's chain gives the result code.
func (f fcall) failErr(err error) {
	code := 0
	var se Error
	var en ErrNo
	var ex ErrNoExtended
	switch {
	case errors.As(err, &se):
		code = int(se.ExtendedCode)
		if code == 0 {
			code = int(se.Code)
		}
	case errors.As(err, &ex):
		code = int(ex)
	case errors.As(err, &en):
		code = int(en)
	}
	if p := code & ErrNoMask; p <= 0 || p > int(ErrWarning) {
		code = 0
	}
	f.fail(err.Error(), code)
}

// recoverCall turns r, what a function or aggregate panicked with, into the
// call's error.
func recoverCall(f fcall, a *aggInfo, r any) {
	f.fail(fmt.Sprintf("%s(): panic: %v", f.name, r), 0)
	if a != nil {
		a.failed(f)
	}
}

func typeString(v any) string {
	if v == nil {
		return "nil"
	}
	return reflect.TypeOf(v).String()
}

// ---- aggregates and window functions ----

// aggInfo is a registered aggregate: what its handle resolves to. The
// instances of groups being aggregated live in slots; SQLite's aggregate
// context of each group holds its slot's index + 1.
type aggInfo struct {
	name    string
	ctor    reflect.Value
	ctorErr bool
	step    func(f fcall, obj any)
	inverse func(f fcall, obj any)
	value   func(f fcall, obj any)
	done    func(f fcall, obj any)

	slots []aggSlot
	free  []int64
}

type aggSlot struct {
	obj    any
	failed bool
}

func newAggInfo(name string, impl any) (*aggInfo, int, bool, error) {
	fail := func(msg string) (*aggInfo, int, bool, error) {
		return nil, 0, false, driverError("RegisterAggregator " + name + ": " + msg)
	}
	ctor := reflect.ValueOf(impl)
	if ctor.Kind() != reflect.Func || ctor.IsNil() {
		return fail("impl must be a non-nil constructor func, not " + typeString(impl))
	}
	t := ctor.Type()
	if t.NumIn() != 0 {
		return fail("the constructor must take no arguments")
	}
	ai := &aggInfo{name: name, ctor: ctor}
	switch {
	case t.NumOut() == 1:
	case t.NumOut() == 2 && t.Out(1).Implements(errorType):
		ai.ctorErr = true
	default:
		return fail("the constructor must return a value, optionally followed by an error")
	}
	aggT := t.Out(0)
	if aggT.Kind() != reflect.Pointer && aggT.Kind() != reflect.Interface {
		return fail("the constructor must return a pointer or an interface, not " + aggT.String())
	}
	stepT, ok := methodType(aggT, "Step")
	if !ok {
		return fail(aggT.String() + " has no Step method")
	}
	doneT, ok := methodType(aggT, "Done")
	if !ok {
		return fail(aggT.String() + " has no Done method")
	}
	stepSig, err := compileSig(stepT, roleStep)
	if err != nil {
		return fail("Step: " + err.Error())
	}
	doneSig, err := compileSig(doneT, roleResult)
	if err != nil {
		return fail("Done: " + err.Error())
	}
	ai.step = aggMethod("Step", stepT, stepSig)
	ai.done = aggMethod("Done", doneT, doneSig)

	inverseT, hasInverse := methodType(aggT, "Inverse")
	valueT, hasValue := methodType(aggT, "Value")
	if !hasInverse {
		// A Value method alone (driver.Valuer, say) does not make a window function.
		return ai, stepSig.nArg, false, nil
	}
	if !hasValue {
		return fail(aggT.String() + " has an Inverse method but no Value method (a window function needs both)")
	}
	inverseSig, err := compileSig(inverseT, roleStep)
	if err != nil {
		return fail("Inverse: " + err.Error())
	}
	if inverseSig.nArg != stepSig.nArg {
		return fail("Inverse must take the same arguments as Step")
	}
	valueSig, err := compileSig(valueT, roleResult)
	if err != nil {
		return fail("Value: " + err.Error())
	}
	ai.inverse = aggMethod("Inverse", inverseT, inverseSig)
	ai.value = aggMethod("Value", valueT, valueSig)
	return ai, stepSig.nArg, true, nil
}

// methodType returns the type of t's method name, without the receiver.
func methodType(t reflect.Type, name string) (reflect.Type, bool) {
	m, ok := t.MethodByName(name)
	if !ok {
		return nil, false
	}
	mt := m.Type
	if t.Kind() == reflect.Interface {
		return mt, true
	}
	in := make([]reflect.Type, mt.NumIn()-1)
	for i := range in {
		in[i] = mt.In(i + 1)
	}
	out := make([]reflect.Type, mt.NumOut())
	for i := range out {
		out[i] = mt.Out(i)
	}
	return reflect.FuncOf(in, out, mt.IsVariadic()), true
}

// aggMethod returns the caller of method name: a direct interface call for
// the common signatures, reflection otherwise.
func aggMethod(name string, mt reflect.Type, sig *funcSig) func(fcall, any) {
	if fast := fastAggMethod(name, mt); fast != nil {
		return fast
	}
	inv := newInvoker(sig)
	// The method's index in the type the constructor last returned, looked up
	// again only when that type changes (an interface-typed constructor).
	var lastType reflect.Type
	var index int
	return func(f fcall, obj any) {
		v := reflect.ValueOf(obj)
		if t := v.Type(); t != lastType {
			m, _ := t.MethodByName(name)
			lastType, index = t, m.Index
		}
		if out, ok := inv.call(v.Method(index), f); ok {
			sig.finish(f, out)
		}
	}
}

// dispatch runs one aggregate callback.
func (a *aggInfo) dispatch(f fcall) {
	id := f.aggID()
	if f.kind() == callFinal {
		var obj any
		if id != nil && *id != 0 {
			s := a.release(*id)
			*id = 0
			if s.failed {
				return // the statement already failed; Done is not called
			}
			obj = s.obj
		} else if obj = a.construct(f); obj == nil {
			return
		}
		a.done(f, obj)
		return
	}
	if *id == 0 {
		obj := a.construct(f)
		if obj == nil {
			return
		}
		*id = a.alloc(obj)
	}
	s := &a.slots[*id-1]
	switch f.kind() {
	case callStep:
		a.step(f, s.obj)
	case callInverse:
		a.inverse(f, s.obj)
	case callValue:
		a.value(f, s.obj)
	}
	if f.failed() {
		a.slots[*id-1].failed = true
	}
}

// failed marks the group of an aggregate call that panicked.
func (a *aggInfo) failed(f fcall) {
	if id := f.aggID(); id != nil && *id > 0 && *id <= int64(len(a.slots)) {
		a.slots[*id-1].failed = true
	}
}

// construct calls the constructor; nil means the call failed.
func (a *aggInfo) construct(f fcall) any {
	out := a.ctor.Call(nil)
	if a.ctorErr {
		if err := asError(out[1]); err != nil {
			f.failErr(err)
			return nil
		}
	}
	v := out[0]
	if (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && v.IsNil() {
		f.fail(f.name+"(): the aggregator constructor returned nil", 0)
		return nil
	}
	return v.Interface()
}

func (a *aggInfo) alloc(obj any) int64 {
	if n := len(a.free); n > 0 {
		i := a.free[n-1]
		a.free = a.free[:n-1]
		a.slots[i] = aggSlot{obj: obj}
		return i + 1
	}
	a.slots = append(a.slots, aggSlot{obj: obj})
	return int64(len(a.slots))
}

func (a *aggInfo) release(id int64) aggSlot {
	s := a.slots[id-1]
	a.slots[id-1] = aggSlot{}
	a.free = append(a.free, id-1)
	return s
}

// The method sets that fastAggMethod calls without reflection.
type (
	stepper[T any]   interface{ Step(T) }
	stepperE[T any]  interface{ Step(T) error }
	inverser[T any]  interface{ Inverse(T) }
	inverserE[T any] interface{ Inverse(T) error }
	doner[T any]     interface{ Done() T }
	donerE[T any]    interface{ Done() (T, error) }
	valuer[T any]    interface{ Value() T }
	valuerE[T any]   interface{ Value() (T, error) }
)

func fastAggMethod(name string, mt reflect.Type) func(fcall, any) {
	switch mt {
	case reflect.TypeFor[func(int64)]():
		return unaryMethod(name, false, fcall.int64Arg)
	case reflect.TypeFor[func(int64) error]():
		return unaryMethod(name, true, fcall.int64Arg)
	case reflect.TypeFor[func(int)]():
		return unaryMethod(name, false, fcall.intArg)
	case reflect.TypeFor[func(int) error]():
		return unaryMethod(name, true, fcall.intArg)
	case reflect.TypeFor[func(float64)]():
		return unaryMethod(name, false, fcall.float64Arg)
	case reflect.TypeFor[func(float64) error]():
		return unaryMethod(name, true, fcall.float64Arg)
	case reflect.TypeFor[func(string)]():
		return unaryMethod(name, false, fcall.stringArg)
	case reflect.TypeFor[func(string) error]():
		return unaryMethod(name, true, fcall.stringArg)
	case reflect.TypeFor[func(any)]():
		return unaryMethod(name, false, fcall.anyArgOK)
	case reflect.TypeFor[func(any) error]():
		return unaryMethod(name, true, fcall.anyArgOK)
	case reflect.TypeFor[func() int64]():
		return resultMethod(name, false, fcall.setInt64)
	case reflect.TypeFor[func() (int64, error)]():
		return resultMethod(name, true, fcall.setInt64)
	case reflect.TypeFor[func() int]():
		return resultMethod(name, false, fcall.setInt)
	case reflect.TypeFor[func() (int, error)]():
		return resultMethod(name, true, fcall.setInt)
	case reflect.TypeFor[func() float64]():
		return resultMethod(name, false, fcall.setFloat64)
	case reflect.TypeFor[func() (float64, error)]():
		return resultMethod(name, true, fcall.setFloat64)
	case reflect.TypeFor[func() string]():
		return resultMethod(name, false, fcall.setText)
	case reflect.TypeFor[func() (string, error)]():
		return resultMethod(name, true, fcall.setText)
	case reflect.TypeFor[func() []byte]():
		return resultMethod(name, false, fcall.setBlob)
	case reflect.TypeFor[func() ([]byte, error)]():
		return resultMethod(name, true, fcall.setBlob)
	case reflect.TypeFor[func() any]():
		return resultMethod(name, false, fcall.setAny)
	case reflect.TypeFor[func() (any, error)]():
		return resultMethod(name, true, fcall.setAny)
	}
	return nil
}

func (f fcall) anyArgOK(i int) (any, bool) { return f.anyArg(i), true }

// unaryMethod calls Step(T) or Inverse(T), with or without an error result.
func unaryMethod[T any](name string, withErr bool, arg func(fcall, int) (T, bool)) func(fcall, any) {
	switch {
	case name == "Step" && !withErr:
		return func(f fcall, obj any) {
			if x, ok := arg(f, 0); ok {
				obj.(stepper[T]).Step(x)
			}
		}
	case name == "Step":
		return func(f fcall, obj any) {
			if x, ok := arg(f, 0); ok {
				if err := obj.(stepperE[T]).Step(x); err != nil {
					f.failErr(err)
				}
			}
		}
	case !withErr:
		return func(f fcall, obj any) {
			if x, ok := arg(f, 0); ok {
				obj.(inverser[T]).Inverse(x)
			}
		}
	default:
		return func(f fcall, obj any) {
			if x, ok := arg(f, 0); ok {
				if err := obj.(inverserE[T]).Inverse(x); err != nil {
					f.failErr(err)
				}
			}
		}
	}
}

// resultMethod calls Done() or Value(), with or without an error result.
func resultMethod[T any](name string, withErr bool, set func(fcall, T)) func(fcall, any) {
	switch {
	case name == "Done" && !withErr:
		return func(f fcall, obj any) { set(f, obj.(doner[T]).Done()) }
	case name == "Done":
		return func(f fcall, obj any) {
			if v, err := obj.(donerE[T]).Done(); err != nil {
				f.failErr(err)
			} else {
				set(f, v)
			}
		}
	case !withErr:
		return func(f fcall, obj any) { set(f, obj.(valuer[T]).Value()) }
	default:
		return func(f fcall, obj any) {
			if v, err := obj.(valuerE[T]).Value(); err != nil {
				f.failErr(err)
			} else {
				set(f, v)
			}
		}
	}
}

// ---- collations ----

// collation is a registered collating sequence: what its handle resolves to.
type collation struct {
	cmp func(string, string) int
	h   connHandle // for sqlite3_interrupt after a panic
}

// collationPanicked is compare's result when cmp panicked.
const collationPanicked = 2

// compare calls cmp on copies of a and b (one allocation for both) and
// returns -1, 0 or 1.
func (c *collation) compare(a, b []byte) (r int) {
	returned := false
	defer func() {
		if !returned { // recover is called only after a panic: it is not free
			recover()
			r = collationPanicked
		}
	}()
	buf := make([]byte, len(a)+len(b))
	copy(buf, a)
	copy(buf[len(a):], b)
	s := unsafe.String(unsafe.SliceData(buf), len(buf))
	x := c.cmp(s[:len(a)], s[len(a):])
	returned = true
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}
