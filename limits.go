//go:build cgo

package sqlite3

import "database/sql/driver"

// Run-time limit categories for GetLimit and SetLimit
// (https://sqlite.org/c3ref/c_limit_attached.html).
const (
	SQLITE_LIMIT_LENGTH              = 0  // largest string or BLOB, or row, in bytes
	SQLITE_LIMIT_SQL_LENGTH          = 1  // longest SQL statement, in bytes
	SQLITE_LIMIT_COLUMN              = 2  // columns of a table, index, view, result or clause
	SQLITE_LIMIT_EXPR_DEPTH          = 3  // depth of an expression's parse tree
	SQLITE_LIMIT_COMPOUND_SELECT     = 4  // terms of a compound SELECT
	SQLITE_LIMIT_VDBE_OP             = 5  // instructions of a statement's program
	SQLITE_LIMIT_FUNCTION_ARG        = 6  // arguments of a function
	SQLITE_LIMIT_ATTACHED            = 7  // attached databases
	SQLITE_LIMIT_LIKE_PATTERN_LENGTH = 8  // length of a LIKE or GLOB pattern
	SQLITE_LIMIT_VARIABLE_NUMBER     = 9  // largest parameter index
	SQLITE_LIMIT_TRIGGER_DEPTH       = 10 // depth of recursive triggers
	SQLITE_LIMIT_WORKER_THREADS      = 11 // worker threads of one statement
)

// File control opcodes for SetFileControlInt and SetFileControlInt64
// (https://sqlite.org/c3ref/c_fcntl_begin_atomic_write.html). Each documents
// the argument it takes.
const (
	SQLITE_FCNTL_LOCKSTATE             = int(1)
	SQLITE_FCNTL_GET_LOCKPROXYFILE     = int(2)
	SQLITE_FCNTL_SET_LOCKPROXYFILE     = int(3)
	SQLITE_FCNTL_LAST_ERRNO            = int(4)
	SQLITE_FCNTL_SIZE_HINT             = int(5)
	SQLITE_FCNTL_CHUNK_SIZE            = int(6)
	SQLITE_FCNTL_FILE_POINTER          = int(7)
	SQLITE_FCNTL_SYNC_OMITTED          = int(8)
	SQLITE_FCNTL_WIN32_AV_RETRY        = int(9)
	SQLITE_FCNTL_PERSIST_WAL           = int(10)
	SQLITE_FCNTL_OVERWRITE             = int(11)
	SQLITE_FCNTL_VFSNAME               = int(12)
	SQLITE_FCNTL_POWERSAFE_OVERWRITE   = int(13)
	SQLITE_FCNTL_PRAGMA                = int(14)
	SQLITE_FCNTL_BUSYHANDLER           = int(15)
	SQLITE_FCNTL_TEMPFILENAME          = int(16)
	SQLITE_FCNTL_MMAP_SIZE             = int(18)
	SQLITE_FCNTL_TRACE                 = int(19)
	SQLITE_FCNTL_HAS_MOVED             = int(20)
	SQLITE_FCNTL_SYNC                  = int(21)
	SQLITE_FCNTL_COMMIT_PHASETWO       = int(22)
	SQLITE_FCNTL_WIN32_SET_HANDLE      = int(23)
	SQLITE_FCNTL_WAL_BLOCK             = int(24)
	SQLITE_FCNTL_ZIPVFS                = int(25)
	SQLITE_FCNTL_RBU                   = int(26)
	SQLITE_FCNTL_VFS_POINTER           = int(27)
	SQLITE_FCNTL_JOURNAL_POINTER       = int(28)
	SQLITE_FCNTL_WIN32_GET_HANDLE      = int(29)
	SQLITE_FCNTL_PDB                   = int(30)
	SQLITE_FCNTL_BEGIN_ATOMIC_WRITE    = int(31)
	SQLITE_FCNTL_COMMIT_ATOMIC_WRITE   = int(32)
	SQLITE_FCNTL_ROLLBACK_ATOMIC_WRITE = int(33)
	SQLITE_FCNTL_LOCK_TIMEOUT          = int(34)
	SQLITE_FCNTL_DATA_VERSION          = int(35)
	SQLITE_FCNTL_SIZE_LIMIT            = int(36)
	SQLITE_FCNTL_CKPT_DONE             = int(37)
	SQLITE_FCNTL_RESERVE_BYTES         = int(38)
	SQLITE_FCNTL_CKPT_START            = int(39)
	SQLITE_FCNTL_EXTERNAL_READER       = int(40)
	SQLITE_FCNTL_CKSM_FILE             = int(41)
)

// GetLimit reads the limit id of this connection (sqlite3_limit,
// https://sqlite.org/c3ref/limit.html) without changing it. It gives -1 for
// an id SQLite does not know, and on a closed connection. One cgo call.
func (c *SQLiteConn) GetLimit(id int) int {
	defer c.core.unlock(c.core.lock())
	if c.closed.Load() {
		return -1
	}
	return cLimit(c.h, id, -1)
}

