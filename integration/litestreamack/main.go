// Command litestreamack checks that a write acknowledged under
// _replicate_wait survives SIGKILL of both the application and Litestream
// (issue 39): it is the acknowledged-write step of .ci/run.
//
//	go install github.com/benbjohnson/litestream/cmd/litestream@v0.5.18
//	cd integration && go run ./litestreamack
//
// Litestream v0.5.x runs as a sidecar with a file replica and its control
// socket; the application is a child process (this program, run with
// -child) that opens the database with the README's server DSN plus
// _pragma=wal_autocheckpoint(0) (appDSN) and _replicate_wait=<socket>
// (and _group_commit=1 in every other cycle) and
// runs 1, 16 or 64 writer goroutines, each inserting one row per commit
// with ids of its own. In the third round of cycles the writers use two
// pools whose DSNs spell the socket differently: two requesters on one
// file, as two processes of the application would be. After each acknowledged insert (Exec returned nil)
// the child writes the id to its stdout, a pipe the parent reads to the
// end: once the child has written an id, the parent has it, whatever
// happens to the child.
//
// Each cycle starts Litestream on the same database and replica (it goes
// on from where the last cycle's Litestream was killed, as a restarted
// sidecar would), waits until it is ready (POST /sync answered), starts the
// child, lets it write for a random time, then SIGKILLs the child and
// Litestream a random few milliseconds apart, in a random order. Then
// `litestream restore -o <fresh file> file://<replica>`: every id
// acknowledged in this cycle and every earlier one must be in the restored
// database, and PRAGMA integrity_check must say ok.
//
// The control run does the same with the same schedule on a database of
// its own, without _replicate_wait: its acknowledgements are plain
// successes, and the writes Litestream had not uploaded by its next
// one-second sync are missing from the restore. It must lose some, or the
// test could not fail.
//
// Then, in three deterministic runs of their own (restart.go), the WAL is
// restarted while Litestream is down: twice by the driver's WAL bound, which
// must lose nothing, and once by SQLite's auto-checkpoint, which Litestream
// v0.5.18 is known to lose a commit to (the control of those runs).
//
// It reports, per cycle, the acknowledgements per confirmation (FileStats:
// ReplicatedWrites/Replications, as the child last printed them) and per
// upload (Litestream's log at debug level: "ltx file uploaded" level=0, its
// background syncs included), and fails (exit status 1) when an
// acknowledged id is missing, integrity_check is not ok, a write failed
// other than with ErrNotReplicated, a write was told ErrNotReplicated
// though Litestream outlived the application, the control run lost
// nothing, or the 64-writer cycles of one pool shared confirmations among
// fewer than -minshare writes.
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	// go.mod replaces mattn's path with the driver in the repository root.
	sqlite3 "github.com/mattn/go-sqlite3"

	"github.com/fastsqlite/sqlite3/integration/internal/sidecar"
)

// The README's server DSN ("Recommended settings for servers").
const serverDSN = "_journal_mode=WAL&_txlock=immediate&_busy_timeout=5000"

// appDSN is what the application adds, as docs/replication.md says to beside
// Litestream: SQLite's auto-checkpoint off. With it on, the commits made
// while Litestream is down (killed first, the application a few ms later)
// can be checkpointed and the WAL restarted behind it, and Litestream
// v0.5.18, restarted, goes on from the new WAL without them: the replica
// misses them for good (a cycle's restore failed integrity_check, "Rowid
// out of order", in 1 of 8 runs before this).
const appDSN = "&_pragma=wal_autocheckpoint(0)"

