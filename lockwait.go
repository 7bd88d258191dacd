//go:build cgo

package sqlite3

import (
	"runtime"
	"sync/atomic"
	"time"
)

// A lock wait that a collection may end.
//
// Rows dropped without Close keep their statement's read lock (in a
// rollback-journal database, a SHARED lock that blocks every commit) until a
// cleanup resets the statement (lifetime.go), and cleanups run only after a
// collection. A connection of this process waiting for that lock sleeps in
// the busy handler, and if nothing else allocates, no collection starts: the
// wait runs out its timeout and fails with "database is locked", although the
// lock's holder is garbage. So the bridge's busy handler (_busy_timeout,
// SetBusyTimeout) asks for a collection once a wait has gone on for 100 ms,
// and again every 500 ms of waiting (bridge_share_queue.c,
// bridge_busy_collect_due); the cleanups then release such locks while the wait
// goes on, unchanged. A wait for a lock that a live connection or another
// process holds pays one collection, started on a goroutine of its own so that
// the wait's timing stays SQLite's schedule. Waits that end within 100 ms cost
// nothing.
//
// No collection finds Rows that database/sql itself still refers to: a
// *sql.Rows whose query context can be cancelled and is not done
// (Rows.awaitDone's goroutine holds it until the context ends, and then
// closes it), or one of a *sql.Stmt still open (DB.dep, and the statement's
// own SQLiteStmt.rows). A *sql.Rows queried with a context that is never done
// (context.Background, GORM's default) is referred to by nothing once dropped.

// busyCollectGap is the least time between two collections started by busy
// waits, process-wide, so that many long waits (a writer-heavy program, or
// another process holding the lock) do not make the collector run all the
// time. A wait that asks too soon asks again later.
const busyCollectGap = 500 * time.Millisecond

// busyCollectAfter is how long a wait goes on before it asks for a collection
// (BRIDGE_BUSY_COLLECT_MS in bridge_share_queue.c; gate.go's waits too).
const busyCollectAfter = 100 * time.Millisecond

var busyCollect struct {
	running atomic.Bool
	last    atomic.Int64 // when the last one started, in monoNow's time
}

// monoEpoch makes monoNow a monotonic clock.
var monoEpoch = time.Now()

func monoNow() int64 { return int64(time.Since(monoEpoch)) }

// collectForBusyWait starts a collection, unless one is running or started
// less than busyCollectGap ago. Called from C by the busy handler, on the
// waiting connection's thread: it returns at once.
func collectForBusyWait() {
	now := monoNow()
	if last := busyCollect.last.Load(); last != 0 && now-last < int64(busyCollectGap) {
		return
	}
	if !busyCollect.running.CompareAndSwap(false, true) {
		return
	}
	busyCollect.last.Store(now)
	go func() {
		defer busyCollect.running.Store(false)
		runtime.GC()
	}()
}
