package sqlite3

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"
)

// Connections of one process that open the same database file know of each
// other (bridge_share.c), through a thin VFS named "fastsqlite" over the
// default one (a vfs= parameter of the DSN opens without it). A file is known
// by its identity (device and inode of the open descriptor; the full path on
// Windows), so two paths to one file are one file.
//
//   - The write lock. A connection waiting for the write lock that another
//     connection of the process holds (its busy handler being the driver's:
//     _busy_timeout or SetBusyTimeout) is woken when that connection lets
//     go, in arrival order, instead of sleeping SQLite's schedule; a
//     transaction that starts while others wait queues behind them. Only
//     work that takes the main database's write lock waits there: writes to
//     TEMP or attached files, VACUUM INTO, journal-mode changes and
//     checkpoints go on as SQLite lets them (gate.go). Locks of other
//     processes are polled as before, and the busy timeout and a context's
//     end stop a wait as before.
//   - The WAL bound. In WAL mode, once the WAL passes half of the file's
//     bound, the next writable connection to finish a statement outside a
//     transaction checkpoints it and truncates it to zero: it waits for the
//     write lock in line with the writers, then holds new read transactions
//     of the process for at most 100 ms while the ones still reading older
//     frames finish. Readers that never stop no longer grow the WAL without
//     end. A long read transaction (a report, Litestream's, in this process
//     or another) makes a truncation impossible until it ends, as SQLite
//     says; the bound sees it (the snapshot that held it back is still
//     open) and then only copies what it can, holding no reader, until that
//     transaction ends.
//     The bound is the file's: the smallest _wal_bound (default 16 MiB) of
//     the process's connections on the file, and none at all while any of
//     them was opened with _wal_bound=0. Read-only connections (mode=ro)
//     never run it.
//   - FileStats reports what they did.

// FileStats is what the connections of this process did on one database
// file. Counters count from the first time the process opened the file and
// never go back while the process lives, even when every connection to the
// file closes in between (a pool's idle connections expiring), unless the
// process has since opened more than 64 other files.
//
// Marshalled to JSON (expvar, a metrics endpoint), durations are seconds, in
// fields whose names end in "Seconds".
type FileStats struct {
	Connections int // open connections of the process with the file as main database

	// The write lock, taken in turn by the connections of the process.
	WriteWaits    int64         // waits for it (the turn or the lock) that ended with it
	WriteWaitTime time.Duration // their total
	WriteWaitMax  time.Duration // the longest
	WriteQueue    int           // connections waiting now
	BusyTimeouts  int64         // waits for a lock that ran out of busy timeout ("database is locked")
	UpgradeBusy   int64         // writes refused at once because their transaction read first (see README, _txlock)
	BusyErrors    int64         // "database is locked" errors (ErrBusy) returned, each with its LockHolder
	BusyNamed     int64         // of which named the holder: a connection of the process or another process's PID

	// The WAL (0 in rollback-journal mode) and its bound (_wal_bound).
	WALBound             int64         // the file's bound in bytes (0: none)
	WALBytes             int64         // in use: what a reader may still have to read (0 once the WAL is deleted)
	WALFileBytes         int64         // the file's size, as this process wrote it (0 once deleted)
	Checkpoints          int64         // truncations the bound tried
	CheckpointsFailed    int64         // of which readers, a writer or another process held back
	CheckpointsDeferred  int64         // times the bound only copied, because a snapshot that held it back before was still open
	CheckpointTime       time.Duration // their total, readers held included
	LastCheckpointFrames int           // the WAL's frames when the last one began (-1: unknown)
	LastCheckpointDone   int           // of which its first pass copied before holding readers
	ReadersHeld          int64         // read transactions the bound held while it ran
	ReadersHeldTime      time.Duration // their total wait
	ReadersHeldMax       time.Duration // the longest

	// Group commit (_group_commit=1, docs/group-commit.md).
	GroupCommits  int64 // commits that held two or more writes
	GroupedWrites int64 // the writes they held

	// Replication (_replicate_wait, docs/replication.md): the
	// acknowledgements that waited for Litestream's confirmation. Counted
	// per file and control socket, by the connections of the pool asking.
	Replications        int64         // Litestream's confirmations (one per request that succeeded)
	ReplicatedWrites    int64         // writes acknowledged once confirmed (ReplicatedWrites/Replications: writes per upload)
	ReplicationFailures int64         // writes told ErrNotReplicated: committed locally, not confirmed
	ReplicationWaitTime time.Duration // the writes' total wait for a confirmation
	ReplicationWaitMax  time.Duration // the longest
}

// MarshalJSON writes s with its durations in seconds (WriteWaitSeconds,
// WriteWaitMaxSeconds, CheckpointSeconds, ReadersHeldSeconds,
// ReadersHeldMaxSeconds, ReplicationWaitSeconds, ReplicationWaitMaxSeconds),
// the unit a dashboard plots without arithmetic.
func (s FileStats) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Connections               int
		WriteWaits                int64
		WriteWaitSeconds          float64
		WriteWaitMaxSeconds       float64
		WriteQueue                int
		BusyTimeouts              int64
		UpgradeBusy               int64
		BusyErrors                int64
		BusyNamed                 int64
		WALBound                  int64
		WALBytes                  int64
		WALFileBytes              int64
		Checkpoints               int64
		CheckpointsFailed         int64
		CheckpointsDeferred       int64
		CheckpointSeconds         float64
		LastCheckpointFrames      int
		LastCheckpointDone        int
		ReadersHeld               int64
		ReadersHeldSeconds        float64
		ReadersHeldMaxSeconds     float64
		GroupCommits              int64
		GroupedWrites             int64
		Replications              int64
		ReplicatedWrites          int64
		ReplicationFailures       int64
		ReplicationWaitSeconds    float64
		ReplicationWaitMaxSeconds float64
	}{
		s.Connections, s.WriteWaits, s.WriteWaitTime.Seconds(), s.WriteWaitMax.Seconds(), s.WriteQueue,
		s.BusyTimeouts, s.UpgradeBusy, s.BusyErrors, s.BusyNamed, s.WALBound, s.WALBytes, s.WALFileBytes, s.Checkpoints,
		s.CheckpointsFailed, s.CheckpointsDeferred, s.CheckpointTime.Seconds(), s.LastCheckpointFrames,
		s.LastCheckpointDone, s.ReadersHeld, s.ReadersHeldTime.Seconds(), s.ReadersHeldMax.Seconds(),
		s.GroupCommits, s.GroupedWrites, s.Replications, s.ReplicatedWrites, s.ReplicationFailures,
		s.ReplicationWaitTime.Seconds(), s.ReplicationWaitMax.Seconds(),
	})
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
