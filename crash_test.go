//go:build cgo

package sqlite3

// Crash safety: a child process (this test binary, re-executed) commits
// transactions to a database file and reports each one on stdout once Commit
// has returned; the parent kills it with SIGKILL at a random moment, reopens
// the file and checks that it is intact, that every reported transaction is
// there, and that no transaction is there in part.
//
// SIGKILL is an application crash: the kernel keeps what the process wrote,
// so the WAL mode runs with the default synchronous=NORMAL, which SQLite makes
// durable across application crashes (not power loss); the rollback-journal
// mode runs with synchronous=FULL. Power loss is out of reach of a test.
//
//	CRASH_CYCLES=200 go test -run 'TestCrash' -v .   # more kill cycles (default 20 per mode, 5 with -short)

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// crashChildEnv carries the child's job, "mode|dsn|base": the journal mode
// under test, the DSN to write to, and the first id of this cycle.
const crashChildEnv = "FASTSQLITE_CRASH_CHILD"

// Each writer of the child numbers its transactions base + writer*crashIDSpan + i.
const (
	crashMaxWriters = 8
	crashIDSpan     = 1_000_000
	crashRowsTx     = 3 // rows per transaction, all with the transaction's id
)

// crashModes are the ways to make commits durable that the test covers,
// each also with group commit (group.go): more writers, so that groups form,
// half of them writing one autocommit statement (its trigger writes the
// transaction's rows) instead of a transaction.
var crashModes = []struct {
	name    string
	dsn     string // parameters added to the file name
	writers int
}{
	{"WAL", "_journal_mode=WAL&_txlock=immediate&_busy_timeout=10000", 2},
	{"rollback-FULL", "_journal_mode=DELETE&_sync=FULL&_txlock=immediate&_busy_timeout=10000", 2},
	{"WAL-grouped", "_journal_mode=WAL&_txlock=immediate&_busy_timeout=10000&_group_commit=1", crashMaxWriters},
	{"WAL-FULL-grouped", "_journal_mode=WAL&_sync=FULL&_txlock=immediate&_busy_timeout=10000&_group_commit=1", crashMaxWriters},
	{"rollback-FULL-grouped", "_journal_mode=DELETE&_sync=FULL&_txlock=immediate&_busy_timeout=10000&_group_commit=1", crashMaxWriters},
}

// crashWriters is how many writers mode's child runs.
func crashWriters(mode string) int {
	for _, m := range crashModes {
		if m.name == mode {
			return m.writers
		}
	}
	return 0
}

