//go:build cgo

package sqlite3

import "database/sql/driver"

// Trace event codes (https://sqlite.org/c3ref/c_trace.html), for
// TraceConfig.EventMask and TraceInfo.EventCode.
const (
	TraceStmt    = uint32(0x01) // a statement starts running (or a trigger fires)
	TraceProfile = uint32(0x02) // a statement finished; RunTimeNanosec is its duration
	TraceRow     = uint32(0x04) // a statement produced a row
	TraceClose   = uint32(0x08) // the connection is closing
)

// TraceInfo describes one trace event.
type TraceInfo struct {
	EventCode  uint32 // TraceStmt, TraceProfile, TraceRow or TraceClose
	AutoCommit bool   // the connection is outside a transaction (sqlite3_get_autocommit)
	ConnHandle uintptr

	// StmtHandle identifies the statement (every event but TraceClose).
	StmtHandle uintptr

	// For TraceStmt: the statement's SQL as written, or an SQL comment
	// ("-- TRIGGER name") when a trigger starts; and, with
	// TraceConfig.WantExpandedSQL, the SQL with its parameters' values
	// (sqlite3_expanded_sql; strings cut to 15 bytes by
	// SQLITE_TRACE_SIZE_LIMIT).
	StmtOrTrigger string
	ExpandedSQL   string

	// For TraceProfile: how long the statement ran, in nanoseconds (SQLite's
	// estimate).
	RunTimeNanosec int64

	// For TraceProfile (and a failed expansion): the connection's error state
	// when the event fired.
	DBError Error
}

// TraceUserCallback receives trace events. It should return 0 (SQLite
// ignores the result for now). It must not use the connection.
type TraceUserCallback func(TraceInfo) int

// TraceConfig selects the events SetTrace reports and where.
type TraceConfig struct {
	Callback        TraceUserCallback
	EventMask       uint32 // an OR of TraceStmt, TraceProfile, TraceRow, TraceClose
	WantExpandedSQL bool   // fill TraceInfo.ExpandedSQL for TraceStmt events
}

// SetTrace sets the connection's tracer (sqlite3_trace_v2,
// https://sqlite.org/c3ref/trace_v2.html): config.Callback receives the
// events of config.EventMask. A previous tracer is replaced and released; a
// nil config (or an empty mask or nil callback) turns tracing off. config is
// copied.
//
// A panic in the callback does not unwind through SQLite: the running
// statement is interrupted, and its error (or, if it completed first, the
// next error on the connection) reports the panic.
//
// Cost: one C-to-Go callback per event; TraceRow costs one per row, and
// WantExpandedSQL a C allocation and a string per statement.
func (c *SQLiteConn) SetTrace(config *TraceConfig) error {
	defer c.core.unlock(c.core.lock())
	if c.closed.Load() {
		return driver.ErrBadConn
	}
	var id uintptr
	var mask uint32
	if config != nil && config.Callback != nil {
		mask = config.EventMask & (TraceStmt | TraceProfile | TraceRow | TraceClose)
	}
	if mask != 0 {
		cfg := *config
		if cfg.EventMask&TraceStmt == 0 {
			cfg.WantExpandedSQL = false
		}
		id = hookCallbacks.put(c, &cfg)
	}
	if rc := cTrace(c.h, mask, id); rc != sqliteOK {
		hookCallbacks.drop(id)
		return errorFor(c.h, rc, 0)
	}
	c.extras().setSlot(slotTrace, id)
	return nil
}
