package sqlite3

import (
	"errors"
	"strconv"
	"syscall"
)

// ErrNo is an SQLite primary result code (https://sqlite.org/rescode.html).
type ErrNo int

// ErrNoMask masks an extended result code down to its primary code.
const ErrNoMask = 0xff

// ErrNoExtended is an SQLite extended result code.
type ErrNoExtended int

// Error is the error the driver returns for anything SQLite reports. It is
// returned by value, as github.com/mattn/go-sqlite3 does, so both
// err.(sqlite3.Error) and errors.As(err, &e) work; errors.Is(err, ErrConstraint)
// and errors.Is(err, ErrConstraintUnique) compare the codes. Encoded as JSON it
// has the fields Code and ExtendedCode, which clients such as GORM read.
type Error struct {
	Code         ErrNo         // primary result code
	ExtendedCode ErrNoExtended // extended result code
	SystemErrno  syscall.Errno // the OS error behind an I/O failure, if any

	err    string      // SQLite's message (sqlite3_errmsg)
	offset int         // byte offset of a syntax error in the SQL, or -1
	holder *LockHolder // who held the lock, for ErrBusy (lockholder.go)
	hint   string      // what follows the holder in the message (upgradeBusyHint)
}

// Primary result codes, from https://sqlite.org/rescode.html.
var (
	ErrError      = ErrNo(1)  // generic error, e.g. an SQL syntax error
	ErrInternal   = ErrNo(2)  // a bug inside SQLite itself
	ErrPerm       = ErrNo(3)  // the requested access mode was refused
	ErrAbort      = ErrNo(4)  // a callback asked SQLite to stop
	ErrBusy       = ErrNo(5)  // another connection holds a conflicting lock on the file
	ErrLocked     = ErrNo(6)  // a conflict within this connection or its shared cache
	ErrNomem      = ErrNo(7)  // SQLite could not allocate memory
	ErrReadonly   = ErrNo(8)  // a write was refused: the database is read-only
	ErrInterrupt  = ErrNo(9)  // operation interrupted (e.g. its context was cancelled)
	ErrIoErr      = ErrNo(10) // the OS failed a read, write, sync or lock (see ExtendedCode)
	ErrCorrupt    = ErrNo(11) // the file's contents are damaged
	ErrNotFound   = ErrNo(12) // a file control opcode the VFS does not know
	ErrFull       = ErrNo(13) // no room left: the disk or the database's size limit
	ErrCantOpen   = ErrNo(14) // the file (or a journal or temporary file) could not be opened
	ErrProtocol   = ErrNo(15) // the file locking protocol broke down
	ErrEmpty      = ErrNo(16) // not returned by current SQLite
	ErrSchema     = ErrNo(17) // the schema changed since the statement was prepared
	ErrTooBig     = ErrNo(18) // a string, BLOB or row is larger than allowed
	ErrConstraint = ErrNo(19) // a NOT NULL, UNIQUE, CHECK or foreign key constraint failed
	ErrMismatch   = ErrNo(20) // a value of the wrong type, e.g. a non-integer rowid
	ErrMisuse     = ErrNo(21) // the C API was called in a wrong way
	ErrNoLFS      = ErrNo(22) // large files are needed but the OS lacks support
	ErrAuth       = ErrNo(23) // the authorizer denied the statement
	ErrFormat     = ErrNo(24) // not returned by current SQLite
	ErrRange      = ErrNo(25) // a parameter index outside the statement's parameters
	ErrNotADB     = ErrNo(26) // the file is not an SQLite database
	ErrNotice     = ErrNo(27) // informational message passed to sqlite3_log
	ErrWarning    = ErrNo(28) // warning passed to sqlite3_log
)

