// Package sidecar runs Litestream (v0.5.x) as a process beside a program of
// this module, reads its log, and checks what `litestream restore` gives
// back: what the sidecar programs (integration/litestream,
// integration/litestreamack) share.
//
// Litestream is a program next to them, not a dependency: this module needs
// nothing of Litestream's.
package sidecar

import (
	"bufio"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"
)

// Install is how to get the Litestream binary the programs are made for.
const Install = "go install github.com/benbjohnson/litestream/cmd/litestream@v0.5.18"

// ---- Litestream, the process ----

// Litestream is a running `litestream replicate -config FILE`.
type Litestream struct {
	cmd  *exec.Cmd
	done chan struct{}
	err  error // Wait's, once done is closed
}

// Start starts `bin replicate -config cfgPath`, its output (stdout and
// stderr) going to logPath (created or truncated).
func Start(bin, cfgPath, logPath string) (*Litestream, error) {
	f, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, "replicate", "-config", cfgPath)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s (%s): %w", bin, Install, err)
	}
	s := &Litestream{cmd: cmd, done: make(chan struct{})}
	go func() {
		s.err = cmd.Wait()
		f.Close()
		close(s.done)
	}()
	return s, nil
}

// Exited tells whether the process has ended.
func (s *Litestream) Exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// Err is how the process ended (Wait's error), once Exited.
func (s *Litestream) Err() error {
	<-s.done
	return s.err
}

// Stop sends SIGTERM and waits at most timeout for a clean exit (then
// kills it).
func (s *Litestream) Stop(timeout time.Duration) error {
	if s.Exited() {
		return fmt.Errorf("exited before SIGTERM: %v", s.err)
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case <-s.done:
		return s.err
	case <-time.After(timeout):
		s.Kill()
		return fmt.Errorf("still running %s after SIGTERM: killed", timeout)
	}
}

// Kill sends SIGKILL, unless the process has ended, and waits for it.
func (s *Litestream) Kill() {
	if !s.Exited() {
		s.cmd.Process.Kill()
		<-s.done
	}
}

// ---- Litestream, its log ----

// LogSummary is what Litestream v0.5.18's text log says about its place in
// the WAL (db.go) and its uploads (replica.go). At debug level every sync
// of the WAL into an LTX file logs
//
//	msg=sync db=app.db txid=... offset=... [chkpt=true] [snap=true] [reason="..."]
//
// snap=true is a snapshot: a full copy of the database instead of the WAL's
// new frames. The first sync is one (no reason); any later one has a reason
// that says how Litestream lost its place: "wal truncated by another process",
// "wal header salt reset, snapshotting", "last page does not exist in last ltx
// file, wal overwritten by another process", "full or restart checkpoint
// detected, snapshotting" (verifyWithExecutor), or "checkpoint boundary
// snapshot" after its own TRUNCATE checkpoint (past truncate-page-n, logged
// as "forcing truncate checkpoint"). At trace level it says when it kept its
// place across a change of the WAL: "wal restarted" (new salts, its last
// frame still there: one restart since its last sync), "wal truncated after
// sync to end (expected checkpoint)", and "prev frame mismatch,
// snapshotting" (it reads the WAL again from its start). Its own checkpoints
// log "msg=checkpoint mode=PASSIVE result=busy,log,checkpointed" (debug).
// "snapshot complete" (info) is the store's level-9 snapshot, once at start
// and then every snapshot interval (24 h by default): not a lost place.
// Every LTX file written to the replica logs "msg=\"ltx file uploaded\"
// level=N" (debug): level 0 is one sync's new transactions, the higher
// levels are compactions.
type LogSummary struct {
	Snapshots   int            // sync lines with snap=true
	Reasons     map[string]int // their reasons
	Events      map[string]int // the trace and info lines about the WAL above
	Lines       []string       // the lines that matter, for the report
	StoreSnaps  int            // "snapshot complete" (level 9)
	Checkpoints map[string]int // Litestream's own, by mode and busy flag
	Syncs       int
	Uploads     map[string]int // LTX files written to the replica, by level
	Errors      int
	Warnings    int
}

// walEvents are the messages counted in LogSummary.Events.
var walEvents = []string{
	"wal restarted",
	"wal truncated after sync to end (expected checkpoint)",
	"prev frame mismatch, snapshotting",
	"forcing truncate checkpoint",
	"wal restarted by passive checkpoint, skipping truncate checkpoint",
	"checkpoint skipped, snapshot in progress",
	"passive checkpoint skipped",
}