type config struct {
	litestream string
	writers    []int
	rounds     int
	minRun     time.Duration
	maxRun     time.Duration
	maxGap     time.Duration
	minShare   float64
	seed       uint64
	keep       bool
	control    bool
	restarts   bool
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "-child" {
		os.Exit(child(os.Args[2:]))
	}
	var cfg config
	var writers string
	flag.StringVar(&cfg.litestream, "litestream", "litestream", "the litestream binary")
	flag.StringVar(&writers, "writers", "1,16,64", "writer goroutines of the cycles, in turn")
	flag.IntVar(&cfg.rounds, "rounds", 3, "cycles per writer count")
	flag.DurationVar(&cfg.minRun, "min", time.Second, "shortest time the application writes before the kill")
	flag.DurationVar(&cfg.maxRun, "max", 2*time.Second, "longest time the application writes before the kill")
	flag.DurationVar(&cfg.maxGap, "gap", 30*time.Millisecond, "the two kills are at most this far apart")
	flag.Float64Var(&cfg.minShare, "minshare", 50, "64 writers: the fewest acknowledged writes per confirmation (FileStats, the 64-writer cycles of one pool) allowed")
	flag.Uint64Var(&cfg.seed, "seed", 0, "the schedule's random seed (0: from the clock)")
	flag.BoolVar(&cfg.keep, "keep", false, "keep the temporary directory (it is always kept when a check fails)")
	flag.BoolVar(&cfg.control, "control", true, "run the control run (no _replicate_wait) too")
	flag.BoolVar(&cfg.restarts, "restarts", true, "check the WAL restarted while Litestream is down (restart.go)")
	flag.Parse()
	for f := range strings.SplitSeq(writers, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "-writers %q: want a list of counts >= 1\n", writers)
			os.Exit(2)
		}
		cfg.writers = append(cfg.writers, n)
	}
	if cfg.rounds < 1 || cfg.minRun <= 0 || cfg.maxRun < cfg.minRun || cfg.maxGap < 0 {
		fmt.Fprintln(os.Stderr, "want -rounds >= 1, 0 < -min <= -max, -gap >= 0")
		os.Exit(2)
	}
	if cfg.seed == 0 {
		cfg.seed = uint64(time.Now().UnixNano())
	}
	os.Exit(run(cfg))
}

// ---- the schedule ----

// cycle is one start and kill of the application and Litestream.
type cycle struct {
	n       int // from 1, across the run
	writers int
	group   bool          // _group_commit=1
	pools   int           // the child's pools on the file, each asking Litestream on its own
	runFor  time.Duration // from the child's first write to the first kill
	gap     time.Duration // Litestream is killed gap after the child (before it when negative)
}

func schedule(cfg config) []cycle {
	rng := rand.New(rand.NewPCG(cfg.seed, 39))
	var cs []cycle
	for k := range cfg.rounds * len(cfg.writers) {
		c := cycle{n: k + 1, writers: cfg.writers[k%len(cfg.writers)], group: k%2 == 1, pools: 1}
		if k/len(cfg.writers) == 2 && c.writers > 1 {
			// The third round: two pools, as two processes would be.
			c.pools = 2
		}
		c.runFor = cfg.minRun + time.Duration(rng.Int64N(int64(cfg.maxRun-cfg.minRun)+1))
		if cfg.maxGap > 0 {
			c.gap = time.Duration(rng.Int64N(2*int64(cfg.maxGap)+1)) - cfg.maxGap
		}
		cs = append(cs, c)
	}
	return cs
}

func (c cycle) killOrder() string {
	if c.gap < 0 {
		return fmt.Sprintf("Litestream, %s later the app", sidecar.Round(-c.gap))
	}
	return fmt.Sprintf("the app, %s later Litestream", sidecar.Round(c.gap))
}

// ---- the parent ----

