package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Outcomes of one test run in its own process.
const (
	pass    = "PASS"
	skip    = "SKIP"
	fail    = "FAIL"
	timeout = "TIMEOUT" // hung: killed by -test.timeout or, failing that, by us
	crash   = "CRASH"   // the process died without a test verdict (panic, signal)
)

type result struct {
	status string
	out    string // the run's output, for the failure excerpt
	flaky  string // set when it passed only when run again: how it failed first
}

// runOne runs the test (or example) name alone, from the test binary bin.
func runOne(bin, name string, limit time.Duration) result {
	text, hung, err := runProcess(bin, limit, "-test.run", "^"+regexp.QuoteMeta(name)+"$",
		"-test.v", "-test.count=1", "-test.timeout", limit.String())
	switch {
	case hung || strings.Contains(text, "panic: test timed out"):
		return result{status: timeout, out: text}
	case err == nil && strings.Contains(text, "\n--- SKIP: "+name+" ") && !strings.Contains(text, "\n--- PASS: "+name+" "):
		return result{status: skip, out: text}
	case err == nil:
		return result{status: pass, out: text}
	case strings.Contains(text, "--- FAIL: "+name+" ") && !strings.Contains(text, "\npanic: ") && !strings.Contains(text, "\nfatal error: "):
		return result{status: fail, out: text}
	}
	return result{status: crash, out: text}
}

// runProcess runs bin in a fresh working and temporary directory, so that
// runs in parallel do not share files, and kills its process group if it
// outlives limit by a margin (a test binary's own -test.timeout comes first
// and prints where it hung).
func runProcess(bin string, limit time.Duration, args ...string) (out string, hung bool, err error) {
	tmp, err := os.MkdirTemp("", "mattn-suite-run-")
	if err != nil {
		return err.Error(), false, err
	}
	defer func() {
		_ = exec.Command("chmod", "-R", "u+w", tmp).Run()
		os.RemoveAll(tmp)
	}()
	ctx, cancel := context.WithTimeout(context.Background(), limit+15*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var buf bytes.Buffer
	cmd.Stdout = &capped{buf: &buf, max: 1 << 20}
	cmd.Stderr = cmd.Stdout
	err = cmd.Run()
	if cmd.Process != nil {
		// Children the program left behind would hold the pipe; end the group.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	return buf.String(), ctx.Err() != nil, err
}

// A capped writer keeps the first max bytes: a test that loops printing must
// not fill the memory.
type capped struct {
	mu  sync.Mutex
	buf *bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// excerpt gives the first lines of a failure that say something: not the
// "=== RUN" lines, nor goroutine dumps past the panic's first lines.
func excerpt(out string, lines int) string {
	var keep []string
	seen := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		t := strings.TrimSpace(l)
		if t == "" || seen[t] || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "# ") || strings.HasPrefix(t, "--- FAIL: ") || strings.HasPrefix(t, "--- PASS: ") ||
			t == "FAIL" || t == "PASS" || strings.HasPrefix(t, "exit status") || strings.HasPrefix(t, "goroutine ") {
			continue
		}
		seen[t] = true
		if len(t) > 160 {
			t = t[:157] + "..."
		}
		keep = append(keep, t)
		if len(keep) == lines {
			break
		}
	}
	if len(keep) == 0 {
		return "(no output beyond the verdict)"
	}
	return strings.Join(keep, "\n")
}

// runAll runs every job in up to par processes at a time.
func runAll(jobs []job, par int, limit time.Duration) {
	ch := make(chan *job)
	var wg sync.WaitGroup
	for range par {
		wg.Go(func() {
			for j := range ch {
				j.res = runOne(j.bin, j.name, limit)
			}
		})
	}
	for i := range jobs {
		ch <- &jobs[i]
	}
	close(ch)
	wg.Wait()
}

type job struct {
	bin, name string
	res       result
}

// listTests asks a test binary for its tests and examples (benchmarks are not
// run: they measure, they do not check).
func listTests(bin string) ([]string, error) {
	out, err := exec.Command(bin, "-test.list", ".").Output()
	if err != nil {
		return nil, fmt.Errorf("%s -test.list: %v", bin, err)
	}
	var names []string
	for _, l := range strings.Fields(string(out)) {
		if strings.HasPrefix(l, "Test") || strings.HasPrefix(l, "Example") || strings.HasPrefix(l, "Fuzz") {
			names = append(names, l)
		}
	}
	return names, nil
}
