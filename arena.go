//go:build cgo

package sqlite3

import "unsafe"

// valueArena is where a connection copies the values it hands to database/sql
// out of SQLite's memory. Allocating each value on its own costs one
// allocation per column per row (mattn/go-sqlite3's cost); even one block per
// row costs one allocation per row and wastes the rounding of each block up to
// Go's size class. Instead, values are cut from blocks that outlive the row,
// and the query: successive rows and queries on the connection fill the same
// block until it is used up, so a narrow row costs a fraction of an allocation
// and a wide one wastes at most the tail of a block.
//
// Memory handed out is never written again (the arena only moves forward), so
// every value stays valid, and immutable, for as long as the caller keeps it;
// a kept value keeps its block alive (at most arenaBlock bytes, or one header
// block). Values of ownAllocation bytes and more get an allocation of their
// own, so a small value never keeps a large one alive. The arena belongs to
// one connection and is used only inside its calls, which database/sql
// serializes.
type valueArena struct {
	bytes  []byte   // unused rest of the current pointer-free block: TEXT/BLOB bytes and numbers
	strs   []string // unused rest of the current block of string headers
	slices [][]byte // unused rest of the current block of []byte headers
}

const (
	arenaBlock    = 4 << 10 // bytes of a pointer-free block (a size class: no rounding waste)
	arenaHeaders  = 128     // headers per header block
	ownAllocation = 1 << 10 // values this large are allocated on their own
)

// copyBytes returns a copy of src (nil when src is empty), capped so that
// appending to it reallocates instead of overwriting a neighbour.
func (a *valueArena) copyBytes(src []byte) []byte {
	n := len(src)
	if n == 0 {
		return nil
	}
	if n >= ownAllocation {
		b := make([]byte, n)
		copy(b, src)
		return b
	}
	if n > len(a.bytes) {
		a.bytes = make([]byte, arenaBlock)
	}
	b := a.bytes[:n:n]
	copy(b, src)
	a.bytes = a.bytes[n:]
	return b
}

// copyString returns a string holding a copy of src.
func (a *valueArena) copyString(src []byte) string {
	b := a.copyBytes(src)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// word returns 8 bytes aligned for an int64 or a float64, from the
// pointer-free block.
func (a *valueArena) word() unsafe.Pointer {
	pad := int(-uintptr(unsafe.Pointer(unsafe.SliceData(a.bytes))) & 7)
	if pad+8 > len(a.bytes) {
		a.bytes = make([]byte, arenaBlock) // 8-aligned, as every allocation of 8 bytes or more
		pad = 0
	}
	p := unsafe.Pointer(&a.bytes[pad])
	a.bytes = a.bytes[pad+8:]
	return p
}

// stringHeader stores s in a header block and returns its address, so that an
// interface can point at it (see box).
func (a *valueArena) stringHeader(s string) unsafe.Pointer {
	if len(a.strs) == 0 {
		a.strs = make([]string, arenaHeaders)
	}
	p := &a.strs[0]
	*p = s
	a.strs = a.strs[1:]
	return unsafe.Pointer(p)
}

// sliceHeader stores b in a header block and returns its address.
func (a *valueArena) sliceHeader(b []byte) unsafe.Pointer {
	if len(a.slices) == 0 {
		a.slices = make([][]byte, arenaHeaders)
	}
	p := &a.slices[0]
	*p = b
	a.slices = a.slices[1:]
	return unsafe.Pointer(p)
}