func run(cfg config) int {
	dir, err := os.MkdirTemp("", "lsack") // short: a socket's path is at most 104-108 bytes
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	version, _, _ := sqlite3.Version()
	fmt.Printf("SQLite %s; Litestream %s; seed %d (-seed to repeat); directory %s\n", version, litestreamVersion(cfg.litestream), cfg.seed, dir)
	sched := schedule(cfg)
	var failures []string
	wait := &mode{name: "wait", dir: filepath.Join(dir, "wait"), replicate: true}
	modes := []*mode{wait}
	if cfg.control {
		modes = append(modes, &mode{name: "control", dir: filepath.Join(dir, "control")})
	}
	for _, m := range modes {
		fmt.Printf("\n== %s: %s\n", m.name, m.describe())
		var pace *mode
		if !m.replicate {
			pace = wait
		}
		f, err := m.runAll(cfg, sched, pace)
		failures = append(failures, f...)
		if err != nil {
			failures = append(failures, fmt.Sprintf("%s: %v", m.name, err))
			break
		}
	}

	if cfg.restarts {
		failures = append(failures, walRestarts(cfg, dir)...)
	}

	// The summary.
	fmt.Println("\n== summary")
	for _, m := range modes {
		m.summary()
	}
	// The target, over the 64-writer cycles of one pool together (a
	// cycle is a second or two: a stall of the loaded machine weighs less in
	// two).
	var confs, confirmed int64
	for _, r := range wait.results {
		if r.writers == 64 && r.pools == 1 {
			confs += r.confirmations
			confirmed += r.confirmed
		}
	}
	if confs > 0 && float64(confirmed)/float64(confs) < cfg.minShare {
		failures = append(failures, fmt.Sprintf("wait, 64 writers, one pool: %.1f acknowledged writes per confirmation (FileStats), want >= %g",
			float64(confirmed)/float64(confs), cfg.minShare))
	}
	if cfg.control && len(modes) == 2 && len(modes[1].results) == len(sched) {
		if modes[1].lostTotal() == 0 {
			failures = append(failures, "the control run (no _replicate_wait) lost no acknowledged write: this test could not see a loss")
		}
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

func litestreamVersion(bin string) string {
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		return fmt.Sprintf("? (%v; %s)", err, sidecar.Install)
	}
	return strings.TrimSpace(string(out))
}

// mode is one database, its replica and its Litestream config, through
// every cycle: the run with _replicate_wait, or the control run.
type mode struct {
	name      string
	dir       string
	replicate bool

	db, replica, cfgPath, socket string
	acked                        []int64 // every id acknowledged, all cycles
	results                      []result
}

// result is what one cycle did and found.
type result struct {
	cycle
	acks          int     // acknowledged in this cycle
	missing       int     // acknowledged ids (any cycle) not in the restore
	firstMissing  int64   //
	restored      int     // rows in the restored database
	integrity     string  //
	confirmations int64   // FileStats.Replications, as last printed
	confirmed     int64   // FileStats.ReplicatedWrites
	notReplicated int64   // writes told ErrNotReplicated
	otherErrors   int64   // other failed writes
	uploads       int     // Litestream's level-0 uploads in this cycle
	ran           float64 // seconds the child wrote
	rate          float64 // writes per second the child was paced to (0: as fast as it can)
}

func (m *mode) describe() string {
	if m.replicate {
		return "_replicate_wait=<socket>: an acknowledgement waits for Litestream's confirmation; every acknowledged id must be restored"
	}
	return "no _replicate_wait: an acknowledgement is a plain success, at the rate of the same cycle with it; some must be missing from the restores"
}

// runAll runs the cycles of sched; with pace, each at the rate of writes
// pace's cycle of the same number acknowledged.
func (m *mode) runAll(cfg config, sched []cycle, pace *mode) (failures []string, err error) {
	if err := os.MkdirAll(m.dir, 0o755); err != nil {
		return nil, err
	}
	m.db = filepath.Join(m.dir, "app.db")
	m.replica = filepath.Join(m.dir, "replica")
	m.cfgPath = filepath.Join(m.dir, "litestream.yml")
	m.socket = filepath.Join(m.dir, "ls.sock")
	if err := writeConfig(m.cfgPath, m.socket, m.db, m.replica, ""); err != nil {
		return nil, err
	}
	setup, err := sql.Open("sqlite3", "file:"+m.db+"?"+serverDSN)
	if err != nil {
		return nil, err
	}
	_, err = setup.Exec(`CREATE TABLE acks (id INTEGER PRIMARY KEY, writer INTEGER NOT NULL, payload TEXT NOT NULL)`)
	setup.Close()
	if err != nil {
		return nil, fmt.Errorf("create table: %w", err)
	}
	fmt.Printf("%5s %7s %5s %5s %6s %7s  %-34s %7s %8s %9s %6s %9s %8s  %s\n",
		"cycle", "writers", "pools", "group", "ran", "paced", "killed first", "acks", "missing", "restored", "confs", "acks/conf", "uploads", "acks/upload")
	for i, c := range sched {
		rate := 0.0
		if pace != nil && i < len(pace.results) {
			p := pace.results[i]
			rate = float64(p.acks) / p.ran
		}
		r, f, err := m.runCycle(cfg, c, rate)
		failures = append(failures, f...)
		if err != nil {
			return failures, fmt.Errorf("cycle %d: %w", c.n, err)
		}
		m.results = append(m.results, r)
		paced := "-"
		if r.rate > 0 {
			paced = fmt.Sprintf("%.0f/s", r.rate)
		}
		fmt.Printf("%5d %7d %5d %5v %5.1fs %7s  %-34s %7d %8d %9d %6d %9s %8d  %s\n",
			r.n, r.writers, r.pools, r.group, r.ran, paced, r.killOrder(), r.acks, r.missing, r.restored, r.confirmations,
			ratio(r.confirmed, r.confirmations), r.uploads, ratio(int64(r.acks), int64(r.uploads)))
		if r.notReplicated > 0 || r.otherErrors > 0 {
			fmt.Printf("      writes told ErrNotReplicated: %d (Litestream killed first, or before they were confirmed); other failed writes: %d\n",
				r.notReplicated, r.otherErrors)
		}
	}
	return failures, nil
}

func ratio3(a, b int64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.3f", float64(a)/float64(b))
}

func ratio(a, b int64) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", float64(a)/float64(b))
}