// TestCrashChild is the child process of TestCrashRecovery; run on its own it
// does nothing.
func TestCrashChild(t *testing.T) {
	job := os.Getenv(crashChildEnv)
	if job == "" {
		t.Skip("helper process of TestCrashRecovery (runs only when re-executed with " + crashChildEnv + ")")
	}
	parts := strings.SplitN(job, "|", 3)
	if len(parts) != 3 {
		crashChildFail("bad job %q", job)
	}
	mode, dsn := parts[0], parts[1]
	base, err := strconv.ParseInt(parts[2], 10, 64)
	if err != nil {
		crashChildFail("bad base: %v", err)
	}
	db, err := sql.Open("sqlite3", dsn)
	if err != nil {
		crashChildFail("open: %v", err)
	}
	writers := crashWriters(mode)
	grouped := strings.Contains(dsn, "_group_commit=1")
	db.SetMaxOpenConns(writers + 1)
	db.SetMaxIdleConns(writers + 1)
	if _, err := db.Exec(`CREATE TABLE IF NOT EXISTS t(id INTEGER NOT NULL, k INTEGER NOT NULL, payload BLOB, PRIMARY KEY(id, k));
		CREATE TABLE IF NOT EXISTS tally(id INTEGER PRIMARY KEY, n INTEGER NOT NULL);
		CREATE TABLE IF NOT EXISTS auto(id INTEGER PRIMARY KEY);
		CREATE TRIGGER IF NOT EXISTS auto_tx AFTER INSERT ON auto BEGIN
			INSERT INTO t(id, k, payload) VALUES (new.id, 0, randomblob(abs(random()) % 12000)),
				(new.id, 1, randomblob(abs(random()) % 12000)), (new.id, 2, randomblob(abs(random()) % 12000));
			INSERT INTO tally(id, n) VALUES (new.id, 3);
		END`); err != nil {
		crashChildFail("schema: %v", err)
	}
	// One write(2) per line, so that a line is either whole or missing.
	var outMu sync.Mutex
	report := func(line string) {
		outMu.Lock()
		defer outMu.Unlock()
		if _, err := os.Stdout.WriteString(line + "\n"); err != nil {
			os.Exit(3)
		}
	}
	report("READY")
	for w := 0; w < writers; w++ {
		go func(w int) {
			rng := rand.New(rand.NewSource(time.Now().UnixNano() + int64(w)))
			for i := int64(0); ; i++ {
				id := base + int64(w)*crashIDSpan + i
				var err error
				if grouped && w%2 == 1 {
					_, err = db.Exec("INSERT INTO auto(id) VALUES (?)", id) // one statement: its trigger writes the rows
				} else {
					err = crashChildTx(db, rng, id)
				}
				if err != nil {
					crashChildFail("writer %d, transaction %d: %v", w, id, err)
				}
				report("COMMIT " + strconv.FormatInt(id, 10))
				if grouped {
					report("GROUPED " + strconv.FormatInt(groupStats.units.Load(), 10))
				}
				if mode == "WAL" && w == 0 && i%25 == 24 {
					// Checkpoints too can be interrupted by the kill.
					if _, err := db.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
						crashChildFail("checkpoint: %v", err)
					}
				}
			}
		}(w)
	}
	// Never reached in a normal run: the parent kills the child long before.
	time.Sleep(60 * time.Second)
	crashChildFail("not killed within 60 s")
}

// crashChildTx writes one transaction: crashRowsTx rows with the same id and
// payloads of random sizes (some larger than a page), and a tally row.
func crashChildTx(db *sql.DB, rng *rand.Rand, id int64) error {
	tx, err := db.BeginTx(context.Background(), nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for k := 0; k < crashRowsTx; k++ {
		payload := make([]byte, rng.Intn(12000))
		rng.Read(payload)
		if _, err := tx.Exec("INSERT INTO t(id, k, payload) VALUES(?, ?, ?)", id, k, payload); err != nil {
			return err
		}
	}
	if _, err := tx.Exec("INSERT INTO tally(id, n) VALUES(?, ?)", id, crashRowsTx); err != nil {
		return err
	}
	return tx.Commit()
}

func crashChildFail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "crash child: "+format+"\n", args...)
	os.Exit(2)
}

// crashCycles is CRASH_CYCLES, or the default for the run.
func crashCycles(t *testing.T) int {
	if v := os.Getenv("CRASH_CYCLES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			t.Fatalf("CRASH_CYCLES=%q: want a positive integer", v)
		}
		return n
	}
	if testing.Short() {
		return 5
	}
	return 20
}

func TestCrashRecovery(t *testing.T) {
	if runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("needs to kill a re-executed test binary")
	}
	if os.Getenv(crashChildEnv) != "" {
		t.Skip("inside the child")
	}
	cycles := crashCycles(t)
	for _, mode := range crashModes {
		t.Run(mode.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "crash.db")
			dsn := path + "?" + mode.dsn
			rng := rand.New(rand.NewSource(time.Now().UnixNano()))
			reported := map[int64]bool{} // every id a child reported committed, all cycles
			var totalCommits, earlyKills, unreported, groupedWrites int
			for cycle := 0; cycle < cycles; cycle++ {
				base := int64(cycle+1) * crashMaxWriters * crashIDSpan
				ids, grouped, early := crashRunChild(t, rng, mode.name, dsn, base)
				groupedWrites += grouped
				if early {
					earlyKills++
				}
				for _, id := range ids {
					reported[id] = true
				}
				totalCommits += len(ids)
				unreported += crashVerify(t, path, cycle, base, mode.writers, reported)
				if t.Failed() {
					return
				}
			}
			t.Logf("%s: %d kill cycles (%d before the child was ready), %d commits reported and verified, %d committed but killed before reporting, %d writes committed in groups",
				mode.name, cycles, earlyKills, totalCommits, unreported, groupedWrites)
			if strings.Contains(mode.dsn, "_group_commit=1") && totalCommits > 100 && groupedWrites == 0 {
				t.Errorf("%s: no write shared a commit", mode.name)
			}
		})
	}
}

