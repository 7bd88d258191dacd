//go:build cgo

package sqlite3

import (
	"context"
	"database/sql/driver"
	"sync"
	"time"
)

// SQLiteBackup is an online backup from one connection's database into
// another's (https://sqlite.org/backup.html). Create it with
// SQLiteConn.Backup, copy pages with Step (or Run), and end it with Finish.
//
// Step uses both connections: do not use either of them from another
// goroutine while it runs. Between steps both stay usable; the source may
// keep changing. Closing either connection finishes the backup.
type SQLiteBackup struct {
	mu       sync.Mutex
	b        backupHandle // nil once finished
	dst, src *SQLiteConn
	done     bool  // the last Step reported SQLITE_DONE
	err      error // why the backup was finished before Finish
}

// Backup starts copying database src of srcConn ("main", "temp" or an
// attached name; "" is "main") into database dest of the receiver, replacing
// its content (sqlite3_backup_init, https://sqlite.org/c3ref/backup_finish.html).
// Nothing is copied until Step. The destination must not be in use by a
// read or write transaction. Cost: one cgo call.
func (destConn *SQLiteConn) Backup(dest string, srcConn *SQLiteConn, src string) (*SQLiteBackup, error) {
	if srcConn == nil {
		return nil, driver.ErrBadConn
	}
	defer lockBoth(destConn.core, srcConn.core)()
	if destConn.closed.Load() || srcConn.closed.Load() {
		return nil, driver.ErrBadConn
	}
	disarm(destConn.h)
	h := cBackupInit(destConn.h, schemaOrMain(dest), srcConn.h, schemaOrMain(src))
	if h == nil {
		return nil, errorFor(destConn.h, cErrcode(destConn.h), 0)
	}
	b := &SQLiteBackup{b: h, dst: destConn, src: srcConn}
	for _, c := range []*SQLiteConn{destConn, srcConn} {
		x := c.extras()
		x.mu.Lock()
		if x.backups == nil {
			x.backups = make(map[*SQLiteBackup]struct{})
		}
		x.backups[b] = struct{}{}
		x.mu.Unlock()
	}
	return b, nil
}

// Step copies up to p pages (p < 0: all that remain) and reports whether the
// whole database has been copied (sqlite3_backup_step,
// https://sqlite.org/c3ref/backup_finish.html). As in
// mattn/go-sqlite3, a source or destination that is busy or locked is not an
// error: Step returns false, nil and a later Step retries. If the source is
// written between steps by a connection other than srcConn, the next Step
// starts the copy over; writes through srcConn itself are copied along.
// Cost: one cgo call, plus the pages' I/O.
func (b *SQLiteBackup) Step(p int) (bool, error) {
	defer lockBoth(b.dst.core, b.src.core)()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.b == nil {
		if b.err != nil {
			return false, b.err
		}
		return b.done, driverError("backup is finished")
	}
	disarm(b.dst.h)
	disarm(b.src.h)
	switch rc := cBackupStep(b.b, p); rc & ErrNoMask {
	case sqliteOK:
		return false, nil
	case sqliteDone:
		b.done = true
		return true, nil
	case int(ErrBusy), int(ErrLocked):
		return false, nil
	default:
		return false, Error{Code: ErrNo(rc & ErrNoMask), ExtendedCode: ErrNoExtended(rc), offset: -1}
	}
}

// Remaining returns the number of pages still to copy as of the last Step
// (sqlite3_backup_remaining, https://sqlite.org/c3ref/backup_finish.html); 0
// before the first Step and once finished. One cgo call.
func (b *SQLiteBackup) Remaining() int {
	defer lockBoth(b.dst.core, b.src.core)()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.b == nil {
		return 0
	}
	return cBackupRemaining(b.b)
}

// PageCount returns the number of pages of the source as of the last Step
// (sqlite3_backup_pagecount, https://sqlite.org/c3ref/backup_finish.html); 0
// before the first Step and once finished. One cgo call.
func (b *SQLiteBackup) PageCount() int {
	defer lockBoth(b.dst.core, b.src.core)()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.b == nil {
		return 0
	}
	return cBackupPageCount(b.b)
}

// Finish ends the backup and releases it (sqlite3_backup_finish,
// https://sqlite.org/c3ref/backup_finish.html; one cgo call). It reports the
// error of a failed Step, if any, and an error if a connection was closed
// before the copy completed. A backup finished before it was done leaves the
// destination unchanged. Calling Finish again returns nil.
func (b *SQLiteBackup) Finish() error { return b.Close() }

// Close is Finish (mattn/go-sqlite3 has both).
func (b *SQLiteBackup) Close() error {
	defer lockBoth(b.dst.core, b.src.core)()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.b == nil {
		err := b.err
		b.err = nil
		return err
	}
	rc := b.finishLocked()
	if rc != sqliteOK {
		return errorFor(b.dst.h, rc, 0)
	}
	return nil
}

// finishLocked finishes the backup and forgets it on both connections.
func (b *SQLiteBackup) finishLocked() int {
	rc := cBackupFinish(b.b)
	b.b = nil
	for _, c := range []*SQLiteConn{b.dst, b.src} {
		if x := c.hooks; x != nil {
			x.mu.Lock()
			delete(x.backups, b)
			x.mu.Unlock()
		}
	}
	return rc
}

// finishForConn finishes the backup because one of its connections closes,
// before that connection is locked for its close (lockBoth's order).
func (b *SQLiteBackup) finishForConn() {
	defer lockBoth(b.dst.core, b.src.core)()
	b.finishForConnLocked()
}

// finishForConnLocked is finishForConn with both connections held.
func (b *SQLiteBackup) finishForConnLocked() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.b == nil {
		return
	}
	done := b.done
	b.finishLocked()
	if !done {
		b.err = driverError("backup ended before it completed: a connection was closed")
	}
}

// Run copies the whole database, pagesPerStep pages at a time (<= 0: all in
// one step), calling progress (if not nil) after each step with the pages
// remaining and the source's page count, and pausing between steps so that
// other connections get to use the source, as https://sqlite.org/backup.html
// recommends. A busy or locked database is retried after the pause. Run
// returns when the copy is complete, a step fails, or ctx is done (with the
// context's error; the backup can be resumed or finished). It does not
// Finish the backup. Cost: three cgo calls per step (Step, Remaining,
// PageCount) plus the pages' I/O, and the pauses. Not in mattn/go-sqlite3.
func (b *SQLiteBackup) Run(ctx context.Context, pagesPerStep int, pause time.Duration, progress func(remaining, pageCount int)) error {
	if pagesPerStep <= 0 {
		pagesPerStep = -1
	}
	var timer *time.Timer
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		done, err := b.Step(pagesPerStep)
		if err != nil {
			return err
		}
		if progress != nil {
			progress(b.Remaining(), b.PageCount())
		}
		if done {
			return nil
		}
		if pause <= 0 {
			continue
		}
		if timer == nil {
			timer = time.NewTimer(pause)
			defer timer.Stop()
		} else {
			timer.Reset(pause)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
		}
	}
}