// SetLimit changes the limit id of this connection to newVal and gives back
// the value it had (sqlite3_limit, https://sqlite.org/c3ref/limit.html).
// SQLite silently caps newVal at the compile-time maximum; a negative newVal
// changes nothing. On a closed connection it gives -1. One cgo call.
//
// SQLite checks most limits when it compiles a statement; a change finalizes
// the statements the driver's cache holds, so every later Exec and Query
// compiles under the new value, as without a cache. Statements prepared with
// Prepare keep the limits they were compiled with.
func (c *SQLiteConn) SetLimit(id int, newVal int) int {
	defer c.core.unlock(c.core.lock())
	if c.closed.Load() {
		return -1
	}
	old := cLimit(c.h, id, newVal)
	if newVal >= 0 && newVal != old {
		// Limits apply when a statement is compiled: cached statements
		// compiled under the old value must not run (stmtCache).
		c.cache.retire()
	}
	return old
}

// SetFileControlInt calls the xFileControl method of database dbName ("" is
// "main") with opcode op and a pointer to arg as a C int
// (sqlite3_file_control, https://sqlite.org/c3ref/file_control.html). Use
// SetFileControlInt64 for opcodes documented to take a pointer to an
// sqlite3_int64. The value the VFS may write back through the pointer is not
// returned. A failure is an Error with SQLite's result code (ErrNotFound for
// an opcode the VFS does not know, ErrError for an unknown database). One cgo
// call.
func (c *SQLiteConn) SetFileControlInt(dbName string, op int, arg int) error {
	defer c.core.unlock(c.core.lock())
	if c.closed.Load() {
		return driver.ErrBadConn
	}
	return fileControlError(cFileControlInt(c.h, schemaOrMain(dbName), op, arg), op)
}

// SetFileControlInt64 is SetFileControlInt for opcodes whose argument is a
// pointer to an sqlite3_int64 (SQLITE_FCNTL_SIZE_HINT, SQLITE_FCNTL_MMAP_SIZE,
// SQLITE_FCNTL_SIZE_LIMIT, ...; https://sqlite.org/c3ref/file_control.html).
// One cgo call.
func (c *SQLiteConn) SetFileControlInt64(dbName string, op int, arg int64) error {
	defer c.core.unlock(c.core.lock())
	if c.closed.Load() {
		return driver.ErrBadConn
	}
	return fileControlError(cFileControlInt64(c.h, schemaOrMain(dbName), op, arg), op)
}

// fileControlError builds the error of a file control call: SQLite does not
// record its result in the connection, so the message is the code's.
func fileControlError(rc, op int) error {
	if rc == sqliteOK {
		return nil
	}
	e := Error{Code: ErrNo(rc & ErrNoMask), ExtendedCode: ErrNoExtended(rc), offset: -1}
	e.err = "file control " + itoa(op) + ": " + e.Error()
	return e
}

// GetFilename returns the absolute path of the file of database schemaName
// ("" is "main"), or "" for an in-memory or temporary database, an unknown
// name, or on a closed connection (sqlite3_db_filename,
// https://sqlite.org/c3ref/db_filename.html). One cgo call.
func (c *SQLiteConn) GetFilename(schemaName string) string {
	defer c.core.unlock(c.core.lock())
	if c.closed.Load() {
		return ""
	}
	return cDBFilename(c.h, schemaOrMain(schemaName))
}

func schemaOrMain(s string) string {
	if s == "" {
		return "main"
	}
	return s
}

// CheckpointMode selects what WALCheckpoint does
// (https://sqlite.org/c3ref/wal_checkpoint_v2.html).
type CheckpointMode int

const (
	// CheckpointPassive copies as many frames as it can without waiting for
	// readers or writers (what automatic checkpoints do).
	CheckpointPassive CheckpointMode = 0
	// CheckpointFull waits (through the busy handler) for writers, then
	// copies every frame, waiting for readers as needed.
	CheckpointFull CheckpointMode = 1
	// CheckpointRestart is CheckpointFull, then waits for readers to finish
	// with the log so that the next writer starts it from the beginning.
	CheckpointRestart CheckpointMode = 2
	// CheckpointTruncate is CheckpointRestart, then truncates the log file
	// to zero bytes.
	CheckpointTruncate CheckpointMode = 3
)

// WALCheckpoint checkpoints the write-ahead log of database schema ("" for
// every attached database) in the given mode (sqlite3_wal_checkpoint_v2,
// https://sqlite.org/c3ref/wal_checkpoint_v2.html). It returns the number of
// frames in the log and how many of them are now copied into the database,
// both -1 when the database is not in WAL mode. FULL, RESTART and TRUNCATE
// wait through the busy handler and fail with ErrBusy when it gives up (the
// counts are still filled). Cost: one cgo call, plus the checkpoint's I/O.
// Not in mattn/go-sqlite3.
func (c *SQLiteConn) WALCheckpoint(schema string, mode CheckpointMode) (logFrames, checkpointed int, err error) {
	defer c.core.unlock(c.core.lock())
	if c.closed.Load() {
		return -1, -1, driver.ErrBadConn
	}
	disarm(c.h)
	logFrames, checkpointed, rc := cWALCheckpoint(c.h, schema, int(mode))
	if rc != sqliteOK {
		return logFrames, checkpointed, errorFor(c.h, rc, 0)
	}
	return logFrames, checkpointed, nil
}
