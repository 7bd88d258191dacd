//go:build cgo

package sqlite3

// Collations implemented by Go functions (RegisterCollation).

import (
	"unsafe"
)

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
