//go:build cgo

package sqlite3

import (
	"context"
	"database/sql/driver"
	"errors"
	"iter"
	"strconv"
	"sync"
)

// Sessions and changesets: SQLite's session extension
// (https://sqlite.org/sessionintro.html, C interface at
// https://sqlite.org/session/intro.html). A Session records the changes made
// to tables of one database of a connection; its Changeset (or the smaller
// Patchset) is a compact []byte that ApplyChangeset replays on another
// database with the same schema, deciding each conflict through a Go
// callback. Changesets can be read change by change (Changes), inverted
// (InvertChangeset, to undo them) and concatenated (ConcatChangesets).
//
// Changes are recorded only for tables with an explicit PRIMARY KEY, and not
// for rows with a NULL in their primary key. A changeset holds each changed
// row once, as the net effect of the session: a row inserted then deleted
// does not appear at all.

// Session records the changes made through its connection to tables of one
// database (https://sqlite.org/session/sqlite3session_create.html). Create
// it with SQLiteConn.CreateSession, choose tables with Attach, and read the
// changes recorded so far with Changeset or Patchset. Close it when done;
// closing the connection closes it too.
//
// A session belongs to its connection: use it only where the connection may
// be used (inside sql.Conn.Raw, or while you hold the sql.Conn and no query
// of it runs), and close it before the connection goes back to a pool, or it
// keeps recording the changes of whoever uses the connection next.
//
// SQLite records changes through the connection's pre-update hook: a
// connection with sessions must not have a hook of its own
// (RegisterPreUpdateHook). CreateSession fails while one is registered, and
// registering one, even nil, stops every session of the connection from
// recording; Changeset and the other methods then fail while a hook is set.
//
// Cost: while enabled, each row changed in an attached table costs C work in
// the pre-update hook (no call into Go), and the session keeps in memory the
// primary key and original values of each row it has seen change, until it is
// closed (MemoryUsed).
type Session struct {
	mu sync.Mutex
	c  *SQLiteConn
	h  sessionHandle // nil once closed
}

var (
	errSessionClosed = errors.New("sqlite3: session is closed")
	errHookDisplaced = errors.New("sqlite3: a pre-update hook registered on the connection (RegisterPreUpdateHook) has replaced the session's: changes made since were not recorded")
)

// CreateSession creates a session that records changes to database schema
// ("main", "temp" or an attached name; "" is "main") of the connection
// (sqlite3session_create,
// https://sqlite.org/session/sqlite3session_create.html). It records nothing
// until tables are attached (Attach). The schema need not be attached yet.
// It fails while the connection has a pre-update hook (see Session). Needs
// SQLite 3.44 or later (with the libsqlite3 build tag). Cost: one cgo call.
// Not in mattn/go-sqlite3.
func (c *SQLiteConn) CreateSession(schema string) (*Session, error) {
	defer c.core.unlock(c.core.lock())
	if c.closed.Load() {
		return nil, driver.ErrBadConn
	}
	if preUpdateHookSet(c) {
		return nil, driverError("cannot create a session while the connection has a pre-update hook (RegisterPreUpdateHook): SQLite's sessions record changes through that hook")
	}
	h, rc := cSessionCreate(c.h, schemaOrMain(schema))
	switch rc {
	case sqliteOK:
		return &Session{c: c, h: h}, nil
	case sqliteMisuse:
		v, _, _ := Version()
		return nil, driverError("sessions need SQLite 3.44 or later (sqlite3_set_clientdata); the linked library is " + v)
	}
	return nil, changesetError("sqlite3session_create", rc)
}

// preUpdateHookSet reports whether RegisterPreUpdateHook's hook is installed
// on c, in place of the sessions' (hooks.go).
func preUpdateHookSet(c *SQLiteConn) bool {
	return c.hooks != nil && c.hooks.ids[slotPreUpdate] != 0
}

