package main

import (
	"bytes"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func sampleResults() *results {
	r := newResults(allDrivers, []string{"Exec", "IntScan", "QueryParallel"})
	lines := map[string][]string{
		"c":       {"BenchmarkExec-2 100 30 ns/op", "BenchmarkIntScan-2 5 50000000 ns/op", "# SKIP BenchmarkQueryParallel: no pool"},
		"nop":     {"BenchmarkExec-2 100 60 ns/op 32 B/op 1 allocs/op", "BenchmarkIntScan-2 5 90000000 ns/op 500 B/op 10 allocs/op", "BenchmarkQueryParallel-2 100 400 ns/op 0 B/op 0 allocs/op"},
		"ours":    {"BenchmarkExec-2 100 120 ns/op 0 B/op 0 allocs/op", "BenchmarkExec-2 100 140 ns/op 0 B/op 0 allocs/op", "BenchmarkIntScan-2 5 150000000 ns/op 600 B/op 12 allocs/op", "BenchmarkQueryParallel-2 100 800 ns/op 100 B/op 3 allocs/op"},
		"mattn":   {"BenchmarkExec-2 100 600 ns/op 200 B/op 5 allocs/op", "BenchmarkIntScan-2 5 600000000 ns/op 96000000 B/op 4000000 allocs/op", "# FAIL BenchmarkQueryParallel: boom"},
		"modernc": {"BenchmarkExec-2 100 900 ns/op 300 B/op 6 allocs/op"},
	}
	for d, ls := range lines {
		for _, l := range ls {
			r.addLine(d, l)
		}
	}
	return r
}

func TestTables(t *testing.T) {
	r := sampleResults()
	if med, spread, ok := r.median("ours", "Exec", "ns/op"); !ok || med != 130 || spread < 0.076 || spread > 0.077 {
		t.Errorf("median = %v ±%v, %v", med, spread, ok)
	}
	var b bytes.Buffer
	r.writeTables(&b, "ns/op")
	out := b.String()
	for _, want := range []string{
		"| Exec ", "130 ns ±8%", "| IntScan ", "skip", "**fail**", "91.6 MiB (160000×)",
		"- c, QueryParallel: skip: no pool", "- mattn, QueryParallel: fail: boom",
		"relative to C + database/sql floor",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("tables lack %q:\n%s", want, out)
		}
	}
	// ours/(c+nop) for Exec is 130/90.
	if !strings.Contains(out, "1.44") {
		t.Errorf("tables lack the C+floor ratio 1.44:\n%s", out)
	}
}

func TestChartIsWellFormedSVG(t *testing.T) {
	var b bytes.Buffer
	sampleResults().writeChart(&b, "ns/op", "test <run>")
	d := xml.NewDecoder(&b)
	rects := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "rect" {
			rects++
		}
	}
	if rects < 10 {
		t.Errorf("only %d rects", rects)
	}
}

// Every legend entry is inside the chart: its label, at a generous width per
// character, ends before the right edge, and the legend ends above the plot.
func TestChartLegendFits(t *testing.T) {
	r := sampleResults()
	for _, l := range []string{"ncruces BenchmarkExec-2 100 700 ns/op", "cfloor BenchmarkExec-2 100 50 ns/op"} {
		d, line, _ := strings.Cut(l, " ")
		r.addLine(d, line)
	}
	var b bytes.Buffer
	r.writeChart(&b, "ns/op", "test")
	var svg struct {
		Width float64 `xml:"width,attr"`
		Texts []struct {
			X    float64 `xml:"x,attr"`
			Y    float64 `xml:"y,attr"`
			Size float64 `xml:"font-size,attr"`
			Text string  `xml:",chardata"`
		} `xml:"text"`
		Lines []struct {
			Y1 float64 `xml:"y1,attr"`
		} `xml:"line"`
	}
	if err := xml.Unmarshal(b.Bytes(), &svg); err != nil {
		t.Fatal(err)
	}
	plotTop := svg.Lines[0].Y1
	seen := map[string]bool{}
	for _, tx := range svg.Texts {
		for _, s := range chartSeries {
			if tx.Text != s.label {
				continue
			}
			seen[s.label] = true
			if end := tx.X + legendCharWidth*float64(len([]rune(tx.Text))); end > svg.Width {
				t.Errorf("legend %q ends at x=%.0f, past the chart's width %.0f", tx.Text, end, svg.Width)
			}
			if tx.Y+4 > plotTop-12 {
				t.Errorf("legend %q at y=%.0f runs into the plot (top %.0f)", tx.Text, tx.Y, plotTop)
			}
		}
	}
	for _, s := range chartSeries {
		if !seen[s.label] {
			t.Errorf("legend lacks %q", s.label)
		}
	}
}

func TestParseDrivers(t *testing.T) {
	got, err := parseDrivers("c, direct,ncrucesdirect,zombiezendirect")
	if err != nil || strings.Join(got, " ") != "c direct ncrucesdirect zombiezendirect" {
		t.Errorf("got %q, %v", got, err)
	}
	if _, err := parseDrivers("c,zombiezen"); err == nil {
		t.Error("parseDrivers accepted an unknown driver")
	}
}

// TestProgramsExist checks that every Go driver's program is where build
// looks for it: cmd/<driver> in the bench module, or in its nested module,
// which has a go.mod of its own.
func TestProgramsExist(t *testing.T) {
	for _, d := range slices.Concat(allDrivers[1:], directDrivers, olderDrivers) {
		dir := filepath.Join("..", "..")
		if mod := nestedModules[d]; mod != "" {
			dir = filepath.Join(dir, mod)
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
				t.Errorf("%s: %v", d, err)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, "cmd", d, "main.go")); err != nil {
			t.Errorf("%s: %v", d, err)
		}
	}
}
