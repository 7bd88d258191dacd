package sqlite3

import (
	"context"
	"database/sql"
	"time"
)

// Connections of one process that open the same database file know of each
// other (bridge_share.c), through a thin VFS named "fastsqlite" over the
// default one (a vfs= parameter of the DSN opens without it):
//
//   - A connection waiting for the write lock that another connection of the
//     process holds (its busy handler being the driver's: _busy_timeout or
//     SetBusyTimeout) is woken when that connection lets go, in arrival
//     order, instead of sleeping SQLite's schedule; a transaction that
//     starts while others wait queues behind them. Other lock waits wake at
//     any release in the process. Locks of other processes are polled as
//     before, and the busy timeout and a context's end stop a wait as before.
//   - In WAL mode, once the WAL passes half of _wal_bound (default 16 MiB),
//     the next connection to finish a statement outside a transaction
//     checkpoints it and truncates it to zero, holding new read transactions
//     of the process for at most 100 ms while the ones still reading older
//     frames finish. Readers that never stop no longer grow the WAL without
//     end; a read transaction longer than that still holds it, as it does in
//     SQLite.
//   - FileStats reports what they did.

// FileStats is what the connections of this process did on one database
// file since the first of them opened it (counters start again when the last
// one closes).
type FileStats struct {
	Connections int // connections of the process with the file as main database

	// The write lock, taken in turn by the connections of the process.
	WriteWaits    int64         // waits that ended with the lock
	WriteWaitTime time.Duration // their total
	WriteWaitMax  time.Duration // the longest
	WriteQueue    int           // connections waiting now
	BusyTimeouts  int64         // waits of the driver's busy handler that ran out ("database is locked")

	// The WAL (0 in rollback-journal mode) and its bound (_wal_bound).
	WALBytes             int64         // in use: what a reader may still have to read
	WALFileBytes         int64         // the file's size, as this process wrote it
	Checkpoints          int64         // run by the bound
	CheckpointsFailed    int64         // of which a reader (or another process) held back
	CheckpointTime       time.Duration // their total, readers held included
	LastCheckpointFrames int           // the WAL's frames when the last one began (-1: unknown)
	LastCheckpointDone   int           // of which its first pass copied before holding readers
	ReadersHeld          int64         // read transactions the bound held while it ran
	ReadersHeldTime      time.Duration // their total wait
	ReadersHeldMax       time.Duration // the longest
}

// Stats returns the FileStats of db's main database file, through one of
// db's connections. It is cheap (a lock and a copy, no SQL): fit for a
// metrics endpoint. The error is the pool's or the connection's; a database
// that is not a file (":memory:") or opened with another VFS has none to
// report: zero FileStats and a nil error.
func Stats(ctx context.Context, db *sql.DB) (FileStats, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return FileStats{}, err
	}
	defer conn.Close()
	var st FileStats
	err = conn.Raw(func(dc any) error {
		if c, ok := dc.(*SQLiteConn); ok {
			st, _ = c.FileStats()
		}
		return nil
	})
	return st, err
}