// runCycle starts Litestream and the child, kills both, restores and checks.
func (m *mode) runCycle(cfg config, c cycle, rate float64) (r result, failures []string, err error) {
	r.cycle = c
	r.rate = rate
	fail := func(format string, args ...any) {
		failures = append(failures, fmt.Sprintf("%s, cycle %d (%d writers, group commit %v): ", m.name, c.n, c.writers, c.group)+fmt.Sprintf(format, args...))
	}
	logPath := filepath.Join(m.dir, fmt.Sprintf("litestream-%d.log", c.n))
	ls, err := startReady(cfg.litestream, m.cfgPath, logPath, m.socket, m.db)
	if err != nil {
		return r, failures, err
	}
	defer ls.Kill()

	// The application.
	dsn := "file:" + m.db + "?" + serverDSN + appDSN
	if m.replicate {
		dsn += "&_replicate_wait=" + m.socket
	}
	if c.group {
		dsn += "&_group_commit=1"
	}
	exe, err := os.Executable()
	if err != nil {
		return r, failures, err
	}
	cmd := exec.Command(exe, "-child", "-dsn", dsn, "-writers", strconv.Itoa(c.writers), "-cycle", strconv.Itoa(c.n),
		"-rate", strconv.FormatFloat(rate, 'f', 1, 64), "-pools", strconv.Itoa(c.pools))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return r, failures, err
	}
	if err := cmd.Start(); err != nil {
		return r, failures, err
	}
	ready := make(chan struct{})
	var (
		mu       sync.Mutex
		acked    []int64
		last     childStats
		errLines []string
	)
	readDone := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(out)
		readyOnce := sync.OnceFunc(func() { close(ready) })
		defer readyOnce()
		for sc.Scan() {
			line := sc.Text()
			kind, rest, _ := strings.Cut(line, " ")
			mu.Lock()
			switch kind {
			case "a":
				id, err := strconv.ParseInt(rest, 10, 64)
				if err == nil {
					acked = append(acked, id)
				} else {
					errLines = append(errLines, "bad ack line: "+line)
				}
			case "s":
				if err := json.Unmarshal([]byte(rest), &last); err != nil {
					errLines = append(errLines, "bad stats line: "+line)
				}
			case "r":
				readyOnce()
			default:
				errLines = append(errLines, line)
			}
			mu.Unlock()
		}
		readDone <- sc.Err()
	}()
	childDone := make(chan error, 1)
	go func() { <-readDone; childDone <- cmd.Wait() }()

	select {
	case <-ready:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-childDone
		return r, failures, errors.New("the application did not start within 60 s")
	}
	start := time.Now()
	time.Sleep(c.runFor)
	if ls.Exited() {
		fail("Litestream exited before the kill: %v\n%s", ls.Err(), sidecar.Tail(logPath, 20))
	}
	killApp := func() { cmd.Process.Signal(syscall.SIGKILL) }
	if c.gap < 0 {
		ls.Kill()
		time.Sleep(-c.gap)
		killApp()
	} else {
		killApp()
		r.ran = time.Since(start).Seconds()
		time.Sleep(c.gap)
		ls.Kill()
	}
	if r.ran == 0 {
		r.ran = time.Since(start).Seconds()
	}
	waitErr := <-childDone
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		fail("the application ended otherwise than by SIGKILL: %v", waitErr)
	}
	mu.Lock()
	r.acks = len(acked)
	m.acked = append(m.acked, acked...)
	r.confirmations, r.confirmed = last.Replications, last.ReplicatedWrites
	r.notReplicated, r.otherErrors = last.NotReplicated, last.Other
	for _, l := range errLines {
		fail("the application said: %s", l)
	}
	mu.Unlock()
	if r.otherErrors > 0 {
		fail("%d writes failed otherwise than with ErrNotReplicated", r.otherErrors)
	}
	if m.replicate && c.gap >= 0 && r.notReplicated > 0 {
		// Litestream ran the whole life of the application: every request
		// had its answer.
		fail("%d writes told ErrNotReplicated though Litestream ran until the application was killed", r.notReplicated)
	}
	if r.acks == 0 {
		fail("no write was acknowledged in %.1f s", r.ran)
	}

	// Litestream's uploads, from its log.
	lg, err := sidecar.ReadLog(logPath)
	if err != nil {
		return r, failures, err
	}
	r.uploads = lg.Uploads["0"]
	if lg.Errors > 0 {
		// Killed mid-upload, a Litestream logs nothing; one that logged an
		// error before the kill had a problem of its own: say so.
		fmt.Printf("      Litestream logged %d errors:\n", lg.Errors)
		lg.Report()
	}

	// Restore into a fresh file and check.
	restored := filepath.Join(m.dir, fmt.Sprintf("restored-%d.db", c.n))
	restoreOut, err := exec.Command(cfg.litestream, "restore", "-o", restored, "file://"+m.replica).CombinedOutput()
	if err != nil {
		return r, failures, fmt.Errorf("litestream restore: %v\n%s", err, restoreOut)
	}
	rs, err := sidecar.ReadRestored(restored, "acks")
	if err != nil {
		return r, failures, err
	}
	r.restored = len(rs.IDs)
	r.integrity = rs.Integrity
	r.missing, r.firstMissing = rs.Missing(m.acked)
	if r.integrity != "ok" {
		fail("integrity_check of the restored database: %s", r.integrity)
	}
	if m.replicate && r.missing > 0 {
		fail("%d acknowledged writes missing from the restored database (e.g. id %d = cycle %d, writer %d, write %d)",
			r.missing, r.firstMissing, r.firstMissing>>40, (r.firstMissing>>24)&0xffff, r.firstMissing&0xffffff)
	}
	if len(failures) == 0 {
		os.Remove(restored)
	}
	return r, failures, nil
}

