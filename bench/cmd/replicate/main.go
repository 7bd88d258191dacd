// Command replicate measures what acknowledged-means-replicated costs
// (issue 39): writers doing one-row inserts on a WAL file that Litestream
// (v0.5.x, as a sidecar process with a file replica and its control socket)
// replicates, acknowledged three ways:
//
//   - plain: group commit (_group_commit=1), acknowledged at the local
//     commit; Litestream uploads in the background (every second);
//   - wait: the same with _replicate_wait=<socket>: each acknowledgement
//     waits for Litestream's confirmation, one request in flight shared by
//     every write committed before it;
//   - post: the same as plain, and after each successful Exec the writer
//     makes its own POST /sync {"wait": true} to the socket (net/http over
//     the unix socket): what an application does without the switch.
//
// at PRAGMA synchronous NORMAL and FULL (_sync), with 1, 16 and 64 writer
// goroutines. Each case gets a fresh database, replica and Litestream.
//
//	go install github.com/benbjohnson/litestream/cmd/litestream@v0.5.18
//	cd bench && go run ./cmd/replicate [-rounds 3] [-duration 3s]
//
// Per case: acknowledged writes per second, the latency of one write
// (Exec to acknowledgement) p50 and p99, Litestream's uploads in the
// measured window (new level-0 LTX files in the replica) and, for wait,
// FileStats' confirmations. Raw lines (Go benchmark format, one per case
// and round; benchstat reads them) go to <out>/ours.txt, the table of
// medians to <out>/tables.md, their chart to <out>/throughput.svg.
package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	sqlite3 "github.com/fastsqlite/sqlite3"

	"github.com/fastsqlite/sqlite3/bench/internal/runbench"
)

// The driver's server DSN (the README's) with group commit, and SQLite's
// auto-checkpoint off, as docs/replication.md says to beside Litestream.
const baseDSN = "_journal_mode=WAL&_txlock=immediate&_busy_timeout=10000&_group_commit=1&_pragma=wal_autocheckpoint(0)"

var allModes = []string{"plain", "wait", "post"}

type config struct {
	litestream string
	modes      []string
	syncs      []string
	writers    []int
	duration   time.Duration
	warmup     time.Duration
	rounds     int
	out        string
}

// acase is one measured configuration.
type acase struct {
	mode    string
	sync    string
	writers int
}

func (c acase) name() string {
	return fmt.Sprintf("Replicate/%s/sync=%s/writers=%d", c.mode, c.sync, c.writers)
}

// measured is one run of a case.
type measured struct {
	writes        int
	wall          time.Duration
	p50, p99      time.Duration
	uploads       int   // new level-0 LTX files in the replica
	confirmations int64 // FileStats.Replications (wait)
	confirmed     int64 // FileStats.ReplicatedWrites (wait)
	errors        int
	firstErr      string
}

func main() {
	var cfg config
	var modes, syncs, writers string
	flag.StringVar(&cfg.litestream, "litestream", "litestream", "the litestream binary (v0.5.x)")
	flag.StringVar(&modes, "modes", strings.Join(allModes, ","), "acknowledgements to measure: plain, wait, post")
	flag.StringVar(&syncs, "sync", "NORMAL,FULL", "PRAGMA synchronous levels")
	flag.StringVar(&writers, "writers", "1,16,64", "writer goroutines")
	flag.DurationVar(&cfg.duration, "duration", 3*time.Second, "measured time per case and round")
	flag.DurationVar(&cfg.warmup, "warmup", 500*time.Millisecond, "writes before the measured time")
	flag.IntVar(&cfg.rounds, "rounds", 1, "rounds; each runs every case once, in a rotated order")
	flag.StringVar(&cfg.out, "out", "results/replicate", "directory for ours.txt and tables.md (relative: to the bench module)")
	flag.Parse()
	for m := range strings.SplitSeq(modes, ",") {
		if !slices.Contains(allModes, m) {
			fatal(fmt.Errorf("-modes: unknown %q (have %s)", m, strings.Join(allModes, ", ")))
		}
		cfg.modes = append(cfg.modes, m)
	}
	for s := range strings.SplitSeq(syncs, ",") {
		s = strings.ToUpper(strings.TrimSpace(s))
		if s != "OFF" && s != "NORMAL" && s != "FULL" && s != "EXTRA" {
			fatal(fmt.Errorf("-sync: unknown %q", s))
		}
		cfg.syncs = append(cfg.syncs, s)
	}
	for w := range strings.SplitSeq(writers, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(w))
		if err != nil || n < 1 {
			fatal(fmt.Errorf("-writers %q: want counts >= 1", writers))
		}
		cfg.writers = append(cfg.writers, n)
	}
	if cfg.rounds < 1 || cfg.duration <= 0 || cfg.warmup < 0 {
		fatal(errors.New("want -rounds >= 1, -duration > 0, -warmup >= 0"))
	}
	if err := run(cfg); err != nil {
		fatal(err)
	}
}

