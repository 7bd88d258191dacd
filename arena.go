//go:build cgo

package sqlite3

import (
	"strings"
	"time"
	"unsafe"
)

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
//
// The arena moves forward by offsets, and the blocks are only stored when a
// new one starts: handing out a value writes no pointer into the arena, so it
// costs no write barrier while the garbage collector runs (a wide scan
// allocates fast enough for the collector to run much of the time).
type valueArena struct {
	block  []byte      // current pointer-free block: TEXT/BLOB bytes and numbers
	off    int         // bytes of block handed out
	strs   []string    // current block of string headers
	nstrs  int         // headers of strs handed out
	slices [][]byte    // current block of []byte headers
	nslice int         // headers of slices handed out
	times  []time.Time // current block of date/time values
	ntimes int         // times handed out
	size   int         // size of the last pointer-free block; header blocks stay small until it is full
}

// Block sizes are size classes of Go's allocator, so nothing is lost to
// rounding. A pointer-free block grows from arenaFirstBlock to arenaBlock, so
// that a connection that reads one number does not take 4 KiB for it. Header
// blocks hold pointers, and a pointerful object between 512 bytes and 32 KiB
// carries an 8-byte header of the allocator's, which no count of 16- or
// 24-byte headers fills exactly (127 strings in 2,048 bytes cost 16.13 bytes
// each, more than the 16 of mattn/go-sqlite3's interface boxes). So the first
// header blocks are at most 512 bytes (no header: 32 strings, 21 slices) and
// the later ones large objects (over 32 KiB: the type lives in the span, and
// whole pages are filled exactly: 2,048 strings in 32 KiB, 2,048 slices in
// 48 KiB). Blocks of time.Time (24 bytes, with a *time.Location) follow the
// slices' sizes. A header or time is referenced only while database/sql
// converts the value (or while a caller keeps the driver.Value itself, as in
// a Scan into *any).
const (
	arenaFirstBlock = 512
	arenaBlock      = 4 << 10
	firstStrings    = 32      // 512 bytes
	arenaStrings    = 2048    // 32 KiB, 4 pages
	firstSlices     = 21      // 504 bytes
	arenaSlices     = 2048    // 48 KiB, 6 pages
	firstTimes      = 21      // 504 bytes: a time.Time is 24 bytes, as a []byte header
	arenaTimes      = 2048    // 48 KiB
	ownAllocation   = 1 << 10 // values this large are allocated on their own
)

// uninitialized returns n bytes of fresh pointer-free memory that the
// allocator has not zeroed (strings.Builder's growth is the standard
// library's way to ask for it): every byte the arena hands out is written by
// its copy first, so zeroing a block would be a wasted pass over it. The
// memory is 8-aligned, as every allocation of 8 bytes or more.
func uninitialized(n int) []byte {
	var sb strings.Builder
	sb.Grow(n)
	sb.WriteByte(0)
	return unsafe.Slice(unsafe.StringData(sb.String()), n)
}

// refill starts a new pointer-free block with room for at least n bytes.
func (a *valueArena) refill(n int) {
	a.size = min(max(2*a.size, arenaFirstBlock), arenaBlock)
	a.block = uninitialized(max(a.size, n))
	a.off = 0
}

// copyBytes returns a copy of src (nil when src is empty), capped so that
// appending to it reallocates instead of overwriting a neighbour.
func (a *valueArena) copyBytes(src []byte) []byte {
	n := len(src)
	if n == 0 {
		return nil
	}
	if n >= ownAllocation {
		b := uninitialized(n)
		copy(b, src)
		return b[:n:n]
	}
	if n > len(a.block)-a.off {
		a.refill(n)
	}
	b := a.block[a.off : a.off+n : a.off+n]
	copy(b, src)
	a.off += n
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
func (a *valueArena) word() unsafe.Pointer { return a.aligned(8) }

// aligned returns n bytes aligned to 8 from the pointer-free block (blocks
// are 8-aligned, so aligning the offset is enough). n is at most arenaFirstBlock.
func (a *valueArena) aligned(n int) unsafe.Pointer {
	off := (a.off + 7) &^ 7
	if off+n > len(a.block) {
		a.refill(n)
		off = 0
	}
	a.off = off + n
	return unsafe.Pointer(&a.block[off])
}

// result returns an Exec's result, cut from the pointer-free block (it holds
// no pointers), so that an Exec costs no allocation of its own.
func (a *valueArena) result(id, changes int64) *SQLiteResult {
	r := (*SQLiteResult)(a.aligned(int(unsafe.Sizeof(SQLiteResult{}))))
	*r = SQLiteResult{id: id, changes: changes}
	return r
}

// stringHeader stores s in a header block and returns its address, so that an
// interface can point at it (see box).
func (a *valueArena) stringHeader(s string) unsafe.Pointer {
	return put(&a.strs, &a.nstrs, a.headers(firstStrings, arenaStrings), s)
}

// sliceHeader stores b in a header block and returns its address.
func (a *valueArena) sliceHeader(b []byte) unsafe.Pointer {
	return put(&a.slices, &a.nslice, a.headers(firstSlices, arenaSlices), b)
}

// timeValue stores t in a block of times and returns its address: a
// DATETIME column read through Next would otherwise allocate a box per row.
// The first block is small, the next ones whole: a connection reading only
// times never fills a pointer-free block, which headers goes by.
func (a *valueArena) timeValue(t time.Time) unsafe.Pointer {
	n := firstTimes
	if a.times != nil {
		n = arenaTimes
	}
	return put(&a.times, &a.ntimes, n, t)
}

// put stores v in the next element of *block (used of them handed out),
// starting a new block of n elements when it is full, and returns its address.
func put[T any](block *[]T, used *int, n int, v T) unsafe.Pointer {
	if *used == len(*block) {
		*block = make([]T, n)
		*used = 0
	}
	p := &(*block)[*used]
	*p = v
	*used++
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
