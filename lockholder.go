package sqlite3

import (
	"strconv"
	"strings"
	"time"
)

// LockHolder says who held the lock that a "database is locked" error
// (ErrBusy) waited for, as far as the driver could see when it gave up. Every
// ErrBusy the driver returns from a statement carries one, and its message
// ends with it:
//
//	database is locked (held 2.3s by connection 7 of this process, in a transaction begun with "UPDATE accounts SET ...")
//	database is locked (held 2.3s by connection 7 of this process, in a transaction begun with "UPDATE accounts SET ..." at app/orders.go:88)
//	database is locked (held by process 4242)
//
// Reach it with errors.As:
//
//	var h *sqlite3.LockHolder
//	if errors.As(err, &h) && h.InProcess {
//		log.Printf("locked by connection %d since %v: %s", h.Conn, h.Since, h.TxSQL)
//	}
//
// Connections of this process on the file, opened through the driver's VFS
// (share.go), are seen as they take the write lock: the driver keeps the
// owner's number, when it took the lock and the statement that took it (for
// BEGIN, the statement after it), at the cost of a copy of 200 bytes per
// write transaction. Another process is named by its PID where POSIX locks
// tell it (F_GETLK on SQLite's lock bytes of the database file, or on the WAL
// index's write lock; with the bundled SQLite on Unix). Neither is seen for a
// connection opened with another vfs=, or when the driver is built against
// the system's SQLite (libsqlite3 tag) for other processes: InProcess is then
// false and PID 0.
type LockHolder struct {
	// InProcess: a connection of this process, Conn.
	InProcess bool
	// Conn is the connection's number: SQLiteConn.ID, and TraceEvent.Conn.
	Conn int64
	// Reading: it holds a read lock that a commit in rollback-journal mode
	// waits for (a read transaction, or a Rows left open), not the write
	// lock. Since, Held and TxSQL are then unknown.
	Reading bool
	// TxSQL is the statement of its transaction that took the write lock
	// (after a BEGIN, the one that followed it), cut to its first 200 bytes
	// ("..." marks the cut).
	TxSQL string
	// Since is when it took the write lock, and Held how long it had held it
	// when the error was made; zero when unknown.
	Since time.Time
	Held  time.Duration
	// PID is the process that held the lock, when another process did and
	// the platform tells it; else 0.
	PID int
	// Site is where the holder's caller began its transaction (BeginTx), or
	// its latest Exec outside one: "dir/file.go:line" of the first frame
	// outside database/sql and the driver. Known only when the holder's pool
	// has a tracer (WithTracer), which pays for it (a stack walk per BeginTx
	// and per Exec outside a transaction); else "".
	Site string
}

// Named reports whether h names a holder: a connection of this process or
// another process's PID.
func (h *LockHolder) Named() bool { return h.InProcess || h.PID != 0 }

// Error describes the holder, as the error's message ends with it.
func (h *LockHolder) Error() string {
	var b strings.Builder
	b.WriteString("held ")
	if h.Held > 0 {
		b.WriteString(h.Held.Round(time.Millisecond).String())
		b.WriteString(" ")
	}
	switch {
	case h.InProcess:
		b.WriteString("by connection ")
		b.WriteString(strconv.FormatInt(h.Conn, 10))
		b.WriteString(" of this process")
		if h.Reading {
			b.WriteString(", reading (a read transaction or a Rows not closed yet)")
		} else if h.TxSQL != "" {
			b.WriteString(", in a transaction begun with ")
			b.WriteString(strconv.Quote(h.TxSQL))
		}
		if h.Site != "" {
			b.WriteString(" at ")
			b.WriteString(h.Site)
		}
	case h.PID != 0:
		b.WriteString("by process ")
		b.WriteString(strconv.Itoa(h.PID))
	default:
		b.WriteString("by another process, or by a connection of this process opened with another vfs= (not seen)")
	}
	return b.String()
}
