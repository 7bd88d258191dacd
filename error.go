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

	err    string // SQLite's message (sqlite3_errmsg)
	offset int    // byte offset of a syntax error in the SQL, or -1
}

// Primary result codes, from https://sqlite.org/rescode.html.
var (
	ErrError      = ErrNo(1)  // generic error, e.g. an SQL syntax error
	ErrInternal   = ErrNo(2)  // internal logic error in SQLite
	ErrPerm       = ErrNo(3)  // access permission denied
	ErrAbort      = ErrNo(4)  // callback routine requested an abort
	ErrBusy       = ErrNo(5)  // the database file is locked
	ErrLocked     = ErrNo(6)  // a table in the database is locked
	ErrNomem      = ErrNo(7)  // a malloc() failed
	ErrReadonly   = ErrNo(8)  // attempt to write a readonly database
	ErrInterrupt  = ErrNo(9)  // operation interrupted (e.g. its context was cancelled)
	ErrIoErr      = ErrNo(10) // some kind of disk I/O error occurred
	ErrCorrupt    = ErrNo(11) // the database disk image is malformed
	ErrNotFound   = ErrNo(12) // unknown opcode in sqlite3_file_control()
	ErrFull       = ErrNo(13) // insertion failed because database is full
	ErrCantOpen   = ErrNo(14) // unable to open the database file
	ErrProtocol   = ErrNo(15) // database lock protocol error
	ErrEmpty      = ErrNo(16) // database is empty (unused)
	ErrSchema     = ErrNo(17) // the database schema changed
	ErrTooBig     = ErrNo(18) // string or BLOB exceeds size limit
	ErrConstraint = ErrNo(19) // abort due to constraint violation
	ErrMismatch   = ErrNo(20) // data type mismatch
	ErrMisuse     = ErrNo(21) // library used incorrectly
	ErrNoLFS      = ErrNo(22) // uses OS features not supported on host
	ErrAuth       = ErrNo(23) // authorization denied
	ErrFormat     = ErrNo(24) // auxiliary database format error (unused)
	ErrRange      = ErrNo(25) // 2nd parameter to sqlite3_bind out of range
	ErrNotADB     = ErrNo(26) // file opened that is not a database file
	ErrNotice     = ErrNo(27) // notifications from sqlite3_log()
	ErrWarning    = ErrNo(28) // warnings from sqlite3_log()
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
	if err.SystemErrno != 0 {
		str += ": " + err.SystemErrno.Error()
	}
	return str
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
