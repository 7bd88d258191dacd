package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fastsqlite/sqlite3/bench/workload"
)

// Every Writers case is in a group, and every group has its shared case.
func TestWriterGroups(t *testing.T) {
	gs := writerGroups()
	if len(gs) != 21 {
		t.Fatalf("%d groups, want 21 (2 sizes × 4 writer counts × with and without readers, 4 counts of autocommit writers, 64 one-insert writers)", len(gs))
	}
	names := map[string]bool{}
	for _, c := range workload.ConcurrentCases {
		names[c.Name] = true
	}
	for _, g := range gs {
		if !names[g.name(workload.ModeShared)] {
			t.Errorf("%s: no case %s", g.title, g.name(workload.ModeShared))
		}
	}
}

func TestTables(t *testing.T) {
	r := newResults([]string{"ours", "mattn"})
	for _, l := range []string{
		"# DSN file:PATH?_journal_mode=WAL",
		"# settings journal_mode=wal synchronous=1",
		"BenchmarkWriters/mode=shared/inserts=50/writers=8/readers=0-2 800 1000 ns/op 4000 tx/s 0.1 p50-ms 9 p99-ms 30 max-ms 0 errors 0 busy-errors",
		"BenchmarkWriters/mode=shared/inserts=50/writers=8/readers=0-2 800 1000 ns/op 6000 tx/s 0.1 p50-ms 11 p99-ms 50 max-ms 2 errors 1 busy-errors",
		"BenchmarkWriters/mode=serial/inserts=50/writers=8/readers=0-2 800 1000 ns/op 9000 tx/s 0.1 p50-ms 1 p99-ms 2 max-ms 0 errors 0 busy-errors",
		"BenchmarkWALGrowth/readers=4-2 100 1000 ns/op 44 wal-max-MB 44 wal-end-MB 2000 rows/s 1 p99-ms 9 max-ms 0 errors 0 busy-errors",
		"# FAIL BenchmarkWALGrowth/readers=1: boom",
	} {
		r.addLine("ours", l)
	}
	var b bytes.Buffer
	r.writeTables(&b)
	out := b.String()
	for _, want := range []string{
		"| ours | `file:PATH?_journal_mode=WAL` | journal_mode=wal synchronous=1 |",
		"| 8 writers × 50-insert transactions | 5.00k (40.0) | | 9.00k (2.00) |",
		"| ours | 5.00k (4.00k–6.00k) | 0.100 | 10.0 (9.00–11.0) | 40.0 (30.0–50.0) | 2 (1 busy) |",
		"| ours: one serial writer | 9.00k | 0.100 | 1.00 | 2.00 | 0 |",
		"| mattn | — | — | — | — | — |",
		"| ours | 4 | 44.0 | 44.0 | 2.00k |",
		"- ours: BenchmarkWALGrowth/readers=1: boom",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("tables lack %q:\n%s", want, out)
		}
	}
}

// -report reads another build's lines from <driver>@<label>.txt, and the
// chart draws a bar for it in every group without readers.
func TestReportOtherBuildAndChart(t *testing.T) {
	dir := t.TempDir()
	line := "BenchmarkWriters/mode=shared/inserts=1/writers=16/readers=0-2 800 1000 ns/op 4000 tx/s 0.1 p50-ms 9 p99-ms 30 max-ms 0 errors 0 busy-errors\n"
	for name, max := range map[string]string{"ours.txt": "30", "ours@old.txt": "300"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(strings.Replace(line, "30 max-ms", max+" max-ms", 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := readResults(dir, []string{"ours", "mattn"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(r.drivers, ",") != "ours,ours@old" {
		t.Fatalf("drivers %v, want ours and ours@old", r.drivers)
	}
	var b bytes.Buffer
	r.writeChart(&b)
	svg := b.String()
	for _, want := range []string{"<title>ours: 30.0 ms</title>", "<title>ours@old: 300 ms</title>", "16 writers × one-insert transactions"} {
		if !strings.Contains(svg, want) {
			t.Errorf("chart lacks %q", want)
		}
	}
}
