// Package runbench holds what the bench module's commands (compare,
// concurrency) share to build the drivers' programs, run them one process
// each, and read their benchmark lines.
package runbench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// ModuleRoot is the directory of the bench module, wherever the command runs.
func ModuleRoot() (string, error) {
	gomod, err := GoOutput("", "env", "GOMOD")
	if err != nil {
		return "", err
	}
	if filepath.Base(gomod) != "go.mod" {
		return "", errors.New("run inside the bench module (cd bench)")
	}
	return filepath.Dir(gomod), nil
}

func GoOutput(dir string, args ...string) (string, error) {
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}

// GoBuild runs go build -o out pkgs... in dir.
func GoBuild(dir, out string, pkgs ...string) error {
	cmd := exec.Command("go", append([]string{"build", "-o", out}, pkgs...)...)
	cmd.Dir = dir
	cmd.Stdout = os.Stderr
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build in %s: %w", dir, err)
	}
	return nil
}

// RunOne runs one driver's program and returns its output lines. The lines
// printed before a failure are kept.
func RunOne(bin string, args []string, timeout time.Duration) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	var lines []string
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	io.Copy(io.Discard, stdout)
	err = cmd.Wait()
	if ctx.Err() != nil {
		err = fmt.Errorf("timed out after %s", timeout)
	}
	if err != nil && stderr.Len() > 0 {
		err = fmt.Errorf("%w: %s", err, lastLines(stderr.String(), 5))
	}
	return lines, err
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

func CPUName() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

func ErrSuffix(err error) string {
	if err == nil {
		return ""
	}
	return "  (" + err.Error() + ")"
}

// ParseBenchLine parses "BenchmarkName-2  N  v unit  v unit ..." into the
// name without "Benchmark" and the -GOMAXPROCS suffix, and its metrics.
func ParseBenchLine(line string) (string, map[string]float64, bool) {
	f := strings.Fields(line)
	if len(f) < 4 || len(f)%2 != 0 || !strings.HasPrefix(f[0], "Benchmark") {
		return "", nil, false
	}
	name := strings.TrimPrefix(f[0], "Benchmark")
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		if _, err := strconv.Atoi(name[i+1:]); err == nil {
			name = name[:i]
		}
	}
	if _, err := strconv.Atoi(f[1]); err != nil {
		return "", nil, false
	}
	m := map[string]float64{}
	for i := 2; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return "", nil, false
		}
		m[f[i+1]] = v
	}
	return name, m, true
}