func (m *mode) lostTotal() int {
	n := 0
	for _, r := range m.results {
		n += r.missing
	}
	return n
}

func (m *mode) summary() {
	acks, confs, confirmed, uploads := 0, int64(0), int64(0), 0
	lost := 0
	type shape struct{ writers, pools int }
	byShape := map[shape][4]int64{} // acks, confirmations, confirmed, uploads
	for _, r := range m.results {
		acks += r.acks
		confs += r.confirmations
		confirmed += r.confirmed
		uploads += r.uploads
		if r.missing > 0 {
			lost++
		}
		b := byShape[shape{r.writers, r.pools}]
		b[0] += int64(r.acks)
		b[1] += r.confirmations
		b[2] += r.confirmed
		b[3] += int64(r.uploads)
		byShape[shape{r.writers, r.pools}] = b
	}
	fmt.Printf("%s: %d cycles, %d acknowledged writes, %d cycles with acknowledged writes missing from the restore (%d missing in all)\n",
		m.name, len(m.results), acks, lost, m.lostTotal())
	shapes := make([]shape, 0, len(byShape))
	for sh := range byShape {
		shapes = append(shapes, sh)
	}
	slices.SortFunc(shapes, func(a, b shape) int { return cmp.Or(cmp.Compare(a.writers, b.writers), cmp.Compare(a.pools, b.pools)) })
	for _, sh := range shapes {
		b := byShape[sh]
		if m.replicate {
			fmt.Printf("  %2d writers, %d pool(s): %6d acknowledged; per confirmation (FileStats) %s; per upload (Litestream's log, level 0) %s: %s uploads per acknowledged write\n",
				sh.writers, sh.pools, b[0], ratio(b[2], b[1]), ratio(b[0], b[3]), ratio3(b[3], b[0]))
		} else {
			fmt.Printf("  %2d writers, %d pool(s): %6d acknowledged; per upload (Litestream's log, level 0) %s\n", sh.writers, sh.pools, b[0], ratio(b[0], b[3]))
		}
	}
}