// crashRunChild runs one child, kills it with SIGKILL after a random delay and
// returns the ids it reported committed. Most kills come a few ms to 100 ms
// after the child is ready; one cycle in five kills it during start-up, while
// it opens (and so recovers) the database.
func crashRunChild(t *testing.T, rng *rand.Rand, mode, dsn string, base int64) (ids []int64, grouped int, early bool) {
	t.Helper()
	cmd, stdout, stderr := crashStartChild(t, crashChildEnv+"="+mode+"|"+dsn+"|"+strconv.FormatInt(base, 10))
	lines := make(chan string, 1024)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	early = rng.Intn(5) == 0
	var kill <-chan time.Time
	if early {
		kill = time.After(time.Duration(rng.Int63n(int64(40 * time.Millisecond))))
	}
	ready, endedByItself := false, false
	deadline := time.After(60 * time.Second)
	collect := func(line string) {
		switch {
		case line == "READY":
			ready = true
		case strings.HasPrefix(line, "GROUPED "):
			n, _ := strconv.Atoi(strings.TrimPrefix(line, "GROUPED "))
			grouped = max(grouped, n)
		case strings.HasPrefix(line, "COMMIT "):
			id, err := strconv.ParseInt(strings.TrimPrefix(line, "COMMIT "), 10, 64)
			if err != nil {
				t.Errorf("child printed %q", line)
			}
			ids = append(ids, id)
		}
	}
wait:
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				endedByItself = true
				break wait
			}
			collect(line)
			if line == "READY" && !early {
				kill = time.After(2*time.Millisecond + time.Duration(rng.Int63n(int64(98*time.Millisecond))))
			}
		case <-kill:
			break wait
		case <-deadline:
			t.Errorf("child not ready after 60 s")
			break wait
		}
	}
	_ = cmd.Process.Kill() // SIGKILL; TerminateProcess on Windows
	for line := range lines {
		collect(line) // whole lines still in the pipe were reported before the kill
	}
	err := cmd.Wait()
	if !crashKilled(cmd.ProcessState, endedByItself) {
		t.Fatalf("child exited by itself (%v) instead of being killed:\n%s", err, stderr.String())
	}
	if !ready && !early {
		t.Fatalf("child never became ready:\n%s", stderr.String())
	}
	return ids, grouped, early
}

// crashStartChild starts a child with env added to its environment, trying
// three times: Wine's CreateProcess fails now and then ("Internal error")
// while it is still ending the child killed just before. A child that never
// started ran nothing of the driver, so trying again hides no failure.
// Not a t.Helper: its log line must name the t.Logf here, or the platforms
// step's tally (scripts/testtally) cannot tell it from a failure message.
func crashStartChild(t *testing.T, env string) (*exec.Cmd, io.Reader, *strings.Builder) {
	for attempt := 1; ; attempt++ {
		cmd := testBinaryCommand("-test.run=^TestCrashChild$", "-test.count=1", "-test.timeout=2m")
		cmd.Env = append(os.Environ(), env)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		stderr := new(strings.Builder)
		cmd.Stderr = stderr
		if err = cmd.Start(); err == nil {
			return cmd, stdout, stderr
		}
		if attempt == 3 {
			t.Fatal(err)
		}
		t.Logf("the child did not start (attempt %d): %v", attempt, err)
		time.Sleep(100 * time.Millisecond)
	}
}

