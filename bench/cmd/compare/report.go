package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/fastsqlite/sqlite3/bench/internal/runbench"
)

// results collects every sample of every driver, workload and unit.
type results struct {
	drivers []string
	names   []string
	samples map[sampleKey][]float64
	notes   map[noteKey]string // why a driver has no result for a workload
	errs    []string           // failures not tied to one workload
}

type sampleKey struct{ driver, name, unit string }
type noteKey struct{ driver, name string }

func newResults(drivers, names []string) *results {
	return &results{
		drivers: drivers,
		names:   names,
		samples: map[sampleKey][]float64{},
		notes:   map[noteKey]string{},
	}
}

// addLine records one output line of a driver's program: a benchmark line,
// or a "# SKIP" or "# FAIL" comment. Anything else is ignored.
func (r *results) addLine(driver, line string) {
	for _, tag := range []string{"SKIP", "FAIL"} {
		if rest, ok := strings.CutPrefix(line, "# "+tag+" Benchmark"); ok {
			name, why, _ := strings.Cut(rest, ": ")
			r.notes[noteKey{driver, name}] = strings.ToLower(tag) + ": " + why
			return
		}
	}
	name, metrics, ok := runbench.ParseBenchLine(line)
	if !ok {
		return
	}
	for unit, v := range metrics {
		k := sampleKey{driver, name, unit}
		r.samples[k] = append(r.samples[k], v)
	}
}

func (r *results) addFailure(driver string, err error) {
	r.errs = append(r.errs, fmt.Sprintf("%s: %v", driver, err))
}

// median returns the median of the samples and their largest distance from
// it as a fraction of it; ok is false when there are none.
func (r *results) median(driver, name, unit string) (med, spread float64, ok bool) {
	xs := slices.Clone(r.samples[sampleKey{driver, name, unit}])
	if len(xs) == 0 {
		return 0, 0, false
	}
	slices.Sort(xs)
	n := len(xs)
	med = xs[n/2]
	if n%2 == 0 {
		med = (xs[n/2-1] + xs[n/2]) / 2
	}
	if med > 0 {
		spread = math.Max(med-xs[0], xs[n-1]-med) / med
	}
	return med, spread, true
}

func (r *results) has(driver string) bool { return slices.Contains(r.drivers, driver) }

// missing is the table cell of a driver without a result for a workload.
func (r *results) missing(driver, name string) string {
	note := r.notes[noteKey{driver, name}]
	switch {
	case strings.HasPrefix(note, "skip"):
		return "skip"
	case strings.HasPrefix(note, "fail"):
		return "**fail**"
	default:
		return "—"
	}
}

// ratio is the ratio of driver's median of unit to the denominator's, where
// the denominator is a sum of drivers' medians (C + floor).
func (r *results) ratio(unit, driver, name string, denom ...string) (float64, bool) {
	v, _, ok := r.median(driver, name, unit)
	if !ok {
		return 0, false
	}
	d := 0.0
	for _, dd := range denom {
		x, _, ok := r.median(dd, name, unit)
		if !ok {
			return 0, false
		}
		d += x
	}
	if d <= 0 {
		return 0, false
	}
	return v / d, true
}

// unitFor is the time metric compared for name: metric, unless no driver
// reports it for that workload (CancelLatency has no CPU time: it measures a
// latency), then ns/op.
func (r *results) unitFor(name, metric string) string {
	for _, d := range r.drivers {
		if _, _, ok := r.median(d, name, metric); ok {
			return metric
		}
	}
	return "ns/op"
}

// metricDoc says what each time metric is, for the table headings.
var metricDoc = map[string]string{
	"ns/op":     "wall-clock time per op, as go test reports it",
	"cpu-ns/op": "CPU time of the whole process per op, all threads and the GC included",
}

