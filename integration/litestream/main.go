// Command litestream runs Litestream (v0.5.x) as a sidecar process on a WAL
// database that this driver writes and reads, then restores the replica and
// checks it. It is the Litestream step of .ci/run:
//
//	go install github.com/benbjohnson/litestream/cmd/litestream@v0.5.18
//	cd integration && go run ./litestream -duration 30s
//
// It creates a temporary directory with a database opened with the README's
// server DSN, writes a litestream.yml with a file replica beside it, starts
// `litestream replicate`, and runs writer goroutines (each inserting rows with
// ids of its own, keeping every id whose commit returned nil) and reader
// goroutines (short read transactions, each timed) for -duration. Then it
// stops the load, waits (bounded) for the replica to catch up, stops
// Litestream with SIGTERM, runs `litestream restore` and checks that every
// acknowledged row is in the restored database and that integrity_check is
// ok. It fails (exit status 1) when a row is missing, integrity_check is not
// ok, Litestream logged a snapshot other than its first (it snapshots when it
// loses its place in the WAL, as when the WAL is truncated or restarted
// under it), or readers were held: FileStats.ReadersHeld > 0 (the WAL
// bound's count), or a read over -maxread (100 ms) that a stall of the whole
// process (a loaded machine, a GC pause, seen by a goroutine that sleeps 1 ms
// at a time) does not explain (slowReads). Both are reported.
//
// Litestream is a program next to this one, not a dependency: this module
// needs nothing but the driver, and the driver's users download nothing of
// Litestream's.
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	// go.mod replaces mattn's path with the driver in the repository root:
	// this is fastsqlite/sqlite3, imported as a user who switched imports it.
	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/fastsqlite/sqlite3/integration/internal/sidecar"
)

// The DSN the README recommends for servers ("Recommended settings for
// servers"); -dsn appends to it.
const serverDSN = "_journal_mode=WAL&_txlock=immediate&_busy_timeout=5000&_fk=1"

type config struct {
	duration   time.Duration
	writers    int
	readers    int
	rate       int
	readPause  time.Duration
	extraDSN   string
	litestream string
	maxRead    time.Duration
	keep       bool
	ckptMode   string
	ckptEvery  time.Duration
}

func main() {
	var cfg config
	flag.DurationVar(&cfg.duration, "duration", 30*time.Second, "how long writers and readers run (env LITESTREAM_DURATION overrides)")
	flag.IntVar(&cfg.writers, "writers", 4, "writer goroutines")
	flag.IntVar(&cfg.readers, "readers", 4, "reader goroutines")
	flag.IntVar(&cfg.rate, "rate", 2000, "rows per second, all writers together (0: as fast as they can)")
	flag.DurationVar(&cfg.readPause, "readpause", 2*time.Millisecond, "pause between one reader's transactions")
	flag.StringVar(&cfg.extraDSN, "dsn", "", "parameters appended to the server DSN, e.g. _wal_bound=0")
	flag.StringVar(&cfg.litestream, "litestream", "litestream", "the litestream binary")
	flag.DurationVar(&cfg.maxRead, "maxread", 100*time.Millisecond, "the longest a read transaction may take")
	flag.BoolVar(&cfg.keep, "keep", false, "keep the temporary directory (it is always kept when a check fails)")
	flag.StringVar(&cfg.ckptMode, "checkpoint", "", "also run PRAGMA wal_checkpoint(MODE) from the application every -checkpoint-every (PASSIVE, FULL, RESTART, TRUNCATE): what Litestream does beside it")
	flag.DurationVar(&cfg.ckptEvery, "checkpoint-every", 2*time.Second, "with -checkpoint: how often")
	flag.Parse()
	if v := os.Getenv("LITESTREAM_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			fmt.Fprintf(os.Stderr, "LITESTREAM_DURATION=%q: %v\n", v, err)
			os.Exit(2)
		}
		cfg.duration = d
	}
	switch cfg.ckptMode = strings.ToUpper(cfg.ckptMode); cfg.ckptMode {
	case "", "PASSIVE", "FULL", "RESTART", "TRUNCATE":
	default:
		fmt.Fprintf(os.Stderr, "-checkpoint %s: want PASSIVE, FULL, RESTART or TRUNCATE\n", cfg.ckptMode)
		os.Exit(2)
	}
	if cfg.writers < 1 || cfg.readers < 0 || cfg.rate < 0 || cfg.duration <= 0 || cfg.ckptEvery <= 0 {
		fmt.Fprintln(os.Stderr, "want -writers >= 1, -readers >= 0, -rate >= 0, -duration > 0")
		os.Exit(2)
	}
	os.Exit(run(cfg))
}