// crashKilled reports whether the child ended by the parent's kill. Windows
// has no signals: TerminateProcess, which Kill calls, ends the process with
// exit code 1, which a child's own failure also gives, so there the child
// must also have been running (its output still open) when it was killed.
func crashKilled(state *os.ProcessState, endedByItself bool) bool {
	if runtime.GOOS == "windows" {
		return !endedByItself && state.ExitCode() == 1
	}
	ws, ok := state.Sys().(interface{ Signaled() bool })
	return ok && ws.Signaled()
}

// crashVerify reopens the database after a kill and checks it: integrity, all
// reported transactions present, none present in part, and for each writer the
// committed transactions form an unbroken run (a commit never disappears once
// a later one is visible). It returns how many transactions of this cycle were
// committed but not reported (at most one per writer: the one in flight).
func crashVerify(t *testing.T, path string, cycle int, base int64, writers int, reported map[int64]bool) int {
	t.Helper()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	rows, err := db.Query("PRAGMA integrity_check")
	if err != nil {
		t.Fatalf("cycle %d: integrity_check: %v", cycle, err)
	}
	var problems []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		problems = append(problems, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("cycle %d: integrity_check: %v", cycle, err)
	}
	rows.Close()
	if len(problems) != 1 || problems[0] != "ok" {
		t.Fatalf("cycle %d: integrity_check after SIGKILL: %q", cycle, problems)
	}
	var tables int
	if err := db.QueryRow("SELECT count(*) FROM sqlite_schema WHERE name IN ('t', 'tally')").Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if tables < 2 {
		if len(reported) > 0 {
			t.Fatalf("cycle %d: %d of the 2 tables left after %d reported commits", cycle, tables, len(reported))
		}
		// Killed before the schema was ever committed, or between its two
		// CREATE TABLEs (each commits on its own).
		return 0
	}

	// Every transaction is all there or not at all: crashRowsTx rows in t and
	// its tally row.
	partial, err := db.Query(`SELECT id, count(*), (SELECT n FROM tally WHERE tally.id = t.id) FROM t GROUP BY id HAVING count(*) != ? OR (SELECT n FROM tally WHERE tally.id = t.id) IS NOT ?
		UNION ALL SELECT id, 0, n FROM tally WHERE id NOT IN (SELECT id FROM t)`, crashRowsTx, crashRowsTx)
	if err != nil {
		t.Fatal(err)
	}
	for partial.Next() {
		var id, n int64
		var tally sql.NullInt64
		if err := partial.Scan(&id, &n, &tally); err != nil {
			t.Fatal(err)
		}
		t.Errorf("cycle %d: transaction %d is partial: %d rows in t, tally %v", cycle, id, n, tally)
	}
	if err := partial.Err(); err != nil {
		t.Fatal(err)
	}
	partial.Close()

	present := map[int64]bool{}
	all, err := db.Query("SELECT id FROM tally")
	if err != nil {
		t.Fatal(err)
	}
	for all.Next() {
		var id int64
		if err := all.Scan(&id); err != nil {
			t.Fatal(err)
		}
		present[id] = true
	}
	if err := all.Err(); err != nil {
		t.Fatal(err)
	}
	all.Close()
	var lost []int64
	for id := range reported {
		if !present[id] {
			lost = append(lost, id)
		}
	}
	if len(lost) > 0 {
		sort.Slice(lost, func(i, j int) bool { return lost[i] < lost[j] })
		t.Fatalf("cycle %d: %d transactions reported committed are missing after SIGKILL, e.g. %v", cycle, len(lost), lost[:min(len(lost), 10)])
	}
	unreported := 0
	for w := int64(0); w < int64(writers); w++ {
		first := base + w*crashIDSpan
		n := int64(0)
		for present[first+n] {
			n++
		}
		for id := range present {
			if id >= first+n && id < first+crashIDSpan {
				t.Errorf("cycle %d: writer %d: transaction %d committed but %d, before it, is missing", cycle, w, id, first+n)
			}
		}
		if n > 0 && !reported[first+n-1] {
			unreported++
		}
		for i := int64(0); i < n-1; i++ {
			if !reported[first+i] {
				t.Errorf("cycle %d: writer %d: transaction %d committed, not reported, yet not the last one", cycle, w, first+i)
			}
		}
	}
	return unreported
}
