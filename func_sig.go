//go:build cgo

package sqlite3

// Go signatures of user-defined functions, compiled once at registration by
// reflection, and the argument and result conversions a call uses.

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"time"
	"unsafe"
)

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
	errOut   int  // index of the error result, or -1
	dropErr  bool // a function returning only an error: mattn/go-sqlite3 drops it (kept with strict)
	nArg     int  // SQLite's nArg: len(params), or -1 when variadic
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
			s.dropErr = r == roleFunc
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
			if ok && f.strict && dst.OverflowInt(v) {
				f.overflowArg(i, strconv.FormatInt(v, 10), dst.Type())
				return false
			}
			dst.SetInt(v)
			return ok
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		c.set = func(f fcall, i int, dst reflect.Value) bool {
			v, ok := f.int64Arg(i)
			if ok && f.strict && (v < 0 || dst.OverflowUint(uint64(v))) {
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
			if !s.dropErr || f.strict {
				f.failErr(err)
			}
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
	if ok && f.strict && int64(int(v)) != v {
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
	if v > math.MaxInt64 && f.strict {
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
