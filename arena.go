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
	size   int      // size of the last pointer-free block; header blocks stay small until it is full
}

// Block sizes are size classes of Go's allocator, so nothing is lost to
// rounding. A pointer-free block grows from arenaFirstBlock to arenaBlock, so
// that a connection that reads one number does not take 4 KiB for it. Header
// blocks hold pointers: past 512 bytes such an object carries an 8-byte
// header of the allocator's, hence 127 strings (2,032 + 8 bytes) and 85 slices
// (2,040 + 8) in 2,048-byte blocks, and small first blocks below 512 bytes.
const (
	arenaFirstBlock = 512
	arenaBlock      = 4 << 10
	firstStrings    = 32      // 512 bytes
	arenaStrings    = 127     // 2,048 bytes with the allocator's header
	firstSlices     = 21      // 504 bytes
	arenaSlices     = 85      // 2,048 bytes with the allocator's header
	ownAllocation   = 1 << 10 // values this large are allocated on their own
)

// refill starts a new pointer-free block with room for at least n bytes.
func (a *valueArena) refill(n int) {
	a.size = min(max(2*a.size, arenaFirstBlock), arenaBlock)
	a.bytes = make([]byte, max(a.size, n)) // 8-aligned, as every allocation of 8 bytes or more
}

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
		a.refill(n)
	}
	b := a.bytes[:n:n]
	copy(b, src)
	a.bytes = a.bytes[n:]
	return b
}

// copyBlob is copyBytes for a BLOB value: never nil, since an empty BLOB is
// not NULL.
func (a *valueArena) copyBlob(src []byte) []byte {
	if b := a.copyBytes(src); b != nil {
		return b
	}
	return []byte{}
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
		a.refill(8)
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
		a.strs = make([]string, a.headers(firstStrings, arenaStrings))
	}
	p := &a.strs[0]
	*p = s
	a.strs = a.strs[1:]
	return unsafe.Pointer(p)
}

// sliceHeader stores b in a header block and returns its address.
func (a *valueArena) sliceHeader(b []byte) unsafe.Pointer {
	if len(a.slices) == 0 {
		a.slices = make([][]byte, a.headers(firstSlices, arenaSlices))
	}
	p := &a.slices[0]
	*p = b
	a.slices = a.slices[1:]
	return unsafe.Pointer(p)
}

// headers is the length of a new header block: small until the connection
// has read a few KiB of values.
func (a *valueArena) headers(small, full int) int {
	if a.size < arenaBlock {
		return small
	}
	return full
}