// handle returns the session's handle, or why it cannot be used. The caller
// holds s.mu. Once the connection is closed, SQLite has deleted the session.
func (s *Session) handle() (sessionHandle, error) {
	if s.h == nil {
		return nil, errSessionClosed
	}
	if s.c.closed.Load() {
		s.h = nil
		return nil, driver.ErrBadConn
	}
	return s.h, nil
}

// recording is handle, failing also when a pre-update hook has replaced the
// session's.
func (s *Session) recording() (sessionHandle, error) {
	h, err := s.handle()
	if err == nil && preUpdateHookSet(s.c) {
		return nil, errHookDisplaced
	}
	return h, err
}

// Attach starts recording changes to table, or to every table of the
// session's database when table is "", tables created later included
// (sqlite3session_attach,
// https://sqlite.org/session/sqlite3session_attach.html). A table that does
// not exist, or has no PRIMARY KEY, is not an error: nothing is recorded for
// it. In a changeset, tables come in the order they were attached. Cost: one
// cgo call.
func (s *Session) Attach(table string) error {
	defer s.c.core.unlock(s.c.core.lock())
	s.mu.Lock()
	defer s.mu.Unlock()
	h, err := s.recording()
	if err != nil {
		return err
	}
	if rc := cSessionAttach(h, table); rc != sqliteOK {
		return changesetError("sqlite3session_attach", rc)
	}
	return nil
}

// SetEnabled turns recording on or off (sqlite3session_enable,
// https://sqlite.org/session/sqlite3session_enable.html); a new session is
// enabled. While disabled, changes are not recorded; a row already recorded
// still appears in the changeset with its current values. No-op once closed.
// Cost: one cgo call.
func (s *Session) SetEnabled(on bool) {
	defer s.c.core.unlock(s.c.core.lock())
	s.mu.Lock()
	defer s.mu.Unlock()
	if h, err := s.handle(); err == nil {
		cSessionEnable(h, boolInt(on))
	}
}

// Enabled reports whether the session records changes (false once closed).
// Cost: one cgo call.
func (s *Session) Enabled() bool {
	defer s.c.core.unlock(s.c.core.lock())
	s.mu.Lock()
	defer s.mu.Unlock()
	h, err := s.handle()
	return err == nil && cSessionEnable(h, -1)
}

// SetIndirect sets the indirect flag (sqlite3session_indirect,
// https://sqlite.org/session/sqlite3session_indirect.html): changes recorded
// while it is set are marked indirect (Change.Indirect), as are changes made
// by triggers and foreign key actions. A row changed both directly and
// indirectly is direct. No-op once closed. Cost: one cgo call.
func (s *Session) SetIndirect(on bool) {
	defer s.c.core.unlock(s.c.core.lock())
	s.mu.Lock()
	defer s.mu.Unlock()
	if h, err := s.handle(); err == nil {
		cSessionIndirect(h, boolInt(on))
	}
}

// Indirect reports whether the indirect flag is set (false once closed).
// Cost: one cgo call.
func (s *Session) Indirect() bool {
	defer s.c.core.unlock(s.c.core.lock())
	s.mu.Lock()
	defer s.mu.Unlock()
	h, err := s.handle()
	return err == nil && cSessionIndirect(h, -1)
}

// IsEmpty reports whether no change has been recorded
// (sqlite3session_isempty,
// https://sqlite.org/session/sqlite3session_isempty.html); true once closed.
// A session that is not empty may still produce an empty changeset, when
// rows were changed back to their original values. Cost: one cgo call.
func (s *Session) IsEmpty() bool {
	defer s.c.core.unlock(s.c.core.lock())
	s.mu.Lock()
	defer s.mu.Unlock()
	h, err := s.handle()
	return err != nil || cSessionIsEmpty(h)
}

