//go:build cgo

package sqlite3

import (
	"time"
	"unsafe"
)

// database/sql's Rows.Next takes each column as a driver.Value, an interface;
// putting an int64, float64, string or []byte into an interface the ordinary
// way allocates a copy of it, one allocation per column per row. Next instead
// writes each value, and its string or []byte header (or its time.Time), into
// the connection's arena (arena.go) and makes the interface point at it there. Arena memory is
// never written again once handed out, so the values are as immutable as any
// boxed value and stay valid after the next call.

// eface is the runtime's layout of an empty interface (a type word and a data
// word), unchanged since Go 1.4; typeWord reads the type word of a value.
type eface struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

func typeWord(v any) unsafe.Pointer { return (*eface)(unsafe.Pointer(&v)).typ }

var (
	int64Type   = typeWord(int64(0))
	float64Type = typeWord(float64(0))
	stringType  = typeWord("")
	bytesType   = typeWord([]byte(nil))
	timeType    = typeWord(time.Time{})
)

// smallInts are the values 0-255 for boxing without arena space, as Go's own
// conversion of an int64 to an interface shares one static copy of each.
var smallInts = func() (a [256]int64) {
	for i := range a {
		a[i] = int64(i)
	}
	return a
}()

// box returns an interface whose dynamic type is typ and whose value is the
// one at p, without copying it. p must point to a value of that type that is
// never modified afterwards.
func box(typ, p unsafe.Pointer) any {
	var v any
	e := (*eface)(unsafe.Pointer(&v))
	e.typ = typ
	e.data = p
	return v
}