// run returns the exit status: 0 when every check passed, 1 when one failed.
func run(cfg config) int {
	dir, err := os.MkdirTemp("", "fastsqlite-litestream-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	failures, err := runIn(cfg, dir)
	if err != nil {
		failures = append(failures, err.Error())
	}
	if len(failures) > 0 {
		fmt.Println("FAIL:")
		for _, f := range failures {
			fmt.Println("  -", f)
		}
		fmt.Println("kept for inspection:", dir)
		return 1
	}
	if cfg.keep {
		fmt.Println("kept:", dir)
	} else {
		os.RemoveAll(dir)
	}
	fmt.Println("PASS")
	return 0
}

// runIn runs everything in dir and returns the checks that failed; an error
// is a step that could not run at all.
func runIn(cfg config, dir string) (failures []string, err error) {
	dbPath := filepath.Join(dir, "app.db")
	replicaDir := filepath.Join(dir, "replica")
	cfgPath := filepath.Join(dir, "litestream.yml")
	logPath := filepath.Join(dir, "litestream.log")
	restoredPath := filepath.Join(dir, "restored.db")

	dsn := "file:" + dbPath + "?" + serverDSN
	if cfg.extraDSN != "" {
		dsn += "&" + strings.TrimPrefix(cfg.extraDSN, "&")
	}
	version, _, _ := sqlite3.Version()
	fmt.Printf("SQLite %s, DSN %s\n", version, strings.TrimPrefix(dsn, "file:"+dbPath))
	fmt.Printf("%d writers at %s, %d readers (a pause of %s between reads), %s; directory %s\n",
		cfg.writers, rateString(cfg.rate), cfg.readers, cfg.readPause, cfg.duration, dir)

	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(32)
	db.SetMaxIdleConns(32)
	if _, err := db.Exec(`CREATE TABLE rows (id INTEGER PRIMARY KEY, writer INTEGER NOT NULL, at INTEGER NOT NULL, payload TEXT NOT NULL);
		CREATE INDEX rows_at ON rows(at)`); err != nil {
		return nil, fmt.Errorf("create table: %w", err)
	}

	// Litestream: a file replica in the same directory; trace level, where
	// v0.5.18 logs every sync ("sync ... snap=true reason=..."), its own
	// checkpoints and how it followed the WAL (logSummary). Everything else is
	// Litestream's default (monitor and sync every second, a PASSIVE
	// checkpoint at 1000 WAL pages, TRUNCATE only past 121359).
	yml := fmt.Sprintf(`logging:
  level: trace
  type: text
dbs:
  - path: %s
    replica:
      type: file
      path: %s
`, dbPath, replicaDir)
	if err := os.WriteFile(cfgPath, []byte(yml), 0o644); err != nil {
		return nil, err
	}
	ls, err := sidecar.Start(cfg.litestream, cfgPath, logPath)
	if err != nil {
		return nil, err
	}
	defer ls.Kill()
	if err := sidecar.WaitFor(30*time.Second, 100*time.Millisecond, func() (bool, error) {
		if ls.Exited() {
			return false, fmt.Errorf("litestream replicate exited at start: %v\n%s", ls.Err(), sidecar.Tail(logPath, 20))
		}
		return sidecar.MaxTXID(filepath.Join(replicaDir, "ltx", "0")) != "", nil
	}); err != nil {
		return nil, fmt.Errorf("waiting for Litestream's first replica file: %w", err)
	}
	fmt.Println("litestream replicate: running, first LTX file in the replica")

	// The load.
	ld := newLoad(cfg, db)
	ld.run(dbPath)
	st, err := sqlite3.Stats(context.Background(), db)
	if err != nil {
		return nil, fmt.Errorf("sqlite3.Stats: %w", err)
	}
	var sourceRows int64
	if err := db.QueryRow(`SELECT count(*) FROM rows`).Scan(&sourceRows); err != nil {
		return nil, fmt.Errorf("count source rows: %w", err)
	}
	stopped := time.Now()

	// Let Litestream catch up: its local LTX files and the replica's agree
	// and nothing has changed for three seconds (its monitor and sync run
	// every second), at most 30 s; SIGTERM then makes it sync once more.
	local := filepath.Join(dir, ".app.db-litestream", "ltx", "0")
	remote := filepath.Join(replicaDir, "ltx", "0")
	var last string
	lastChange := time.Now()
	caughtUp := sidecar.WaitFor(30*time.Second, 100*time.Millisecond, func() (bool, error) {
		l, r := sidecar.MaxTXID(local), sidecar.MaxTXID(remote)
		if sig := l + "/" + r; sig != last {
			last, lastChange = sig, time.Now()
		}
		return l != "" && l == r && time.Since(lastChange) >= 3*time.Second, nil
	})
	synced := time.Since(stopped)
	if err := ls.Stop(45 * time.Second); err != nil {
		failures = append(failures, fmt.Sprintf("litestream replicate did not stop cleanly on SIGTERM: %v", err))
	}

	// Restore and check.
	restoreOut, err := exec.Command(cfg.litestream, "restore", "-config", cfgPath, "-o", restoredPath, dbPath).CombinedOutput()
	if err != nil {
		return failures, fmt.Errorf("litestream restore: %v\n%s", err, restoreOut)
	}
	rc, err := checkRestored(restoredPath, ld)
	if err != nil {
		return failures, err
	}
	lg, err := sidecar.ReadLog(logPath)
	if err != nil {
		return failures, err
	}

	// The report.
	fmt.Println()
	fmt.Printf("rows committed (acknowledged): %d in %s (%.0f rows/s); write errors: %d\n",
		ld.acked(), cfg.duration, float64(ld.acked())/cfg.duration.Seconds(), ld.writeErrors.Load())
	for _, e := range ld.firstErrors() {
		fmt.Println("  write/read error:", e)
	}
	p50, p99, pmax, n := ld.readLatencies()
	slow, stalled := ld.slowReads(cfg.maxRead)
	fmt.Printf("reads: %d transactions, p50 %s, p99 %s, max %s, over %s: %d (of which the process's own stalls explain %d); read errors: %d\n",
		n, sidecar.Round(p50), sidecar.Round(p99), sidecar.Round(pmax), cfg.maxRead, slow, stalled, ld.readErrors.Load())
	fmt.Printf("stalls of the whole process (a 1 ms sleep that took over 10 ms): %d, longest %s\n", len(ld.stalls), sidecar.Round(ld.stallMax()))
	fmt.Printf("WAL (sampled every 100 ms): largest file %s, most in use (FileStats.WALBytes) %s; at the end: file %s\n",
		mib(ld.walMax.Load()), mib(ld.walInUseMax.Load()), mib(st.WALFileBytes))
	if cfg.ckptMode != "" {
		fmt.Printf("application checkpoints (%s every %s): %s, longest %s\n", cfg.ckptMode, cfg.ckptEvery, sidecar.MapString(ld.ckpts, ""), sidecar.Round(ld.ckptMax))
	}
	fmt.Printf("FileStats: ReadersHeld %d, ReadersHeldMax %s, ReadersHeldTime %s, Checkpoints %d, CheckpointsFailed %d, CheckpointTime %s, WALFileBytes %d, WriteWaits %d, WriteWaitMax %s, BusyTimeouts %d\n",
		st.ReadersHeld, sidecar.Round(st.ReadersHeldMax), sidecar.Round(st.ReadersHeldTime), st.Checkpoints, st.CheckpointsFailed,
		sidecar.Round(st.CheckpointTime), st.WALFileBytes, st.WriteWaits, sidecar.Round(st.WriteWaitMax), st.BusyTimeouts)
	if caughtUp != nil {
		fmt.Printf("replica: not caught up after %s (%v); SIGTERM's final sync is the last chance\n", sidecar.Round(synced), caughtUp)
	} else {
		fmt.Printf("replica: caught up %s after the load stopped\n", sidecar.Round(synced))
	}
	fmt.Printf("restored: %d rows (source %d), %d acknowledged missing, %d not acknowledged, integrity_check %q\n",
		rc.rows, sourceRows, rc.missing, rc.extra, rc.integrity)
	lg.Report()

	// The verdict.
	if ld.writeErrors.Load() > 0 || ld.readErrors.Load() > 0 {
		failures = append(failures, fmt.Sprintf("%d write and %d read errors", ld.writeErrors.Load(), ld.readErrors.Load()))
	}
	if rc.missing > 0 {
		failures = append(failures, fmt.Sprintf("%d acknowledged rows missing from the restored database (e.g. id %d)", rc.missing, rc.firstMissing))
	}
	if rc.rows != sourceRows {
		failures = append(failures, fmt.Sprintf("the restored database has %d rows, the source %d", rc.rows, sourceRows))
	}
	if rc.integrity != "ok" {
		failures = append(failures, "integrity_check of the restored database: "+rc.integrity)
	}
	if lg.Snapshots != 1 {
		failures = append(failures, fmt.Sprintf("Litestream logged %d snapshots (want only its first): it lost its place in the WAL", lg.Snapshots))
	}
	if lg.Errors > 0 {
		failures = append(failures, fmt.Sprintf("Litestream logged %d errors", lg.Errors))
	}
	if st.ReadersHeld > 0 {
		failures = append(failures, fmt.Sprintf("the WAL bound held %d read transactions (longest %s) for checkpoints (%d of %d failed)",
			st.ReadersHeld, sidecar.Round(st.ReadersHeldMax), st.CheckpointsFailed, st.Checkpoints))
	}
	if slow > stalled {
		failures = append(failures, fmt.Sprintf("%d read transactions took longer than %s (max %s), not counting the time the whole process stalled",
			slow-stalled, cfg.maxRead, sidecar.Round(pmax)))
	}
	return failures, nil
}

// ---- the load ----

type load struct {
	cfg config
	db  *sql.DB

	stop        atomic.Bool
	ids         [][]int64         // per writer: ids whose commit returned nil
	lastID      []atomic.Int64    // per writer: the newest acknowledged id, for readers
	lat         [][]time.Duration // per reader
	slow        [][]span          // per reader: the reads over -maxread
	stalls      []span            // the process did not run (the probe overslept)
	writeErrors atomic.Int64
	readErrors  atomic.Int64
	ckpts       map[string]int // -checkpoint: results (busy,log,checkpointed or the error)
	ckptMax     time.Duration  // -checkpoint: the longest
	walMax      atomic.Int64   // the -wal file's size, sampled
	walInUseMax atomic.Int64   // FileStats.WALBytes, sampled

	errMu  sync.Mutex
	errors []string
}

func newLoad(cfg config, db *sql.DB) *load {
	return &load{
		cfg:    cfg,
		db:     db,
		ids:    make([][]int64, cfg.writers),
		lastID: make([]atomic.Int64, cfg.writers),
		lat:    make([][]time.Duration, cfg.readers),
		slow:   make([][]span, cfg.readers),
	}
}

func (ld *load) run(dbPath string) {
	var wg sync.WaitGroup
	start := time.Now()
	for w := range ld.cfg.writers {
		wg.Go(func() { ld.writer(w, start) })
	}
	for r := range ld.cfg.readers {
		wg.Go(func() { ld.reader(r) })
	}
	done := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Go(func() { ld.probe(done) })
	if ld.cfg.ckptMode != "" {
		sampler.Go(func() { ld.checkpointer(done) })
	}
	sampler.Go(func() {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			if fi, err := os.Stat(dbPath + "-wal"); err == nil && fi.Size() > ld.walMax.Load() {
				ld.walMax.Store(fi.Size())
			}
			if st, err := sqlite3.Stats(context.Background(), ld.db); err == nil && st.WALBytes > ld.walInUseMax.Load() {
				ld.walInUseMax.Store(st.WALBytes)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	time.Sleep(ld.cfg.duration)
	ld.stop.Store(true)
	wg.Wait()
	close(done)
	sampler.Wait()
}

// writer w inserts rows with ids w<<40 + 1, 2, ...: every other commit one
// INSERT on its own, the others a transaction (BEGIN IMMEDIATE) of 1-4 rows.
// Paced to its share of -rate.
func (ld *load) writer(w int, start time.Time) {
	rng := rand.New(rand.NewPCG(uint64(w), 29))
	var interval time.Duration
	if ld.cfg.rate > 0 {
		interval = time.Duration(float64(time.Second) * float64(ld.cfg.writers) / float64(ld.cfg.rate))
	}
	next := int64(w)<<40 + 1
	written := 0
	payload := func() string {
		b := make([]byte, 100+rng.IntN(200))
		for i := range b {
			b[i] = 'a' + byte(rng.IntN(26))
		}
		return string(b)
	}
	for commit := 0; !ld.stop.Load(); commit++ {
		if interval > 0 {
			if d := time.Until(start.Add(time.Duration(written) * interval)); d > 0 {
				time.Sleep(d)
			}
		}
		n := 1
		if commit%2 == 1 {
			n = 1 + rng.IntN(4)
		}
		ids := make([]int64, n)
		for i := range ids {
			ids[i] = next
			next++
		}
		var err error
		if n == 1 && commit%2 == 0 {
			_, err = ld.db.Exec(`INSERT INTO rows (id, writer, at, payload) VALUES (?, ?, ?, ?)`, ids[0], w, time.Now().UnixNano(), payload())
		} else {
			err = ld.tx(func(tx *sql.Tx) error {
				for _, id := range ids {
					if _, err := tx.Exec(`INSERT INTO rows (id, writer, at, payload) VALUES (?, ?, ?, ?)`, id, w, time.Now().UnixNano(), payload()); err != nil {
						return err
					}
				}
				return nil
			})
		}
		written += n
		if err != nil {
			ld.writeErrors.Add(1)
			ld.noteError(fmt.Sprintf("writer %d: %v", w, err))
			continue
		}
		ld.ids[w] = append(ld.ids[w], ids...)
		ld.lastID[w].Store(ids[n-1])
	}
}

func (ld *load) tx(f func(*sql.Tx) error) error {
	tx, err := ld.db.Begin()
	if err != nil {
		return err
	}
	if err := f(tx); err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// reader r runs short read transactions back to back (a -readpause apart):
// the newest rows by time, and one row acknowledged before it began, by id;
// each is timed from BeginTx to Commit.
func (ld *load) reader(r int) {
	rng := rand.New(rand.NewPCG(uint64(r), 7))
	for !ld.stop.Load() {
		// An id acknowledged before the transaction begins: its snapshot
		// (taken at the first read) must hold it.
		id := ld.lastID[rng.IntN(len(ld.lastID))].Load()
		t0 := time.Now()
		err := func() error {
			tx, err := ld.db.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true})
			if err != nil {
				return err
			}
			defer tx.Rollback()
			var n, newest int64
			if err := tx.QueryRow(`SELECT count(*), coalesce(max(at), 0) FROM (SELECT at FROM rows ORDER BY at DESC LIMIT 20)`).Scan(&n, &newest); err != nil {
				return err
			}
			if id != 0 {
				var p string
				if err := tx.QueryRow(`SELECT payload FROM rows WHERE id = ?`, id).Scan(&p); err != nil {
					return fmt.Errorf("acknowledged id %d: %w", id, err)
				}
			}
			return tx.Commit()
		}()
		if err != nil {
			ld.readErrors.Add(1)
			ld.noteError(fmt.Sprintf("reader %d: %v", r, err))
		} else {
			d := time.Since(t0)
			ld.lat[r] = append(ld.lat[r], d)
			if d > ld.cfg.maxRead {
				ld.slow[r] = append(ld.slow[r], span{t0, t0.Add(d)})
			}
		}
		if ld.cfg.readPause > 0 {
			time.Sleep(ld.cfg.readPause)
		}
	}
}

func (ld *load) noteError(s string) {
	ld.errMu.Lock()
	defer ld.errMu.Unlock()
	if len(ld.errors) < 5 {
		ld.errors = append(ld.errors, s)
	}
}

func (ld *load) firstErrors() []string {
	ld.errMu.Lock()
	defer ld.errMu.Unlock()
	return slices.Clone(ld.errors)
}

func (ld *load) acked() int {
	n := 0
	for _, ids := range ld.ids {
		n += len(ids)
	}
	return n
}

func (ld *load) readLatencies() (p50, p99, pmax time.Duration, n int) {
	var all []time.Duration
	for _, l := range ld.lat {
		all = append(all, l...)
	}
	if len(all) == 0 {
		return 0, 0, 0, 0
	}
	slices.Sort(all)
	at := func(q float64) time.Duration { return all[min(len(all)-1, int(q*float64(len(all))))] }
	return at(0.50), at(0.99), all[len(all)-1], len(all)
}

// checkpointer runs PRAGMA wal_checkpoint(-checkpoint) every
// -checkpoint-every until done, as an application that checkpoints itself.
func (ld *load) checkpointer(done <-chan struct{}) {
	ld.ckpts = map[string]int{}
	t := time.NewTicker(ld.cfg.ckptEvery)
	defer t.Stop()
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		t0 := time.Now()
		var busy, log, ckpt int
		err := ld.db.QueryRow(`PRAGMA wal_checkpoint(`+ld.cfg.ckptMode+`)`).Scan(&busy, &log, &ckpt)
		ld.ckptMax = max(ld.ckptMax, time.Since(t0))
		if err != nil {
			ld.ckpts[err.Error()]++
		} else {
			ld.ckpts[fmt.Sprintf("busy=%d", busy)]++
		}
	}
}

// slowReads returns the reads over limit, and how many of them the process's
// own stalls explain: a read whose time outside stalls is under half the
// limit was slow because nothing of the process ran (a loaded machine, a GC
// pause), not because the driver held it. Half, not all of it: the bound
// holds a reader up to 100 ms, and a held read that also met a short stall
// is still a held read.
func (ld *load) slowReads(limit time.Duration) (n, stalled int) {
	for _, l := range ld.slow {
		for _, sp := range l {
			n++
			if sp.end.Sub(sp.start)-overlap(sp, ld.stalls) < limit/2 {
				stalled++
			}
		}
	}
	return n, stalled
}

// span is an interval of time.
type span struct{ start, end time.Time }

// probe sleeps 1 ms at a time until done and notes every oversleep past
// 10 ms: a time when no goroutine of the process could run.
func (ld *load) probe(done <-chan struct{}) {
	prev := time.Now()
	for {
		select {
		case <-done:
			return
		default:
		}
		time.Sleep(time.Millisecond)
		now := time.Now()
		if now.Sub(prev) > 10*time.Millisecond {
			ld.stalls = append(ld.stalls, span{prev.Add(time.Millisecond), now})
		}
		prev = now
	}
}

// overlap returns how much of sp the spans in stalls cover (they do not
// overlap each other).
func overlap(sp span, stalls []span) time.Duration {
	var d time.Duration
	for _, st := range stalls {
		lo, hi := sp.start, sp.end
		if st.start.After(lo) {
			lo = st.start
		}
		if st.end.Before(hi) {
			hi = st.end
		}
		if hi.After(lo) {
			d += hi.Sub(lo)
		}
	}
	return d
}

// stallMax is the longest stall of the process the probe saw.
func (ld *load) stallMax() time.Duration {
	var m time.Duration
	for _, st := range ld.stalls {
		m = max(m, st.end.Sub(st.start))
	}
	return m
}

// ---- the restored database ----

type restoreCheck struct {
	rows, missing, extra int64
	firstMissing         int64
	integrity            string
}

func checkRestored(path string, ld *load) (restoreCheck, error) {
	var rc restoreCheck
	r, err := sidecar.ReadRestored(path, "rows")
	if err != nil {
		return rc, err
	}
	rc.integrity = r.Integrity
	rc.rows = int64(len(r.IDs))
	acked := 0
	for _, ids := range ld.ids {
		acked += len(ids)
		n, first := r.Missing(ids)
		if n > 0 && rc.missing == 0 {
			rc.firstMissing = first
		}
		rc.missing += int64(n)
	}
	rc.extra = rc.rows - (int64(acked) - rc.missing)
	return rc, nil
}

// ---- small things ----

func rateString(rate int) string {
	if rate == 0 {
		return "full speed"
	}
	return fmt.Sprintf("%d rows/s in all", rate)
}

func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