// ReadLog reads a log Litestream wrote at debug or trace level, text format.
func ReadLog(path string) (*LogSummary, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lg := &LogSummary{Reasons: map[string]int{}, Events: map[string]int{}, Checkpoints: map[string]int{}, Uploads: map[string]int{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	keep := func(line string) {
		if len(lg.Lines) < 40 {
			lg.Lines = append(lg.Lines, line)
		}
	}
	for sc.Scan() {
		line := sc.Text()
		msg := Attr(line, "msg")
		switch {
		case msg == "sync":
			lg.Syncs++
			if Attr(line, "snap") == "true" {
				lg.Snapshots++
				lg.Reasons[Attr(line, "reason")]++
				keep(line)
			}
		case msg == "ltx file uploaded":
			// Its level=N comes after slog's own level=DEBUG.
			lg.Uploads[Attr(line[strings.Index(line, " msg="):], "level")]++
		case msg == "snapshot complete":
			lg.StoreSnaps++
			keep(line)
		case msg == "checkpoint":
			res, _, _ := strings.Cut(Attr(line, "result"), ",")
			lg.Checkpoints[Attr(line, "mode")+" busy="+res]++
		case slices.Contains(walEvents, msg):
			if lg.Events[msg] < 3 {
				keep(line)
			}
			lg.Events[msg]++
		}
		switch Attr(line, "level") {
		case "ERROR":
			lg.Errors++
			keep(line)
		case "WARN":
			lg.Warnings++
			keep(line)
		}
	}
	return lg, sc.Err()
}

// Report prints the summary and the lines that matter.
func (lg *LogSummary) Report() {
	fmt.Printf("Litestream log: %d syncs, %d snapshots (%s), %d store snapshots (\"snapshot complete\"), own checkpoints: %s, %d warnings, %d errors\n",
		lg.Syncs, lg.Snapshots, MapString(lg.Reasons, "first sync"), lg.StoreSnaps, MapString(lg.Checkpoints, ""), lg.Warnings, lg.Errors)
	fmt.Printf("Litestream kept its place: %s\n", MapString(lg.Events, ""))
	for _, l := range lg.Lines {
		fmt.Println("  |", l)
	}
}

// Attr returns the value of key=value in a slog text line ("" if absent).
func Attr(line, key string) string {
	i := strings.Index(line, " "+key+"=")
	if i < 0 {
		if !strings.HasPrefix(line, key+"=") {
			return ""
		}
		i = -1
	}
	v := line[i+len(key)+2:]
	if strings.HasPrefix(v, `"`) {
		// A quoted value: up to the next unescaped quote.
		for j := 1; j < len(v); j++ {
			if v[j] == '\\' {
				j++
				continue
			}
			if v[j] == '"' {
				return strings.ReplaceAll(v[1:j], `\"`, `"`)
			}
		}
		return v[1:]
	}
	v, _, _ = strings.Cut(v, " ")
	return v
}

// ---- the restored database ----

// Restored is what a restored database holds.
type Restored struct {
	IDs       map[int64]struct{} // the ids of the table
	Integrity string             // PRAGMA integrity_check's lines, joined with "; "
}

// ReadRestored opens the database at path (with the sqlite3 driver, which
// the program imports), runs PRAGMA integrity_check and reads column id of
// table.
func ReadRestored(path, table string) (*Restored, error) {
	db, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=5000")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	var lines []string
	rows, err := db.Query(`PRAGMA integrity_check`)
	if err != nil {
		return nil, fmt.Errorf("integrity_check of the restored database: %w", err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return nil, err
		}
		lines = append(lines, s)
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	r := &Restored{IDs: map[int64]struct{}{}, Integrity: strings.Join(lines, "; ")}
	rows, err = db.Query(`SELECT id FROM ` + table)
	if err != nil {
		return nil, fmt.Errorf("read the restored rows: %w", err)
	}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, err
		}
		r.IDs[id] = struct{}{}
	}
	return r, rows.Close()
}

// Missing returns how many of ids the restored database lacks, and the
// first of them.
func (r *Restored) Missing(ids []int64) (n int, first int64) {
	for _, id := range ids {
		if _, ok := r.IDs[id]; !ok {
			if n == 0 {
				first = id
			}
			n++
		}
	}
	return n, first
}

// ---- small things ----

// MaxTXID returns the largest transaction ID of the LTX files in dir, as
// Litestream names them (<min>-<max>.ltx, fixed-width hex), or "".
func MaxTXID(dir string) string {
	entries, _ := os.ReadDir(dir)
	best := ""
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".ltx") {
			continue
		}
		_, hi, ok := strings.Cut(strings.TrimSuffix(name, ".ltx"), "-")
		if ok && hi > best {
			best = hi
		}
	}
	return best
}

// WaitFor polls f every interval until it is true, fails, or timeout passes.
func WaitFor(timeout, interval time.Duration, f func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	for {
		ok, err := f()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return errors.New("timed out after " + timeout.String())
		}
		time.Sleep(interval)
	}
}

// Tail returns the last n lines of the file at path.
func Tail(path string, n int) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// MapString prints m sorted by key, "k: v, ...", the empty key as empty.
func MapString(m map[string]int, empty string) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		name := k
		if name == "" {
			name = empty
		}
		parts = append(parts, fmt.Sprintf("%s: %d", name, m[k]))
	}
	return strings.Join(parts, ", ")
}

// Round rounds d for printing: milliseconds past a second, 10 µs past a
// millisecond, else microseconds.
func Round(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	default:
		return d.Round(time.Microsecond)
	}
}
