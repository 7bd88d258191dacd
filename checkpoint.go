//go:build cgo

package sqlite3

// SQLite's auto-checkpoint of a commit, which the bridge leaves due instead
// of running it in the commit's step (bridge_checkpoint.c), runs here at
// the end of the operation, under the connection's exclusion, before the
// call returns: PASSIVE, its result ignored, as SQLite's default hook's.
//
// Most run once the write turn is given back, so the file's other writers
// go on meanwhile, one connection of the process at a time: a second would
// find SQLite's checkpoint lock taken and do nothing. Such a checkpoint
// copies what the WAL held when it began, and the WAL restarts only when a
// write begins with all of it copied, which the writers that went on can
// keep from happening; so once the WAL is past twice wal_autocheckpoint
// frames, the checkpoint runs before the turn is given back, after any
// other connection's has ended, and the next write restarts the WAL.
func (k *connCore) autoCheckpoint(inTurn bool) {
	if beforeAutoCheckpoint != nil {
		beforeAutoCheckpoint(inTurn)
	}
	if g := k.gate; g != nil {
		if inTurn {
			g.ckpt.Lock()
		} else if !g.ckpt.TryLock() {
			cCheckpointDrop(k.h)
			return
		}
		defer g.ckpt.Unlock()
	}
	cCheckpointDue(k.h)
}

// beforeAutoCheckpoint, when set (by a test), runs before an
// auto-checkpoint, under the connection's exclusion, with the turn held
// (inTurn) or given back.
var beforeAutoCheckpoint func(inTurn bool)