// writeTables writes the comparison as Markdown tables; the ratio tables
// compare the time metric metric ("ns/op" or "cpu-ns/op").
func (r *results) writeTables(w io.Writer, metric string) {
	goDrivers := r.except("c", "nop", "cfloor")
	others := r.except("ours")

	for _, unit := range []string{"ns/op", "cpu-ns/op"} {
		fmt.Fprintf(w, "### %s: %s (median ± largest deviation from it)\n\n", unit, metricDoc[unit])
		r.table(w, r.drivers, func(d, name string) string {
			med, spread, ok := r.median(d, name, unit)
			if !ok {
				if _, _, ran := r.median(d, name, "ns/op"); ran {
					return "—"
				}
				return r.missing(d, name)
			}
			if len(r.samples[sampleKey{d, name, unit}]) < 2 {
				return fmtNs(med)
			}
			return fmt.Sprintf("%s ±%.0f%%", fmtNs(med), spread*100)
		})
		fmt.Fprintln(w)
	}

	if r.has("ours") {
		fmt.Fprintf(w, "### %s relative to ours (below 1: faster than ours)\n\n", metric)
		r.table(w, others, r.ratioCell(metric, "ours"))
		fmt.Fprintln(w)
	}
	if r.has("c") {
		fmt.Fprintf(w, "### %s relative to C (the C API alone: the physical limit)\n\n", metric)
		r.table(w, goDrivers, r.ratioCell(metric, "c"))
		fmt.Fprintln(w)
	}
	if r.has("c") && r.has("nop") {
		fmt.Fprintf(w, "### %s relative to C + database/sql floor (1: no cost beyond SQLite's and database/sql's)\n\n", metric)
		r.table(w, goDrivers, r.ratioCell(metric, "c", "nop"))
		fmt.Fprintln(w)
	}
	if r.has("cfloor") {
		fmt.Fprintf(w, "### %s relative to cfloor (database/sql and SQLite's work in one process, one cgo call per operation: the floor of any cgo driver)\n\n", metric)
		r.table(w, goDrivers, r.ratioCell(metric, "cfloor"))
		fmt.Fprintln(w)
	}
	if r.has("dfloor") {
		fmt.Fprintf(w, "### %s relative to dfloor (SQLite's work in one process, one cgo call per operation, no API around it: the floor of any cgo direct API)\n\n", metric)
		r.table(w, r.except("c", "nop", "cfloor", "dfloor"), r.ratioCell(metric, "dfloor"))
		fmt.Fprintln(w)
	}
	for _, unit := range []string{"B/op", "allocs/op"} {
		fmt.Fprintf(w, "### %s (and relative to ours)\n\n", unit)
		r.table(w, r.except("c"), func(d, name string) string {
			med, _, ok := r.median(d, name, unit)
			if !ok {
				return r.missing(d, name)
			}
			s := fmtCount(med, unit == "B/op")
			if ours, _, ok := r.median("ours", name, unit); ok && d != "ours" {
				switch {
				case ours > 0:
					s += fmt.Sprintf(" (%s×)", fmtRatio(med/ours))
				case med > 0:
					s += " (ours: 0)"
				}
			}
			return s
		})
		fmt.Fprintln(w)
	}

	var notes []string
	for _, d := range r.drivers {
		for _, name := range r.names {
			if n, ok := r.notes[noteKey{d, name}]; ok {
				notes = append(notes, fmt.Sprintf("- %s, %s: %s", d, name, n))
			}
		}
	}
	notes = append(notes, dedupe(r.errs)...)
	if len(notes) > 0 {
		fmt.Fprintf(w, "### Skipped and failed\n\n%s\n", strings.Join(notes, "\n"))
	}
}

func dedupe(xs []string) []string {
	var out []string
	for _, x := range xs {
		if !slices.Contains(out, "- "+x) {
			out = append(out, "- "+x)
		}
	}
	return out
}

func (r *results) except(skip ...string) []string {
	var out []string
	for _, d := range r.drivers {
		if !slices.Contains(skip, d) {
			out = append(out, d)
		}
	}
	return out
}

func (r *results) ratioCell(metric string, denom ...string) func(d, name string) string {
	return func(d, name string) string {
		unit := r.unitFor(name, metric)
		if v, ok := r.ratio(unit, d, name, denom...); ok {
			if unit != metric {
				return fmtRatio(v) + " (" + unit + ")"
			}
			return fmtRatio(v)
		}
		if _, _, ok := r.median(d, name, "ns/op"); !ok {
			return r.missing(d, name)
		}
		return "—"
	}
}

// table writes one Markdown table: a row per workload, a column per driver.
func (r *results) table(w io.Writer, drivers []string, cell func(driver, name string) string) {
	header := append([]string{"workload"}, drivers...)
	rows := [][]string{header}
	for _, name := range r.names {
		row := []string{name}
		for _, d := range drivers {
			row = append(row, cell(d, name))
		}
		rows = append(rows, row)
	}
	width := make([]int, len(header))
	for _, row := range rows {
		for i, c := range row {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	line := func(row []string) {
		var sb strings.Builder
		sb.WriteString("|")
		for i, c := range row {
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			if i == 0 {
				sb.WriteString(" " + c + pad + " |")
			} else {
				sb.WriteString(" " + pad + c + " |")
			}
		}
		fmt.Fprintln(w, sb.String())
	}
	line(rows[0])
	var sep strings.Builder
	sep.WriteString("|")
	for i, n := range width {
		if i == 0 {
			sep.WriteString(" " + strings.Repeat("-", n) + " |")
		} else {
			sep.WriteString(" " + strings.Repeat("-", n-1) + ": |")
		}
	}
	fmt.Fprintln(w, sep.String())
	for _, row := range rows[1:] {
		line(row)
	}
}

// sig3 formats v with about three significant digits.
func sig3(v float64) string {
	switch a := math.Abs(v); {
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

func fmtNs(ns float64) string {
	switch {
	case ns >= 1e9:
		return sig3(ns/1e9) + " s"
	case ns >= 1e6:
		return sig3(ns/1e6) + " ms"
	case ns >= 1e3:
		return sig3(ns/1e3) + " µs"
	default:
		return sig3(ns) + " ns"
	}
}

func fmtRatio(v float64) string {
	if v >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	if v >= 10 {
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}

func fmtCount(v float64, bytes bool) string {
	unit, k := "", 1000.0
	if bytes {
		unit, k = " B", 1024
	}
	prefixes := []string{"", "k", "M", "G"}
	if bytes {
		prefixes = []string{"", "Ki", "Mi", "Gi"}
	}
	i := 0
	for v >= k && i < len(prefixes)-1 {
		v /= k
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f%s", v, unit)
	}
	if bytes {
		return sig3(v) + " " + prefixes[i] + "B"
	}
	return sig3(v) + prefixes[i]
}