// Extended result codes, from https://sqlite.org/rescode.html#extrc.
var (
	ErrIoErrRead              = ErrIoErr.Extend(1)
	ErrIoErrShortRead         = ErrIoErr.Extend(2)
	ErrIoErrWrite             = ErrIoErr.Extend(3)
	ErrIoErrFsync             = ErrIoErr.Extend(4)
	ErrIoErrDirFsync          = ErrIoErr.Extend(5)
	ErrIoErrTruncate          = ErrIoErr.Extend(6)
	ErrIoErrFstat             = ErrIoErr.Extend(7)
	ErrIoErrUnlock            = ErrIoErr.Extend(8)
	ErrIoErrRDlock            = ErrIoErr.Extend(9)
	ErrIoErrDelete            = ErrIoErr.Extend(10)
	ErrIoErrBlocked           = ErrIoErr.Extend(11)
	ErrIoErrNoMem             = ErrIoErr.Extend(12)
	ErrIoErrAccess            = ErrIoErr.Extend(13)
	ErrIoErrCheckReservedLock = ErrIoErr.Extend(14)
	ErrIoErrLock              = ErrIoErr.Extend(15)
	ErrIoErrClose             = ErrIoErr.Extend(16)
	ErrIoErrDirClose          = ErrIoErr.Extend(17)
	ErrIoErrSHMOpen           = ErrIoErr.Extend(18)
	ErrIoErrSHMSize           = ErrIoErr.Extend(19)
	ErrIoErrSHMLock           = ErrIoErr.Extend(20)
	ErrIoErrSHMMap            = ErrIoErr.Extend(21)
	ErrIoErrSeek              = ErrIoErr.Extend(22)
	ErrIoErrDeleteNoent       = ErrIoErr.Extend(23)
	ErrIoErrMMap              = ErrIoErr.Extend(24)
	ErrIoErrGetTempPath       = ErrIoErr.Extend(25)
	ErrIoErrConvPath          = ErrIoErr.Extend(26)
	ErrLockedSharedCache      = ErrLocked.Extend(1)
	ErrBusyRecovery           = ErrBusy.Extend(1)
	ErrBusySnapshot           = ErrBusy.Extend(2)
	ErrCantOpenNoTempDir      = ErrCantOpen.Extend(1)
	ErrCantOpenIsDir          = ErrCantOpen.Extend(2)
	ErrCantOpenFullPath       = ErrCantOpen.Extend(3)
	ErrCantOpenConvPath       = ErrCantOpen.Extend(4)
	ErrCorruptVTab            = ErrCorrupt.Extend(1)
	ErrReadonlyRecovery       = ErrReadonly.Extend(1)
	ErrReadonlyCantLock       = ErrReadonly.Extend(2)
	ErrReadonlyRollback       = ErrReadonly.Extend(3)
	ErrReadonlyDbMoved        = ErrReadonly.Extend(4)
	ErrAbortRollback          = ErrAbort.Extend(2)
	ErrConstraintCheck        = ErrConstraint.Extend(1)
	ErrConstraintCommitHook   = ErrConstraint.Extend(2)
	ErrConstraintForeignKey   = ErrConstraint.Extend(3)
	ErrConstraintFunction     = ErrConstraint.Extend(4)
	ErrConstraintNotNull      = ErrConstraint.Extend(5)
	ErrConstraintPrimaryKey   = ErrConstraint.Extend(6)
	ErrConstraintTrigger      = ErrConstraint.Extend(7)
	ErrConstraintUnique       = ErrConstraint.Extend(8)
	ErrConstraintVTab         = ErrConstraint.Extend(9)
	ErrConstraintRowID        = ErrConstraint.Extend(10)
	ErrNoticeRecoverWAL       = ErrNotice.Extend(1)
	ErrNoticeRecoverRollback  = ErrNotice.Extend(2)
	ErrWarningAutoIndex       = ErrWarning.Extend(1)
)

// Error returns SQLite's English description of the code (sqlite3_errstr).
func (err ErrNo) Error() string { return Error{Code: err}.Error() }

// Extend returns the extended code err | by<<8.
func (err ErrNo) Extend(by int) ErrNoExtended { return ErrNoExtended(int(err) | by<<8) }

// Error returns SQLite's English description of the code (sqlite3_errstr).
func (err ErrNoExtended) Error() string {
	return Error{Code: ErrNo(int(err) & ErrNoMask), ExtendedCode: err}.Error()
}

// Error returns SQLite's message, followed by the OS error when there is one.
func (err Error) Error() string {
	str := err.err
	if str == "" {
		code := int(err.ExtendedCode)
		if code == 0 {
			code = int(err.Code)
		}
		str = cErrstr(code)
	}
	if err.holder != nil {
		str += " (" + err.holder.Error() + ")"
	}
	str += err.hint
	if err.SystemErrno == 0 {
		return str
	}
	return str + ": " + err.SystemErrno.Error()
}

// Unwrap returns the LockHolder of a "database is locked" error (ErrBusy),
// so that errors.As(err, &holder) finds it; nil otherwise.
func (err Error) Unwrap() error {
	if err.holder == nil {
		return nil
	}
	return err.holder
}

// Is reports whether target is err's primary (ErrNo) or extended
// (ErrNoExtended) code, so errors.Is(err, sqlite3.ErrConstraintUnique) works.
func (err Error) Is(target error) bool {
	switch t := target.(type) {
	case ErrNo:
		return err.Code == t
	case ErrNoExtended:
		return err.ExtendedCode == t
	}
	return false
}

// Offset returns the byte offset in the SQL text of the token that caused a
// syntax error (sqlite3_error_offset), or -1 when SQLite reported none. For a
// multi-statement query the offset counts from the start of the whole text.
func (err Error) Offset() int { return err.offset }

// interruptedError is returned when SQLite stopped a statement because the
// operation's context ended: errors.Is matches both the context's error
// (context.Canceled or context.DeadlineExceeded) and ErrInterrupt.
type interruptedError struct {
	// errs is what Unwrap returns, built once: database/sql alone asks for
	// it several times per failed query (errors.Is(err, driver.ErrBadConn)).
	errs [2]error
}

func newInterruptedError(ctxErr error) *interruptedError {
	return &interruptedError{errs: [2]error{ctxErr, Error{Code: ErrInterrupt, ExtendedCode: ErrNoExtended(ErrInterrupt), offset: -1}}}
}

func (e *interruptedError) Error() string {
	return "sqlite3: interrupted: " + e.errs[0].Error()
}

func (e *interruptedError) Unwrap() []error { return e.errs[:] }

// driverError is an error the driver itself detects (bad arguments, misuse);
// it names what was wrong.
func driverError(msg string) error { return errors.New("sqlite3: " + msg) }

func itoa(i int) string { return strconv.Itoa(i) }