// MemoryUsed returns the bytes of heap the session uses
// (sqlite3session_memory_used,
// https://sqlite.org/session/sqlite3session_memory_used.html); 0 once closed.
// Cost: one cgo call.
func (s *Session) MemoryUsed() int64 {
	defer s.c.core.unlock(s.c.core.lock())
	s.mu.Lock()
	defer s.mu.Unlock()
	h, err := s.handle()
	if err != nil {
		return 0
	}
	return cSessionMemoryUsed(h)
}

// Changeset returns the changes recorded so far as a changeset
// (sqlite3session_changeset,
// https://sqlite.org/session/sqlite3session_changeset.html): for each changed
// row of the attached tables, an INSERT with its new values, a DELETE with its
// old values, or an UPDATE with its primary key, the original values of the
// changed columns and their new values. A primary key change is a DELETE and
// an INSERT. The session keeps recording; an empty changeset has length 0.
//
// Cost: one cgo call that looks up the current value of every recorded row
// in the database, builds the changeset in SQLite's memory, and a copy of it
// into Go.
func (s *Session) Changeset() ([]byte, error) { return s.changeset(false) }

// Patchset is Changeset in the smaller patchset format
// (sqlite3session_patchset,
// https://sqlite.org/session/sqlite3session_patchset.html): a DELETE holds
// only the primary key, an UPDATE only the primary key and the new values.
// Applying one cannot detect ConflictData conflicts, and a patchset cannot be
// inverted. Cost: as Changeset.
func (s *Session) Patchset() ([]byte, error) { return s.changeset(true) }

func (s *Session) changeset(patchset bool) ([]byte, error) {
	defer s.c.core.unlock(s.c.core.lock())
	s.mu.Lock()
	defer s.mu.Unlock()
	h, err := s.recording()
	if err != nil {
		return nil, err
	}
	disarm(s.c.h)
	b, rc := cSessionChangeset(h, patchset)
	if rc != sqliteOK {
		if patchset {
			return nil, changesetError("sqlite3session_patchset", rc)
		}
		return nil, changesetError("sqlite3session_changeset", rc)
	}
	return b, nil
}

// Diff records, as if they had been made, the changes that would turn table
// in database fromSchema (an attached database; "" is "main") into the same
// table in the session's database (sqlite3session_diff,
// https://sqlite.org/session/sqlite3session_diff.html): applying the
// session's changeset to fromSchema then makes both tables equal. The table
// is attached to the session if it is not yet, and must have the same
// columns and PRIMARY KEY in both databases; a table without a PRIMARY KEY
// is ignored. Cost: one cgo call that compares the two tables row by row.
func (s *Session) Diff(fromSchema, table string) error {
	defer s.c.core.unlock(s.c.core.lock())
	s.mu.Lock()
	defer s.mu.Unlock()
	h, err := s.recording()
	if err != nil {
		return err
	}
	disarm(s.c.h)
	if rc, msg := cSessionDiff(h, schemaOrMain(fromSchema), table); rc != sqliteOK {
		if msg == "" {
			return changesetError("sqlite3session_diff", rc)
		}
		return Error{Code: ErrNo(rc & ErrNoMask), ExtendedCode: ErrNoExtended(rc), err: msg, offset: -1}
	}
	return nil
}

