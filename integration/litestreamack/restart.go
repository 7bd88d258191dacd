package main

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/fastsqlite/sqlite3/integration/internal/sidecar"
)

// ---- the WAL restarted while Litestream is down ----
//
// Litestream goes on from its place in the WAL when it starts again. If the
// WAL was restarted while it was down, the frames it never saw are in the
// database file only, and Litestream v0.5.18 does not always notice: when
// SQLite's auto-checkpoint restarts the WAL, the frame at Litestream's old
// place is still there ("verify saltMatch=false lastPageMatch=true"), it
// takes the new WAL for the old one's continuation, and the replica misses
// the checkpointed commits for good, while later writes are confirmed. The
// driver's WAL bound (_wal_bound) also restarts the WAL while Litestream's
// reader is gone, by truncating it. walRestarts checks that this loses
// nothing, in the deterministic steps that lose a commit to the
// auto-checkpoint (which it runs too, as the control that shows the check
// sees a loss):
//
//  1. Litestream runs (its own checkpoints off) while the application
//     writes the WAL to a given size, just below where the WAL restarts;
//     an acknowledged write confirms it all;
//  2. Litestream is SIGKILLed; the application updates a row (told
//     ErrNotReplicated) and writes until the WAL restarts (bound: truncated
//     to 0, then written again, past Litestream's place in one case);
//  3. Litestream starts again; an acknowledged write is confirmed;
//  4. `litestream restore`: the update must be there.

// restartCase is one run of those steps.
type restartCase struct {
	name      string
	dsn       string // added to the app's DSN: how the WAL restarts
	killAt    int    // WAL frames when Litestream is killed
	regrowTo  int    // WAL frames written after the restart, before Litestream starts
	wantsLoss bool   // the control: Litestream v0.5.18 is known to lose the update
}

// walBoundTest is the bound the cases use: the WAL is truncated once it
// passes half of it, 2 MiB (509 frames of 4 KiB pages).
const walBoundTest = "&_pragma=wal_autocheckpoint(0)&_wal_bound=4194304"

var restartCases = []restartCase{
	{name: "the WAL bound truncates it, Litestream's place near the end", dsn: walBoundTest, killAt: 490},
	{name: "the WAL bound truncates it, the new WAL past Litestream's place", dsn: walBoundTest, killAt: 100, regrowTo: 250},
	{name: "control: SQLite's auto-checkpoint restarts it", dsn: "&_wal_bound=0", killAt: 990, wantsLoss: true},
}

func walRestarts(cfg config, dir string) (failures []string) {
	fmt.Println("\n== the WAL restarted while Litestream is down")
	for i, c := range restartCases {
		lost, detail, err := c.run(cfg, filepath.Join(dir, fmt.Sprintf("restart-%d", i+1)))
		switch {
		case err != nil:
			failures = append(failures, fmt.Sprintf("WAL restart, %s: %v", c.name, err))
			fmt.Printf("  %s: error: %v\n", c.name, err)
			continue
		case lost && !c.wantsLoss:
			failures = append(failures, fmt.Sprintf("WAL restart, %s: the restore lost a commit: %s", c.name, detail))
		case !lost && c.wantsLoss:
			failures = append(failures, fmt.Sprintf("WAL restart, %s: nothing lost, so these steps could not see a loss (a Litestream that fixed it?): %s", c.name, detail))
		}
		fmt.Printf("  %s: lost %v: %s\n", c.name, lost, detail)
	}
	return failures
}

func walFrames(db string) int {
	st, err := os.Stat(db + "-wal")
	if err != nil || st.Size() < 32 {
		return 0
	}
	return int((st.Size() - 32) / (24 + 4096))
}

