//go:build cgo

package sqlite3

import (
	"database/sql/driver"
	"time"
	"unsafe"
)

// Bulk writes lay many rows of parameter values out in C memory and run the
// statement once per row in one cgo call: at most bulkRows rows, and
// bulkBytes bytes of TEXT and BLOB values (or one row, if it has more), per
// call.
const (
	bulkRows  = 256
	bulkBytes = 256 << 10
)

// ExecColumns runs the statement once per row of the given columns, one
// column per parameter in order, for imports: row k binds cols[j][k] to
// parameter j+1. A column is a []int64, []int, []float64, []string, []bool,
// [][]byte (a nil element is NULL), []time.Time (written as the driver writes
// times), or []any (elements of the types Exec accepts; nil is NULL); all
// have the same length. Each row is bound anew, stepped to its end and
// reset, as by Exec.
//
// It returns the number of rows run. On an error it stops: the rows before
// the failing one (index n) have run, and their changes stay (inside a
// transaction, roll back to undo them); no row after it has run. Changes
// reports the rows changed by the rows run.
//
// Cost: one cgo call per 256 rows (fewer when the rows carry more than 256
// KiB of text), and no allocation, except for values of 64 KiB and more
// (a C buffer each, which SQLite adopts) and the boxing of []any elements
// Go does. Run it inside a transaction: in autocommit mode each row is a
// transaction of its own, and the disk syncs, not the calls, set the pace.
func (ds *DirectStmt) ExecColumns(cols ...any) (int, error) {
	n, err := ds.execColumnsNow(cols)
	return n, ds.c.core.acked(ds.ctx, err) // replicate.go
}

// execColumnsNow is ExecColumns.
func (ds *DirectStmt) execColumnsNow(cols []any) (int, error) {
	if err := ds.check(); err != nil {
		return 0, err
	}
	if len(cols) != len(ds.args) {
		return 0, driverError("ExecColumns got " + itoa(len(cols)) + " columns, the statement has " + itoa(len(ds.args)) + " parameters")
	}
	n := -1
	for j, col := range cols {
		m, ok := columnLen(col)
		if !ok {
			return 0, driverError("ExecColumns column " + itoa(j) + ": unsupported type " + typeName(col) + "; use []int64, []int, []float64, []string, []bool, [][]byte, []time.Time or []any")
		}
		if n >= 0 && m != n {
			return 0, driverError("ExecColumns columns differ in length: " + itoa(n) + " and " + itoa(m))
		}
		n = m
	}
	if n < 0 {
		// No parameters: nothing says how many rows.
		return 0, driverError("ExecColumns needs a statement with parameters")
	}
	if ds.state != directReady {
		ds.halt()
		ds.state = directReady
	}
	ds.dropPending()
	ds.flags = 0 // every row binds every parameter
	ds.dirty = true
	if n == 0 {
		return 0, nil
	}
	done := 0
	ds.changes = 0
	for done < n {
		m, err := ds.fillRows(cols, done, n)
		if err != nil {
			return done, err
		}
		ran, err := ds.execRows(m)
		done += ran
		if err != nil {
			return done, err
		}
	}
	return done, nil
}

// execRows runs the m rows that fillRows laid out, under the connection's
// lock (one lock per cgo call: statements collected meanwhile are finalized
// between them), and returns how many ran.
func (ds *DirectStmt) execRows(m int) (int, error) {
	k := ds.c.core
	held := k.lock()
	defer k.unlock(held)
	if err := ds.usable(); err != nil {
		freeOwned(directRows(ds.d)[:m*len(ds.args)])
		return 0, err
	}
	var w watch
	if ds.iw != nil {
		w = ds.iw.armRun(ds.c)
	}
	ds.state = directRunning
	rc, ran := cDirectExecRows(ds.d, m, w.gen)
	ds.state = directReady
	ds.changes += stmtChanges(ds.s.h)
	ds.lastID = stmtLastInsertID(ds.s.h)
	if rc != sqliteOK {
		return ran, ds.c.errorFor(rc, &w, 0)
	}
	return ran, nil
}

// columnLen returns the length of a column ExecColumns accepts.
func columnLen(col any) (int, bool) {
	switch c := col.(type) {
	case []int64:
		return len(c), true
	case []int:
		return len(c), true
	case []float64:
		return len(c), true
	case []string:
		return len(c), true
	case []bool:
		return len(c), true
	case [][]byte:
		return len(c), true
	case []time.Time:
		return len(c), true
	case []any:
		return len(c), true
	}
	return 0, false
}