// Close deletes the session and what it recorded (sqlite3session_delete,
// https://sqlite.org/session/sqlite3session_delete.html). Closing the
// connection closes its sessions; closing again is harmless. Cost: one cgo
// call.
func (s *Session) Close() error {
	defer s.c.core.unlock(s.c.core.lock())
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.handle(); err != nil {
		return nil // closed already, or deleted when its connection closed
	}
	var hook uintptr
	if preUpdateHookSet(s.c) {
		hook = s.c.hooks.ids[slotPreUpdate]
	}
	cSessionDelete(s.h, hook)
	s.h = nil
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// ConflictType says why a change could not be applied as it stands
// (https://sqlite.org/session/c_changeset_conflict.html).
type ConflictType int

const (
	// ConflictData: the row of a DELETE or UPDATE is there, but a column
	// the change expects holds another value (SQLITE_CHANGESET_DATA).
	// Conflict.Conflicting holds the row.
	ConflictData ConflictType = 1
	// ConflictNotFound: the row of a DELETE or UPDATE is not there
	// (SQLITE_CHANGESET_NOTFOUND).
	ConflictNotFound ConflictType = 2
	// ConflictConflict: an INSERT's primary key is already there
	// (SQLITE_CHANGESET_CONFLICT). Conflict.Conflicting holds that row.
	ConflictConflict ConflictType = 3
	// ConflictConstraint: the change would break another constraint
	// (UNIQUE, CHECK, NOT NULL; SQLITE_CHANGESET_CONSTRAINT).
	ConflictConstraint ConflictType = 4
	// ConflictForeignKey: with foreign keys enforced, the applied changes
	// leave Conflict.ForeignKeyViolations violations; asked once, at the
	// end, about the whole changeset (SQLITE_CHANGESET_FOREIGN_KEY).
	ConflictForeignKey ConflictType = 5
)

func (t ConflictType) String() string {
	switch t {
	case ConflictData:
		return "Data"
	case ConflictNotFound:
		return "NotFound"
	case ConflictConflict:
		return "Conflict"
	case ConflictConstraint:
		return "Constraint"
	case ConflictForeignKey:
		return "ForeignKey"
	}
	return "ConflictType(" + strconv.Itoa(int(t)) + ")"
}

// ConflictAction is a conflict handler's decision
// (https://sqlite.org/session/c_changeset_abort.html).
type ConflictAction int

const (
	// ConflictOmit skips the change and goes on (SQLITE_CHANGESET_OMIT). For
	// ConflictForeignKey, it commits the changes despite the violations.
	ConflictOmit ConflictAction = 0
	// ConflictReplace applies the change anyway (SQLITE_CHANGESET_REPLACE):
	// for ConflictData, the row is updated or deleted; for ConflictConflict,
	// the existing row is replaced by the inserted one. Valid for those two
	// types only.
	ConflictReplace ConflictAction = 1
	// ConflictAbort stops, and ApplyChangeset rolls back everything it
	// applied and returns an error (SQLITE_CHANGESET_ABORT).
	ConflictAbort ConflictAction = 2
)

func (a ConflictAction) String() string {
	switch a {
	case ConflictOmit:
		return "Omit"
	case ConflictReplace:
		return "Replace"
	case ConflictAbort:
		return "Abort"
	}
	return "ConflictAction(" + strconv.Itoa(int(a)) + ")"
}

// Change is one row change of a changeset or patchset
// (https://sqlite.org/session/sqlite3changeset_op.html).
//
// Old and New have one element per column of the table: int64, float64,
// string (TEXT), []byte (BLOB, never nil) or nil (NULL), or Undefined for a
// value the change does not record: the columns an UPDATE leaves unchanged
// (in Old and New) and, in a patchset, the old values of every column but the
// primary key. Old is nil for an INSERT, New for a DELETE.
type Change struct {
	Table      string
	Op         int    // SQLITE_INSERT, SQLITE_UPDATE or SQLITE_DELETE
	Indirect   bool   // made by a trigger, a foreign key action, or while Session.SetIndirect was set
	PrimaryKey []bool // which columns make up the table's PRIMARY KEY
	Old, New   []any
}

// Undefined is the value, in Change.Old, Change.New and
// Conflict.Conflicting, of a column that the change does not record. It
// differs from nil, which is SQL NULL.
var Undefined = undefinedValue{}

type undefinedValue struct{}

func (undefinedValue) String() string { return "undefined" }

// Conflict is what a conflict handler of ApplyChangeset is told about one
// conflict (https://sqlite.org/session/sqlite3changeset_apply.html). Its
// slices are the handler's to keep.
type Conflict struct {
	Type ConflictType
	// Change is the change that conflicts; empty for ConflictForeignKey,
	// which is about the whole changeset.
	Change
	// Conflicting is the row in the database that conflicts, for
	// ConflictData and ConflictConflict (sqlite3changeset_conflict); nil
	// otherwise.
	Conflicting []any
	// ForeignKeyViolations is the number of foreign key violations left, for
	// ConflictForeignKey (sqlite3changeset_fk_conflicts).
	ForeignKeyViolations int
}

// opName names SQLITE_INSERT, SQLITE_UPDATE and SQLITE_DELETE.
func opName(op int) string {
	switch op {
	case SQLITE_INSERT:
		return "INSERT"
	case SQLITE_UPDATE:
		return "UPDATE"
	case SQLITE_DELETE:
		return "DELETE"
	}
	return "operation " + strconv.Itoa(op)
}

// describe says which conflict c is, for error messages.
func (c *Conflict) describe() string {
	if c.Type == ConflictForeignKey {
		return strconv.Itoa(c.ForeignKeyViolations) + " foreign key violation(s) left by the changeset"
	}
	return c.Type.String() + " conflict on " + opName(c.Op) + " of table " + c.Table
}

// ApplyChangeset applies a changeset or patchset to the main database of the
// connection (sqlite3changeset_apply_v2,
// https://sqlite.org/session/sqlite3changeset_apply.html), all or nothing:
// inside a savepoint, committed when every change has been applied or
// skipped, rolled back when ApplyChangeset returns an error. A table of the
// changeset that the database lacks, or that has fewer columns or another
// PRIMARY KEY, is skipped without error.
//
// filter, unless nil, is asked once about each table of the changeset before
// its first change: false skips all of that table's changes. conflict is asked
// about each change that cannot be applied as it stands (see ConflictType)
// and decides (see ConflictAction); a nil conflict aborts at the first
// conflict. Both run on the calling goroutine, inside the call, and may run
// SQL on the same connection through the *SQLiteConn (not through
// database/sql, which holds the connection during sql.Conn.Raw). A panic in
// either, and a ConflictReplace where it is not allowed, abort: everything is
// rolled back and the error reports it. An aborted apply returns an error
// matching ErrAbort (ErrConstraint when aborted over foreign key violations).
//
// SQLite resets PRAGMA defer_foreign_keys to off at the end. The changeset
// is copied once into C memory for the call. Cost: a few cgo calls, the SQL
// that looks up and writes each changed row, and one C-to-Go callback per
// table (with a filter) and per conflict. Not in mattn/go-sqlite3.
func (c *SQLiteConn) ApplyChangeset(changeset []byte, filter func(table string) bool, conflict func(*Conflict) ConflictAction) error {
	return c.core.acked(context.Background(), c.applyChangeset(changeset, filter, conflict)) // replicate.go: it commits outside a transaction
}

// applyChangeset is ApplyChangeset.
func (c *SQLiteConn) applyChangeset(changeset []byte, filter func(table string) bool, conflict func(*Conflict) ConflictAction) error {
	defer c.core.unlock(c.core.lock())
	if err := c.usable(); err != nil {
		return err
	}
	if len(changeset) > maxChangeset {
		return errChangesetTooBig
	}
	if restore := c.nest(); restore != nil { // called from a callback of a running statement
		defer restore()
	}
	a := &applyState{filter: filter, conflict: conflict}
	// SQLite's own savepoint would be released even after a filter panicked
	// half way through: the driver takes its own, as SQLite would.
	if err := c.execOne("SAVEPOINT fastsqlite_apply"); err != nil {
		return err
	}
	rc, readRC := cChangesetApply(c.h, changeset, a, filter != nil, applyNoSavepoint)
	var err error
	switch {
	case a.err != nil:
		err = a.err
	case readRC != sqliteOK:
		err = changesetError("cannot describe a conflicting change", readRC)
	case rc != sqliteOK:
		err = c.errorFor(rc, &watch{}, 0)
	}
	if err == nil {
		if err = c.execOne("RELEASE fastsqlite_apply"); err == nil {
			return nil
		}
	}
	_ = c.execOne("ROLLBACK TO fastsqlite_apply")
	_ = c.execOne("RELEASE fastsqlite_apply")
	return err
}

// applyState is the Go side of one ApplyChangeset, which the C callbacks
// reach through a cgo handle.
type applyState struct {
	filter    func(string) bool
	conflict  func(*Conflict) ConflictAction
	err       error  // why the apply aborts: every later callback aborts too
	lastTable string // the table of the previous conflict, to reuse its name
}

// callFilter runs the filter about table: 1 applies its changes, 0 skips
// them. After a panic, every table is skipped and the apply fails.
func (a *applyState) callFilter(table string) (r int) {
	if a.err != nil {
		return 0
	}
	returned := false
	defer func() {
		if !returned { // a panic: recover is only called then, it is not free
			if v := recover(); v != nil {
				a.err = &hookPanicError{hook: "changeset filter", value: v, err: abortError("")}
				r = 0
			}
		}
	}()
	keep := a.filter(table)
	returned = true
	return boolInt(keep)
}

// callConflict runs the conflict handler about cf and returns its action,
// after checking it; any reason to stop becomes a.err and ConflictAbort.
func (a *applyState) callConflict(cf *Conflict) (action ConflictAction) {
	if a.err != nil {
		return ConflictAbort
	}
	if a.conflict == nil {
		a.err = abortErrorFor(cf, "changeset apply aborted: "+cf.describe()+" (no conflict handler)")
		return ConflictAbort
	}
	returned := false
	defer func() {
		if !returned {
			if v := recover(); v != nil {
				a.err = &hookPanicError{hook: "changeset conflict handler", value: v, err: abortErrorFor(cf, "")}
				action = ConflictAbort
			}
		}
	}()
	action = a.conflict(cf)
	returned = true
	switch {
	case action == ConflictOmit:
	case action == ConflictReplace && (cf.Type == ConflictData || cf.Type == ConflictConflict):
	case action == ConflictAbort:
		a.err = abortErrorFor(cf, "changeset apply aborted by the conflict handler at a "+cf.describe())
	default:
		a.err = abortErrorFor(cf, "changeset conflict handler returned "+action.String()+" for a "+cf.describe()+
			" (Replace is only valid for Data and Conflict conflicts)")
		action = ConflictAbort
	}
	return action
}

// abortError is the ErrAbort Error with message msg (SQLite's when "").
func abortError(msg string) Error {
	return Error{Code: ErrAbort, ExtendedCode: ErrNoExtended(ErrAbort), err: msg, offset: -1}
}

// abortErrorFor is abortError, or the foreign key constraint error SQLite
// returns when the apply stops at a ConflictForeignKey.
func abortErrorFor(cf *Conflict, msg string) Error {
	if cf.Type == ConflictForeignKey {
		return Error{Code: ErrConstraint, ExtendedCode: ErrConstraintForeignKey, err: msg, offset: -1}
	}
	return abortError(msg)
}

var errChangesetTooBig = Error{Code: ErrTooBig, ExtendedCode: ErrNoExtended(ErrTooBig), err: "changeset larger than 2 GiB", offset: -1}

// changesetError is the Error for result code rc of a session or changeset
// call op, which leaves no message on the connection.
func changesetError(op string, rc int) error {
	return Error{Code: ErrNo(rc & ErrNoMask), ExtendedCode: ErrNoExtended(rc), err: op + ": " + cErrstr(rc), offset: -1}
}

// Changes iterates over the changes of a changeset or patchset
// (sqlite3changeset_start, https://sqlite.org/session/sqlite3changeset_start.html):
//
//	for ch, err := range sqlite3.Changes(cs) {
//		if err != nil {
//			return err // a malformed changeset; the iteration ends
//		}
//		fmt.Println(ch.Table, ch.Op, ch.Old, ch.New)
//	}
//
// Changes to one table come together, tables in the order the session saw
// them. Each *Change is new, with its own copies of the values. A malformed
// changeset yields one error (matching ErrCorrupt) and stops; nothing before
// it is undone. Cost: one copy of the changeset into C memory when the loop
// starts, then one cgo call per change, and a Go allocation for each TEXT or
// BLOB value.
func Changes(changeset []byte) iter.Seq2[*Change, error] {
	return func(yield func(*Change, error) bool) {
		if len(changeset) > maxChangeset {
			yield(nil, errChangesetTooBig)
			return
		}
		it, rc := cChangesStart(changeset)
		if rc != sqliteOK {
			yield(nil, changesetError("sqlite3changeset_start", rc))
			return
		}
		defer cChangesFinish(it)
		table := ""
		for {
			switch rc := cChangesNext(it); rc {
			case sqliteDone:
				return
			case sqliteRow:
				ch := new(Change)
				readChange(it, ch, table)
				table = ch.Table
				if !yield(ch, nil) {
					return
				}
			default:
				yield(nil, changesetError("sqlite3changeset_next", rc))
				return
			}
		}
	}
}

// changeValue converts one value of a change to Go (Change's types).
func changeValue(c *rowCol) any {
	switch c.typ {
	case typeInteger:
		return c.int64()
	case typeFloat:
		return c.float64()
	case typeText:
		return string(c.bytes())
	case typeBlob:
		return append([]byte{}, c.bytes()...)
	case typeNull:
		return nil
	}
	return Undefined
}

// changeValues converts the values of cols.
func changeValues(cols []rowCol) []any {
	vals := make([]any, len(cols))
	for i := range cols {
		vals[i] = changeValue(&cols[i])
	}
	return vals
}

// InvertChangeset returns the changeset that undoes changeset
// (sqlite3changeset_invert,
// https://sqlite.org/session/sqlite3changeset_invert.html): each INSERT
// becomes a DELETE, each DELETE an INSERT, and each UPDATE swaps its old and
// new values; the order of the changes stays. A patchset cannot be inverted.
// Cost: one cgo call that reads the changeset twice (checking it, then
// inverting it, straight from the Go slice), and a copy of the result into
// Go.
func InvertChangeset(changeset []byte) ([]byte, error) {
	if len(changeset) > maxChangeset {
		return nil, errChangesetTooBig
	}
	if len(changeset) > 0 && changeset[0] == 'P' {
		return nil, driverError("cannot invert a patchset: it lacks the old values")
	}
	b, rc := cChangesetInvert(changeset)
	if rc != sqliteOK {
		return nil, changesetError("sqlite3changeset_invert", rc)
	}
	return b, nil
}

// ConcatChangesets returns one changeset with the effect of applying the
// given changesets in order (sqlite3changegroup_add and _output,
// https://sqlite.org/session/sqlite3changegroup_new.html,
// https://sqlite.org/session/sqlite3changeset_concat.html): changes to the
// same row are merged into one, or cancel out. All must be changesets, or
// all patchsets (the result is then a patchset), and a table must have the
// same columns and PRIMARY KEY in each. Cost: a cgo call per changeset, each
// read straight from its Go slice, and a copy of the result into Go.
func ConcatChangesets(changesets ...[]byte) ([]byte, error) {
	for _, cs := range changesets {
		if len(cs) > maxChangeset {
			return nil, errChangesetTooBig
		}
	}
	b, rc := cChangesetConcat(changesets)
	if rc != sqliteOK {
		if rc == int(ErrError) {
			return nil, changesetError("sqlite3changegroup_add (changesets and patchsets cannot be mixed)", rc)
		}
		return nil, changesetError("sqlite3changegroup_add", rc)
	}
	return b, nil
}