// run runs the steps in dir; lost says whether the restore lacks the
// update (or a row, or integrity_check fails).
func (c restartCase) run(cfg config, dir string) (lost bool, detail string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, "", err
	}
	db, replica, socket := filepath.Join(dir, "app.db"), filepath.Join(dir, "replica"), filepath.Join(dir, "ls.sock")
	cfgPath := filepath.Join(dir, "litestream.yml")
	// Litestream's own checkpoints off: only the application restarts the WAL.
	if err := writeConfig(cfgPath, socket, db, replica, "    min-checkpoint-page-count: 1000000\n    truncate-page-n: 10000000\n    checkpoint-interval: 1h\n"); err != nil {
		return false, "", err
	}
	dsn := "file:" + db + "?" + serverDSN + c.dsn
	app, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return false, "", err
	}
	defer app.Close()
	if _, err := app.Exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, pad BLOB); CREATE TABLE other (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO other VALUES (1, 'old')`); err != nil {
		return false, "", err
	}
	acked, err := sql.Open("sqlite3", dsn+"&_replicate_wait="+socket)
	if err != nil {
		return false, "", err
	}
	defer acked.Close()
	start := func(n int) (*sidecar.Litestream, error) {
		return startReady(cfg.litestream, cfgPath, filepath.Join(dir, fmt.Sprintf("litestream-%d.log", n)), socket, db)
	}

	// 1. Up to killAt frames, confirmed.
	ls, err := start(1)
	if err != nil {
		return false, "", err
	}
	for walFrames(db) < c.killAt {
		if _, err := app.Exec(`INSERT INTO t (pad) VALUES (NULL)`); err != nil {
			ls.Kill()
			return false, "", err
		}
	}
	if _, err := acked.Exec(`INSERT INTO t (pad) VALUES (NULL)`); err != nil {
		ls.Kill()
		return false, "", fmt.Errorf("a write with Litestream up: %w", err)
	}
	atKill := walFrames(db)

	// 2. Litestream killed; the update, and the WAL restarted.
	ls.Kill()
	if _, err := acked.Exec(`UPDATE other SET v = 'new' WHERE id = 1`); !errors.Is(err, sqlite3.ErrNotReplicated) {
		return false, "", fmt.Errorf("the update with Litestream down: %v, want ErrNotReplicated", err)
	}
	restarted := false
	for i := 0; !restarted; i++ {
		before := walFrames(db)
		if _, err := app.Exec(`INSERT INTO t (pad) VALUES (randomblob(3000))`); err != nil {
			return false, "", err
		}
		restarted = walFrames(db) < before
		if c.wantsLoss {
			// SQLite restarts the WAL in place: its size says nothing.
			restarted = i >= 30
		}
		if i > 5000 {
			return false, "", fmt.Errorf("the WAL did not restart in 5,000 writes (%d frames)", walFrames(db))
		}
	}
	for walFrames(db) < c.regrowTo {
		if _, err := app.Exec(`INSERT INTO t (pad) VALUES (randomblob(3000))`); err != nil {
			return false, "", err
		}
	}
	atStart := walFrames(db)

	// 3. Litestream again; a confirmed write.
	ls, err = start(2)
	if err != nil {
		return false, "", err
	}
	_, werr := acked.Exec(`INSERT INTO t (pad) VALUES (NULL)`)
	if err := ls.Stop(10 * time.Second); err != nil {
		return false, "", fmt.Errorf("stopping Litestream: %w", err)
	}
	if werr != nil {
		return false, "", fmt.Errorf("a write after Litestream's restart: %w", werr)
	}

	// 4. The restore.
	restored := filepath.Join(dir, "restored.db")
	if out, err := exec.Command(cfg.litestream, "restore", "-o", restored, "file://"+replica).CombinedOutput(); err != nil {
		return false, "", fmt.Errorf("litestream restore: %v\n%s", err, out)
	}
	rs, err := sidecar.ReadRestored(restored, "t")
	if err != nil {
		return false, "", err
	}
	r, err := sql.Open("sqlite3", "file:"+restored)
	if err != nil {
		return false, "", err
	}
	defer r.Close()
	var v string
	if err := r.QueryRow(`SELECT v FROM other WHERE id = 1`).Scan(&v); err != nil {
		return false, "", err
	}
	var rows int
	if err := app.QueryRow(`SELECT count(*) FROM t`).Scan(&rows); err != nil {
		return false, "", err
	}
	saw := "?"
	if lg, err := sidecar.ReadLog(filepath.Join(dir, "litestream-2.log")); err == nil {
		saw = fmt.Sprintf("snapshots %s; kept its place: %s", sidecar.MapString(lg.Reasons, "none"), sidecar.MapString(lg.Events, "-"))
	}
	detail = fmt.Sprintf("WAL at %d frames when killed, %d at the restart; Litestream restarted: %s; the restore: the update's row %q, %d of %d rows, integrity_check %s",
		atKill, atStart, saw, v, len(rs.IDs), rows, rs.Integrity)
	return v != "new" || len(rs.IDs) != rows || rs.Integrity != "ok", detail, nil
}