func run(cfg config) error {
	out := cfg.out
	if !filepath.IsAbs(out) {
		root, err := runbench.ModuleRoot()
		if err != nil {
			return err
		}
		out = filepath.Join(root, out)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	ver, err := exec.Command(cfg.litestream, "version").Output()
	if err != nil {
		return fmt.Errorf("%s version: %v (go install github.com/benbjohnson/litestream/cmd/litestream@v0.5.18)", cfg.litestream, err)
	}
	sqlVer, _, _ := sqlite3.Version()
	setting := fmt.Sprintf("SQLite %s, Litestream %s (file replica), %d round(s) of %s per case after %s of warm-up, GOMAXPROCS %d, %s/%s, %s",
		sqlVer, strings.TrimSpace(string(ver)), cfg.rounds, cfg.duration, cfg.warmup, runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, runbench.CPUName())
	fmt.Fprintln(os.Stderr, setting)

	var cases []acase
	for _, s := range cfg.syncs {
		for _, w := range cfg.writers {
			for _, m := range cfg.modes {
				cases = append(cases, acase{m, s, w})
			}
		}
	}
	raw, err := os.Create(filepath.Join(out, "ours.txt"))
	if err != nil {
		return err
	}
	defer raw.Close()
	fmt.Fprintf(raw, "goos: %s\ngoarch: %s\npkg: github.com/fastsqlite/sqlite3/bench\ncpu: %s\n", runtime.GOOS, runtime.GOARCH, runbench.CPUName())
	results := map[acase][]measured{}
	var failed []string
	for r := range cfg.rounds {
		for i := range cases {
			c := cases[(i+r)%len(cases)]
			m, err := runCase(cfg, c)
			if err != nil {
				return fmt.Errorf("%s: %w", c.name(), err)
			}
			results[c] = append(results[c], m)
			line := m.line(c.name())
			fmt.Fprintln(raw, line)
			fmt.Fprintf(os.Stderr, "round %d/%d: %s\n", r+1, cfg.rounds, line)
			if m.errors > 0 {
				failed = append(failed, fmt.Sprintf("%s: %d failed writes, the first: %s", c.name(), m.errors, m.firstErr))
			}
		}
	}
	var md bytes.Buffer
	fmt.Fprintf(&md, "%s.\n\n", setting)
	writeTable(&md, cfg, results)
	os.Stdout.Write(md.Bytes())
	if err := os.WriteFile(filepath.Join(out, "tables.md"), md.Bytes(), 0o644); err != nil {
		return err
	}
	var svg bytes.Buffer
	writeChart(&svg, cfg, results, medianOf(results))
	if err := os.WriteFile(filepath.Join(out, "throughput.svg"), svg.Bytes(), 0o644); err != nil {
		return err
	}
	if len(failed) > 0 {
		return errors.New(strings.Join(failed, "\n"))
	}
	return nil
}

func (m measured) line(name string) string {
	ns := 0.0
	if m.writes > 0 {
		ns = float64(m.wall.Nanoseconds()) / float64(m.writes)
	}
	s := fmt.Sprintf("Benchmark%s-%d\t%8d\t%.0f ns/op\t%.1f writes/s\t%.3f p50-ms\t%.3f p99-ms\t%d uploads",
		name, runtime.GOMAXPROCS(0), m.writes, ns, m.rate(), ms(m.p50), ms(m.p99), m.uploads)
	if m.uploads > 0 {
		s += fmt.Sprintf("\t%.2f writes/upload", ratio(m.writes, m.uploads))
	}
	if m.confirmations > 0 {
		s += fmt.Sprintf("\t%.2f writes/confirmation", float64(m.confirmed)/float64(m.confirmations))
	}
	if m.errors > 0 {
		s += fmt.Sprintf("\t%d errors", m.errors)
	}
	return s
}

func (m measured) rate() float64 { return float64(m.writes) / m.wall.Seconds() }

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func ratio(a, b int) float64 {
	if b == 0 {
		return math.Inf(1)
	}
	return float64(a) / float64(b)
}

// ---- one case ----

func runCase(cfg config, c acase) (m measured, err error) {
	dir, err := os.MkdirTemp("", "lsbench") // short: a socket's path is at most 104-108 bytes
	if err != nil {
		return m, err
	}
	defer os.RemoveAll(dir)
	dbPath := filepath.Join(dir, "app.db")
	replica := filepath.Join(dir, "replica")
	socket := filepath.Join(dir, "ls.sock")
	setup, err := sql.Open("sqlite3", "file:"+dbPath+"?"+baseDSN)
	if err != nil {
		return m, err
	}
	_, err = setup.Exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, writer INTEGER NOT NULL, payload TEXT NOT NULL)`)
	setup.Close()
	if err != nil {
		return m, err
	}
	ls, err := startLitestream(cfg.litestream, dir, dbPath, replica, socket)
	if err != nil {
		return m, err
	}
	defer ls.stop()

	dsn := "file:" + dbPath + "?" + baseDSN + "&_sync=" + c.sync
	if c.mode == "wait" {
		dsn += "&_replicate_wait=" + socket
	}
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		return m, err
	}
	defer db.Close()
	db.SetMaxOpenConns(c.writers)
	db.SetMaxIdleConns(c.writers)
	var post *poster
	if c.mode == "post" {
		post = newPoster(socket, dbPath, c.writers)
		defer post.client.CloseIdleConnections()
	}

	var (
		measuring atomic.Bool
		stop      atomic.Bool
		wg        sync.WaitGroup
		lats      = make([][]time.Duration, c.writers)
		errs      atomic.Int64
		errOnce   sync.Once
	)
	for w := range c.writers {
		wg.Go(func() {
			ctx := context.Background()
			for i := int64(1); !stop.Load(); i++ {
				t0 := time.Now()
				_, err := db.ExecContext(ctx, `INSERT INTO t (id, writer, payload) VALUES (?, ?, ?)`, int64(w)<<32|i, w, "acknowledged means replicated")
				if err == nil && post != nil {
					err = post.sync(ctx)
				}
				d := time.Since(t0)
				if err != nil {
					if measuring.Load() {
						errs.Add(1)
						errOnce.Do(func() { m.firstErr = err.Error() })
					}
					continue
				}
				if measuring.Load() {
					lats[w] = append(lats[w], d)
				}
			}
		})
	}
	time.Sleep(cfg.warmup)
	l0 := filepath.Join(replica, "ltx", "0")
	uploads0 := countLTX(l0)
	st0, err := sqlite3.Stats(context.Background(), db)
	if err != nil {
		stop.Store(true)
		wg.Wait()
		return m, err
	}
	measuring.Store(true)
	start := time.Now()
	time.Sleep(cfg.duration)
	measuring.Store(false)
	m.wall = time.Since(start)
	st1, _ := sqlite3.Stats(context.Background(), db)
	m.uploads = countLTX(l0) - uploads0
	stop.Store(true)
	wg.Wait()

	var all []time.Duration
	for _, l := range lats {
		all = append(all, l...)
	}
	slices.Sort(all)
	m.writes = len(all)
	m.p50, m.p99 = percentile(all, 50), percentile(all, 99)
	m.confirmations = st1.Replications - st0.Replications
	m.confirmed = st1.ReplicatedWrites - st0.ReplicatedWrites
	m.errors = int(errs.Load())
	if ls.exited() {
		return m, fmt.Errorf("litestream exited during the case: %v\n%s", ls.err, tail(filepath.Join(dir, "litestream.log")))
	}
	return m, nil
}

// percentile is the nearest-rank percentile p (0-100) of sorted d.
func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	i := int(math.Ceil(p/100*float64(len(d)))) - 1
	return d[max(0, min(i, len(d)-1))]
}

// countLTX counts the LTX files in dir (Litestream names them
// <min>-<max>.ltx; level 0 holds one per upload of a sync until
// compaction, 30 s, and L0 retention, 5 min, remove them).
func countLTX(dir string) int {
	entries, _ := os.ReadDir(dir)
	n := 0
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".ltx") {
			n++
		}
	}
	return n
}

// ---- POST /sync per write ----

// poster is what an application does today: after each write, its own
// POST /sync {"path", "wait": true} on the control socket, through
// net/http, keeping a connection per writer.
type poster struct {
	client *http.Client
	body   []byte
}

func newPoster(socket, dbPath string, writers int) *poster {
	body, _ := json.Marshal(map[string]any{"path": dbPath, "wait": true, "timeout": 10})
	return &poster{
		body: body,
		client: &http.Client{
			Timeout: 15 * time.Second,
			Transport: &http.Transport{
				DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
					return (&net.Dialer{}).DialContext(ctx, "unix", socket)
				},
				MaxIdleConnsPerHost: writers,
			},
		},
	}
}

func (p *poster) sync(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, "POST", "http://litestream/sync", bytes.NewReader(p.body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := p.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var a struct {
		Status string `json:"status"`
		Error  string `json:"error"`
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, &a); err != nil {
		return fmt.Errorf("POST /sync: %s: %.200s", resp.Status, b)
	}
	if resp.StatusCode != 200 {
		return fmt.Errorf("POST /sync: %s: %s", resp.Status, a.Error)
	}
	// As litestream sync -wait reads it (and the driver): a 200 answer to
	// a request that waited says the upload is done; its replicated_txid
	// trails its txid when another request's sync ran meanwhile.
	if a.Status != "synced" && a.Status != "no_change" {
		return fmt.Errorf("POST /sync: answered %q, not that it waited", a.Status)
	}
	return nil
}

// ---- Litestream ----

// The process handling here is the few lines this program needs of
// integration/internal/sidecar (another module's internal package).
type litestream struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

// startLitestream writes dir/litestream.yml, starts `litestream replicate`
// and returns once its control socket answers a POST /sync of the
// database (it is open and replicated).
func startLitestream(bin, dir, dbPath, replica, socket string) (*litestream, error) {
	cfgPath := filepath.Join(dir, "litestream.yml")
	logPath := filepath.Join(dir, "litestream.log")
	yml := fmt.Sprintf("socket:\n  enabled: true\n  path: %s\ndbs:\n  - path: %s\n    replica:\n      type: file\n      path: %s\n", socket, dbPath, replica)
	if err := os.WriteFile(cfgPath, []byte(yml), 0o644); err != nil {
		return nil, err
	}
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "replicate", "-config", cfgPath)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, err
	}
	ls := &litestream{cmd: cmd, done: make(chan struct{})}
	go func() {
		ls.err = cmd.Wait()
		f.Close()
		close(ls.done)
	}()
	p := newPoster(socket, dbPath, 1)
	defer p.client.CloseIdleConnections()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := p.sync(ctx)
		cancel()
		if err == nil {
			return ls, nil
		}
		if ls.exited() || time.Now().After(deadline) {
			ls.stop()
			return nil, fmt.Errorf("litestream did not answer POST /sync: %v\n%s", err, tail(logPath))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (ls *litestream) exited() bool {
	select {
	case <-ls.done:
		return true
	default:
		return false
	}
}

// stop ends Litestream with SIGTERM (SIGKILL after 10 s).
func (ls *litestream) stop() {
	if ls.exited() {
		return
	}
	ls.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-ls.done:
	case <-time.After(10 * time.Second):
		ls.cmd.Process.Kill()
		<-ls.done
	}
}

func tail(path string) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-20):], "\n")
}

// ---- the table ----

// writeTable writes one row per sync level and writer count: each mode's
// writes/s and p50/p99 (medians over the rounds), wait's writes per upload
// and per confirmation, and wait's throughput over post's and plain's.
func writeTable(w io.Writer, cfg config, results map[acase][]measured) {
	med := medianOf(results)
	rate := func(m measured) float64 { return m.rate() }
	p50 := func(m measured) float64 { return ms(m.p50) }
	p99 := func(m measured) float64 { return ms(m.p99) }
	perUpload := func(m measured) float64 { return ratio(m.writes, m.uploads) }
	perConf := func(m measured) float64 {
		if m.confirmations == 0 {
			return math.NaN()
		}
		return float64(m.confirmed) / float64(m.confirmations)
	}
	fmt.Fprint(w, "| sync | writers |")
	for _, mode := range cfg.modes {
		fmt.Fprintf(w, " %s: writes/s | p50 ms | p99 ms | writes/upload |", mode)
	}
	has := func(m string) bool { return slices.Contains(cfg.modes, m) }
	if has("wait") {
		fmt.Fprint(w, " wait: writes/confirmation |")
		if has("post") {
			fmt.Fprint(w, " wait / post |")
		}
		if has("plain") {
			fmt.Fprint(w, " wait / plain |")
		}
	}
	fmt.Fprintln(w)
	cols := 2 + 4*len(cfg.modes)
	if has("wait") {
		cols++
		if has("post") {
			cols++
		}
		if has("plain") {
			cols++
		}
	}
	fmt.Fprintln(w, "|"+strings.Repeat("---|", cols))
	for _, s := range cfg.syncs {
		for _, n := range cfg.writers {
			fmt.Fprintf(w, "| %s | %d |", s, n)
			for _, mode := range cfg.modes {
				c := acase{mode, s, n}
				fmt.Fprintf(w, " %.0f | %.2f | %.2f | %s |", med(c, rate), med(c, p50), med(c, p99), perUploadString(med(c, perUpload)))
			}
			if has("wait") {
				wc := acase{"wait", s, n}
				fmt.Fprintf(w, " %.1f |", med(wc, perConf))
				if has("post") {
					fmt.Fprintf(w, " %.1fx |", med(wc, rate)/med(acase{"post", s, n}, rate))
				}
				if has("plain") {
					fmt.Fprintf(w, " %.2fx |", med(wc, rate)/med(acase{"plain", s, n}, rate))
				}
			}
			fmt.Fprintln(w)
		}
	}
}

// medianOf returns the median over a case's rounds of f of each, NaN for a
// case that did not run.
func medianOf(results map[acase][]measured) func(acase, func(measured) float64) float64 {
	return func(c acase, f func(measured) float64) float64 {
		var v []float64
		for _, m := range results[c] {
			v = append(v, f(m))
		}
		if len(v) == 0 {
			return math.NaN()
		}
		slices.Sort(v)
		if len(v)%2 == 1 {
			return v[len(v)/2]
		}
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
}

// perUploadString prints writes per upload; "-" when Litestream uploaded
// nothing in the measured time (plain: its one-second sync may fall just
// outside a short one).
func perUploadString(v float64) string {
	if math.IsInf(v, 1) || math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.1f", v)
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "replicate:", err)
	os.Exit(1)
}