// writeConfig writes Litestream's config for db at path: its control
// socket, a file replica, and dbExtra (indented lines) among db's settings.
// Debug level: Litestream logs each upload ("ltx file uploaded") and each
// snapshot's reason.
func writeConfig(path, socket, db, replica, dbExtra string) error {
	yml := fmt.Sprintf(`logging:
  level: debug
  type: text
socket:
  enabled: true
  path: %s
dbs:
  - path: %s
%s    replica:
      type: file
      path: %s
`, socket, db, dbExtra, replica)
	return os.WriteFile(path, []byte(yml), 0o644)
}

// startReady starts Litestream with the config at cfgPath, logging to
// logPath, and returns once the control socket answers a sync of db: it is
// open, and what the WAL held before is on the replica.
func startReady(bin, cfgPath, logPath, socket, db string) (*sidecar.Litestream, error) {
	ls, err := sidecar.Start(bin, cfgPath, logPath)
	if err != nil {
		return nil, err
	}
	if err := sidecar.WaitFor(30*time.Second, 20*time.Millisecond, func() (bool, error) {
		if ls.Exited() {
			return false, fmt.Errorf("litestream replicate exited at start: %v\n%s", ls.Err(), sidecar.Tail(logPath, 20))
		}
		return syncReplica(socket, db) == nil, nil
	}); err != nil {
		ls.Kill()
		return nil, fmt.Errorf("waiting for Litestream to answer POST /sync: %w (%v)\n%s", err, syncReplica(socket, db), sidecar.Tail(logPath, 20))
	}
	return ls, nil
}

// syncReplica asks Litestream at socket to sync db to its replica and wait
// (POST /sync, wait): nil once it answered 200.
func syncReplica(socket, db string) error {
	client := &http.Client{
		Timeout: 10 * time.Second,
		Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", socket)
		}},
	}
	defer client.CloseIdleConnections()
	body, _ := json.Marshal(map[string]any{"path": db, "wait": true, "timeout": 5})
	resp, err := client.Post("http://litestream/sync", "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return fmt.Errorf("POST /sync: %s: %s", resp.Status, bytes.TrimSpace(b))
	}
	return nil
}

