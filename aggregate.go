//go:build cgo

package sqlite3

// Aggregates and window functions implemented by Go types
// (RegisterAggregator).

import (
	"reflect"
)

// ---- aggregates and window functions ----

// aggInfo is a registered aggregate: what its handle resolves to. The
// instances of groups being aggregated live in slots; SQLite's aggregate
// context of each group holds its slot's index + 1.
type aggInfo struct {
	name    string
	strict  bool // the registering connection's _strict
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
