//go:build cgo

package sqlite3

import (
	"database/sql/driver"
	"strings"
	"unsafe"
)

// database/sql's Rows.Next takes each column as a driver.Value, an interface.
// Go's own conversion of a string or []byte to an interface allocates its
// header apart from its bytes: two allocations per value. For values of
// sharedHeaderMin bytes and more, Next makes one instead: a pointer-free
// block that holds the header and then the bytes, and an interface that
// points at the header. The header points into its own block, so the
// collector needs no pointer from it (whoever holds the header holds the
// block), and the block keeps alive only the value itself plus its header:
// a string the caller keeps costs at most a third more than its own
// allocation would, and shares its block with no other value, as
// docs/queries.md promises of values (retention_test.go checks it).
// Shorter values keep Go's two allocations, where the 16- or 24-byte header
// would weigh more than that (a 15-byte string fits one of the allocator's
// 16-byte tiny blocks, with its header 32 bytes).
const sharedHeaderMin = 48

// eface is the runtime's layout of an empty interface (a type word and a data
// word), unchanged since Go 1.4; typeWord reads the type word of a value.
type eface struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

func typeWord(v any) unsafe.Pointer { return (*eface)(unsafe.Pointer(&v)).typ }

var (
	stringType = typeWord("")
	bytesType  = typeWord([]byte(nil))
)

// stringValue returns a copy of src as a driver.Value holding a string.
func stringValue(src []byte) driver.Value {
	n := len(src)
	if n < sharedHeaderMin {
		return string(src)
	}
	const hdr = unsafe.Sizeof("")
	p := withHeader(hdr, src)
	// Written as integers: a pointer store into pointer-free memory would run
	// the write barrier on the uninitialized word it overwrites.
	*(*uintptr)(p) = uintptr(p) + hdr
	*(*int)(unsafe.Add(p, 8)) = n
	return box(stringType, p)
}

// blobValue returns a copy of src as a driver.Value holding a []byte: never
// nil, since an empty BLOB is not NULL. A []byte sharing its block with its
// header is capped at its length, so that appending to it reallocates.
func blobValue(src []byte) driver.Value {
	n := len(src)
	if n < sharedHeaderMin {
		return blobCopy(src)
	}
	const hdr = unsafe.Sizeof([]byte(nil))
	p := withHeader(hdr, src)
	*(*uintptr)(p) = uintptr(p) + hdr // as in stringValue
	*(*int)(unsafe.Add(p, 8)) = n
	*(*int)(unsafe.Add(p, 16)) = n
	return box(bytesType, p)
}

// blobCopy returns a copy of a BLOB value: never nil, since an empty BLOB is
// not NULL.
func blobCopy(src []byte) []byte { return append([]byte{}, src...) }

// withHeader returns a new pointer-free block of hdr bytes, left for the
// caller to fill, followed by a copy of src. The block is not zeroed first
// (strings.Builder's growth is the standard library's way to ask for that):
// every byte of it is written before it is used. It is 8-aligned, as every
// allocation of 8 bytes or more.
func withHeader(hdr uintptr, src []byte) unsafe.Pointer {
	n := int(hdr) + len(src)
	var sb strings.Builder
	sb.Grow(n)
	sb.WriteByte(0)
	mem := unsafe.Slice(unsafe.StringData(sb.String()), n)
	copy(mem[hdr:], src)
	return unsafe.Pointer(&mem[0])
}

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