// fillRows writes the values of rows from, from+1, ... into the bulk rows (C
// memory), as many as one call takes, and returns how many. On an error no
// C buffer is left to free.
func (ds *DirectStmt) fillRows(cols []any, from, n int) (int, error) {
	nargs := len(ds.args)
	want := min(n-from, bulkRows)
	if int(ds.d.rows_cap) < want || len(ds.arena) < 16<<10 || ds.bulkShort {
		// The arena starts at 16 KiB and doubles up to bulkBytes while rows
		// of text fill it before bulkRows rows.
		size := max(len(ds.arena), 16<<10)
		if ds.bulkShort {
			size = min(2*len(ds.arena), bulkBytes)
			ds.bulkShort = false
		}
		if rc := cDirectReserve(ds.d, int64(size), max(want, int(ds.d.rows_cap))); rc != sqliteOK {
			return 0, Error{Code: ErrNomem, ExtendedCode: ErrNoExtended(ErrNomem), offset: -1}
		}
		ds.arena = directArena(ds.d)
	}
	slots := directRows(ds.d)
	used := 0
	m := 0
	for ; m < want; m++ {
		row := slots[m*nargs : (m+1)*nargs : (m+1)*nargs]
		size, err := rowBytes(cols, from+m)
		if err != nil {
			freeOwned(slots[:m*nargs])
			return 0, err
		}
		if size > len(ds.arena)-used {
			if m > 0 {
				ds.bulkShort = len(ds.arena) < bulkBytes
				break // the next call takes it
			}
			if rc := cDirectReserve(ds.d, int64(max(size, min(2*len(ds.arena), bulkBytes))), 0); rc != sqliteOK {
				return 0, Error{Code: ErrNomem, ExtendedCode: ErrNoExtended(ErrNomem), offset: -1}
			}
			ds.arena = directArena(ds.d)
		}
		for j, col := range cols {
			if err := putColumn(&row[j], col, from+m, ds.arena, &used); err != nil {
				freeOwned(slots[:m*nargs+j])
				return 0, err
			}
		}
	}
	return m, nil
}

// rowBytes returns the arena bytes row k's values need (those under
// largeValue bytes), validating the []any ones.
func rowBytes(cols []any, k int) (int, error) {
	size := 0
	for _, col := range cols {
		var n int
		switch c := col.(type) {
		case []string:
			n = len(c[k])
		case [][]byte:
			n = len(c[k])
		case []time.Time:
			n = 64
		case []any:
			s, err := argSize(plainValue(c[k]))
			if err != nil {
				if e, ok := err.(Error); ok {
					e.err += " (row " + itoa(k) + ")"
					return 0, e
				}
				return 0, driverError("row " + itoa(k) + ": " + err.Error())
			}
			n = int(s)
		}
		if n > maxLength {
			return 0, errTooBig(n)
		}
		if n < largeValue {
			size += n
		}
	}
	return size, nil
}

// plainValue returns the value of a driver.Valuer (once), or v.
func plainValue(v any) any {
	if vr, ok := v.(driver.Valuer); ok {
		if val, err := vr.Value(); err == nil {
			return val
		}
		return v // argSize reports the type
	}
	return v
}

// putColumn writes column col's value of row k into slot.
func putColumn(slot *argSlot, col any, k int, arena []byte, used *int) error {
	slot.own, slot.n = 0, 0
	var b []byte
	switch c := col.(type) {
	case []int64:
		slot.setInteger(c[k])
		return nil
	case []int:
		slot.setInteger(int64(c[k]))
		return nil
	case []float64:
		slot.setFloat(c[k])
		return nil
	case []bool:
		if c[k] {
			slot.setInteger(1)
		} else {
			slot.setInteger(0)
		}
		return nil
	case []string:
		slot.typ = typeText
		b = unsafe.Slice(unsafe.StringData(c[k]), len(c[k]))
	case [][]byte:
		if c[k] == nil {
			slot.typ = typeNull
			return nil
		}
		slot.typ = typeBlob
		b = c[k]
	case []time.Time:
		var tmp [64]byte
		slot.typ = typeText
		b = c[k].AppendFormat(tmp[:0], SQLiteTimestampFormats[0])
	case []any:
		// rowBytes validated it.
		nv := [1]driver.NamedValue{{Ordinal: 1, Value: plainValue(c[k])}}
		_, err := putArgs(unsafe.Slice(slot, 1), nv[:], arena[*used:], false)
		if err == nil && (slot.typ == typeText || slot.typ == typeBlob) && slot.own == 0 {
			*used += int(slot.n)
		}
		return err
	}
	return putBytes(slot, b, arena, used)
}