// ---- the child: the application ----

// childStats is what the child prints every 50 ms ("s {json}").
type childStats struct {
	Replications     int64
	ReplicatedWrites int64
	NotReplicated    int64
	Other            int64
}

// child opens the database and writes until it is killed; it prints "r"
// once open, "a ID" after each acknowledged insert, "s {...}" every 50 ms,
// and the first failures as text.
func child(args []string) int {
	fs := flag.NewFlagSet("child", flag.ExitOnError)
	dsn := fs.String("dsn", "", "")
	writers := fs.Int("writers", 1, "")
	cyc := fs.Int("cycle", 1, "")
	rate := fs.Float64("rate", 0, "")
	npools := fs.Int("pools", 1, "")
	fs.Parse(args)
	// Pool p > 0 spells the socket's path with p "/." more: the driver
	// keys its requests by the path, so each pool asks Litestream on its
	// own, as another process would (and, its DSN differing, groups its
	// commits on its own).
	var pools []*sql.DB
	for p := range *npools {
		d := *dsn
		if p > 0 {
			sock := d[strings.Index(d, "_replicate_wait=")+len("_replicate_wait="):]
			sock, _, _ = strings.Cut(sock, "&")
			if sock != "" {
				d = strings.Replace(d, sock, filepath.Dir(sock)+strings.Repeat("/.", p)+"/"+filepath.Base(sock), 1)
			}
		}
		db, err := sql.Open("sqlite3", d)
		if err == nil {
			err = db.Ping()
		}
		if err != nil {
			fmt.Printf("open: %v\n", err)
			return 1
		}
		db.SetMaxOpenConns(*writers + 1)
		db.SetMaxIdleConns(*writers + 1)
		pools = append(pools, db)
	}

	var outMu sync.Mutex
	say := func(s string) {
		outMu.Lock()
		os.Stdout.WriteString(s)
		outMu.Unlock()
	}
	var notReplicated, other atomic.Int64
	var said atomic.Int32
	say("r\n")
	go func() {
		for {
			time.Sleep(50 * time.Millisecond)
			var cs childStats
			for _, db := range pools {
				st, err := sqlite3.Stats(context.Background(), db)
				if err != nil {
					continue
				}
				cs.Replications += st.Replications
				cs.ReplicatedWrites += st.ReplicatedWrites
			}
			cs.NotReplicated, cs.Other = notReplicated.Load(), other.Load()
			b, _ := json.Marshal(cs)
			say("s " + string(b) + "\n")
		}
	}()
	for w := range *writers {
		db := pools[w%len(pools)]
		go func() {
			base := int64(*cyc)<<40 | int64(w)<<24
			var interval time.Duration // each writer's share of -rate
			if *rate > 0 {
				interval = time.Duration(float64(time.Second) * float64(*writers) / *rate)
			}
			start := time.Now()
			for i := int64(1); ; i++ {
				if d := time.Until(start.Add(time.Duration(i-1) * interval)); d > 0 {
					time.Sleep(d)
				}
				id := base | i
				_, err := db.Exec(`INSERT INTO acks (id, writer, payload) VALUES (?, ?, ?)`, id, w, "acknowledged means replicated")
				switch {
				case err == nil:
					say("a " + strconv.FormatInt(id, 10) + "\n")
				case errors.Is(err, sqlite3.ErrNotReplicated):
					notReplicated.Add(1)
					time.Sleep(time.Millisecond)
				default:
					other.Add(1)
					if said.Add(1) <= 3 {
						say(fmt.Sprintf("writer %d, id %d: %v\n", w, id, err))
					}
					time.Sleep(time.Millisecond)
				}
			}
		}()
	}
	select {}
}
