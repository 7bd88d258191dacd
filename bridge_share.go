//go:build cgo

package sqlite3

// The cgo boundary of the share layer (bridge_share*.c; bridge_share.c lists
// its parts): connections of this process that share a database file
// (share.go).

/*
#include "bridge.h"
*/
import "C"

import "time"

func duration(ns C.int64_t) time.Duration { return time.Duration(ns) }

// cSetWALBound sets the connection's WAL bound in bytes (0: none), and with
// it its file's (bridge_share_set_bound).
func cSetWALBound(h connHandle, n int64) { C.bridge_share_set_bound(h, C.sqlite3_int64(n)) }

// cShareRelink links the connection again to its main database's file,
// after sqlite3_deserialize may have replaced it.
func cShareRelink(h connHandle) { C.bridge_share_relink(h) }

// cTurnCounted counts a wait for the write turn that got it, in the file's
// stats.
func cTurnCounted(h connHandle, waited time.Duration) {
	C.bridge_share_turn_counted(h, C.int64_t(waited))
}

// cBusyWaited reports whether the busy handler ran during the last step.
func cBusyWaited(h connHandle) bool { return h.waited != 0 }

// cGroupCounted counts a group commit of n writes in the file's stats
// (bridge_share_group_counted).
func cGroupCounted(h connHandle, n int) { C.bridge_share_group_counted(h, C.int64_t(n)) }

// cUpgradeBusy reports whether the connection still holds only its read
// transaction on main after a refused write, and counts it if so
// (bridge_share_upgrade_busy).
func cUpgradeBusy(h connHandle) bool { return C.bridge_share_upgrade_busy(h) != 0 }

// cShareFileKey returns the address of the bridge_file of the connection's
// main database (0: none), which names the file among the process's
// connections while one of them has it open.
func cShareFileKey(h connHandle) uintptr { return uintptr(C.bridge_share_file_key(h)) }

// cTurnTimeout returns the busy timeout in ms of a connection that must take
// its file's write turn before writing (gate.go), or -1 when it must not.
func cTurnTimeout(h connHandle) int { return int(C.bridge_turn_timeout(h)) }

// cTxnNone reports whether the connection holds no transaction.
func cTxnNone(h connHandle) bool { return C.sqlite3_txn_state(h.db, nil) == C.SQLITE_TXN_NONE }

// cSetWaitLeft makes the connection's busy waits end within d from now.
func cSetWaitLeft(h connHandle, d time.Duration) {
	h.wait_until = C.sqlite3_int64(C.bridge_share_now() + C.int64_t(d))
}

// cCheckpointIsDue reports whether a commit of the connection left its
// auto-checkpoint due (bridge_checkpoint.c), and when to run it: 0 (not
// due), ckptAfterTurn or ckptInTurn. A read of C memory.
func cCheckpointIsDue(h connHandle) int { return int(h.ckpt_due) }

const (
	ckptAfterTurn = C.BRIDGE_CKPT_AFTER_TURN
	ckptInTurn    = C.BRIDGE_CKPT_IN_TURN
)

// cCheckpointDue runs that checkpoint, unless a transaction is open.
func cCheckpointDue(h connHandle) { C.bridge_checkpoint_due(h) }

// cCheckpointDrop forgets it (a store into C memory).
func cCheckpointDrop(h connHandle) { h.ckpt_due = 0 }

// cClearWait lifts cSetWaitLeft's limit (a store into C memory).
func cClearWait(h connHandle) { h.wait_until = 0 }

// cShareStats calls bridge_share_stats; false when the connection's main
// database is not a file of the driver's VFS.
func cShareStats(h connHandle, out *FileStats) bool {
	var st C.bridge_file_stats
	if C.bridge_share_stats(h, &st) == 0 {
		return false
	}
	*out = FileStats{
		Connections:          int(st.connections),
		WriteWaits:           int64(st.write_waits),
		WriteWaitTime:        duration(st.write_wait_ns),
		WriteWaitMax:         duration(st.write_wait_max_ns),
		WriteQueue:           int(st.queued),
		BusyTimeouts:         int64(st.busy_timeouts),
		WALBytes:             int64(st.wal_end),
		WALFileBytes:         int64(st.wal_size),
		Checkpoints:          int64(st.checkpoints),
		CheckpointsFailed:    int64(st.checkpoints_failed),
		CheckpointTime:       duration(st.checkpoint_ns),
		LastCheckpointFrames: int(st.last_checkpoint_log),
		LastCheckpointDone:   int(st.last_checkpoint_done),
		ReadersHeld:          int64(st.readers_held),
		ReadersHeldTime:      duration(st.readers_held_ns),
		ReadersHeldMax:       duration(st.readers_held_max_ns),
		UpgradeBusy:          int64(st.upgrade_busy),
		CheckpointsDeferred:  int64(st.checkpoints_deferred),
		WALBound:             int64(st.bound),
		GroupCommits:         int64(st.groups),
		GroupedWrites:        int64(st.grouped),
		BusyErrors:           int64(st.busy_errors),
		BusyNamed:            int64(st.busy_named),
	}
	return true
}

// FileStats returns what the connections of this process did on the
// connection's main database file (share.go); false when it is not a file
// opened through the driver's VFS (":memory:", another vfs=), or the
// connection is closed.
func (c *SQLiteConn) FileStats() (FileStats, bool) {
	defer c.core.unlock(c.core.lock())
	var st FileStats
	if c.closed.Load() || !cShareStats(c.h, &st) {
		return st, false
	}
	if g := c.core.gate; g != nil {
		st.WriteQueue += g.queued()
	}
	if r := c.core.repl; r != nil {
		r.stats(&st) // replicate.go
	}
	return st, true
}

// cSetConnID gives the connection its number (connCore.id), which lock
// holders name (bridge_share_set_id).
func cSetConnID(h connHandle, id uint64) { C.bridge_share_set_id(h, C.int64_t(id)) }

// cLockHolder calls bridge_share_holder after an SQLITE_BUSY: who held the
// lock, counted in the file's stats. Allocates the LockHolder and its SQL:
// only on the error's path.
func cLockHolder(h connHandle) *LockHolder {
	C.bridge_share_holder(h)
	hb := &h.held_by
	lh := &LockHolder{Held: time.Duration(hb.held_ns)}
	switch hb.kind {
	case C.BRIDGE_HOLDER_CONN:
		lh.InProcess, lh.Conn, lh.Reading = true, int64(hb.conn), hb.reading != 0
		lh.Site = siteOf(lh.Conn) // tracer.go
		if n := int(hb.sql_len); n > 0 {
			lh.TxSQL = C.GoStringN(&hb.sql[0], C.int(n))
			if hb.sql_cut != 0 {
				lh.TxSQL += "..."
			}
		}
	case C.BRIDGE_HOLDER_PROCESS:
		lh.PID = int(hb.pid)
	}
	if lh.Held > 0 {
		lh.Since = time.Now().Add(-lh.Held)
	}
	return lh
}
