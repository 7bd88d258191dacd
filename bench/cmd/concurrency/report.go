package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fastsqlite/sqlite3/bench/internal/runbench"

	"github.com/fastsqlite/sqlite3/bench/workload"
)

// results collects every sample of every driver, case and unit, and what
// each driver's program said about its settings.
type results struct {
	drivers  []string
	samples  map[sampleKey][]float64
	dsn      map[string]string
	settings map[string]string
	fails    []string // "# FAIL" lines, with their driver
	errs     []string // programs that failed
}

type sampleKey struct{ driver, name, unit string }

func newResults(drivers []string) *results {
	return &results{
		drivers:  drivers,
		samples:  map[sampleKey][]float64{},
		dsn:      map[string]string{},
		settings: map[string]string{},
	}
}

// addLine records one output line of a driver's program.
func (r *results) addLine(driver, line string) {
	switch {
	case strings.HasPrefix(line, "# DSN "):
		r.dsn[driver] = strings.TrimPrefix(line, "# DSN ")
		return
	case strings.HasPrefix(line, "# settings "):
		r.settings[driver] = strings.TrimPrefix(line, "# settings ")
		return
	case strings.HasPrefix(line, "# FAIL "):
		r.fails = append(r.fails, driver+": "+strings.TrimPrefix(line, "# FAIL "))
		return
	}
	name, m, ok := runbench.ParseBenchLine(line)
	if !ok {
		return
	}
	for unit, v := range m {
		k := sampleKey{driver, name, unit}
		r.samples[k] = append(r.samples[k], v)
	}
}

// stats are the median, minimum, maximum and sum of a unit's samples.
type stats struct {
	med, lo, hi, sum float64
	n                int
}

func (r *results) stats(driver, name, unit string) (stats, bool) {
	xs := slices.Clone(r.samples[sampleKey{driver, name, unit}])
	if len(xs) == 0 {
		return stats{}, false
	}
	slices.Sort(xs)
	s := stats{lo: xs[0], hi: xs[len(xs)-1], n: len(xs)}
	n := len(xs)
	s.med = xs[n/2]
	if n%2 == 0 {
		s.med = (xs[n/2-1] + xs[n/2]) / 2
	}
	for _, x := range xs {
		s.sum += x
	}
	return s, true
}

// num formats v with three significant digits, thousands as "k".
func num(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e4:
		return strconv.FormatFloat(v/1e3, 'f', 1, 64) + "k"
	case a >= 1e3:
		return strconv.FormatFloat(v/1e3, 'f', 2, 64) + "k"
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	default:
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
}

// cell is a unit's median, with its range over the rounds when withRange
// and there are several.
func (r *results) cell(driver, name, unit string, withRange bool) string {
	s, ok := r.stats(driver, name, unit)
	if !ok {
		return "—"
	}
	if !withRange || s.n < 2 {
		return num(s.med)
	}
	return fmt.Sprintf("%s (%s–%s)", num(s.med), num(s.lo), num(s.hi))
}

// errCell sums a case's errors over the rounds, busy ones apart.
func (r *results) errCell(driver, name string) string {
	all, ok := r.stats(driver, name, "errors")
	if !ok {
		return "—"
	}
	busy, _ := r.stats(driver, name, "busy-errors")
	if all.sum == 0 {
		return "0"
	}
	return fmt.Sprintf("%.0f (%.0f busy)", all.sum, busy.sum)
}

// row is one line of a workload's table: a driver's case.
type row struct{ label, driver, name string }

// writerGroup is a Writers workload without its mode: the shared case of
// every driver and the reference modes of the drivers that ran them.
type writerGroup struct {
	title            string
	inserts, writers int
	readers          int
}

func (g writerGroup) name(mode string) string {
	return fmt.Sprintf("Writers/mode=%s/inserts=%d/writers=%d/readers=%d", mode, g.inserts, g.writers, g.readers)
}

// writerGroups lists the Writers workloads in workload.ConcurrentCases'
// order.
func writerGroups() []writerGroup {
	var gs []writerGroup
	for _, c := range workload.ConcurrentCases {
		var g writerGroup
		rest, ok := strings.CutPrefix(c.Name, "Writers/mode="+workload.ModeShared+"/")
		if !ok {
			continue
		}
		if _, err := fmt.Sscanf(rest, "inserts=%d/writers=%d/readers=%d", &g.inserts, &g.writers, &g.readers); err != nil {
			continue
		}
		what := "one-insert transactions"
		switch {
		case g.inserts == 0:
			what = "one-row autocommit writes"
		case g.inserts > 1:
			what = fmt.Sprintf("%d-insert transactions", g.inserts)
		}
		g.title = fmt.Sprintf("%d writer%s × %s", g.writers, plural(g.writers), what)
		if g.readers > 0 {
			g.title += fmt.Sprintf(", %d readers", g.readers)
		}
		gs = append(gs, g)
	}
	return gs
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func (r *results) has(driver, name string) bool {
	_, ok := r.samples[sampleKey{driver, name, "ns/op"}]
	return ok
}

// groupRows are a writer group's rows: every driver's shared case, then the
// reference rows of those that ran them.
func (r *results) groupRows(g writerGroup) []row {
	var rows []row
	for _, d := range r.drivers {
		rows = append(rows, row{d, d, g.name(workload.ModeShared)})
	}
	for _, d := range r.drivers {
		if n := g.name(workload.ModeSerial); r.has(d, n) {
			rows = append(rows, row{d + ": one serial writer", d, n})
		}
		if n := g.name(workload.ModePool); r.has(d, n) {
			rows = append(rows, row{d + ": single-writer pool", d, n})
		}
	}
	return rows
}

func (r *results) writeTables(w io.Writer) {
	fmt.Fprintln(w, "Each cell is the median over the rounds, with the range (min–max) where it is given; errors are summed over the rounds. Latencies in ms, per transaction (BEGIN to COMMIT's return); reads are the readers' queries.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| driver | DSN (PATH is the file) | effective settings |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, d := range r.drivers {
		fmt.Fprintf(w, "| %s | `%s` | %s |\n", d, cmp(r.dsn[d], "—"), cmp(r.settings[d], "—"))
	}
	fmt.Fprintln(w)

	groups := writerGroups()
	// The summary's columns: every driver, then the reference modes that
	// some driver ran.
	type column struct{ label, driver, mode string }
	var cols []column
	for _, d := range r.drivers {
		cols = append(cols, column{d, d, workload.ModeShared})
	}
	for _, d := range r.drivers {
		for _, m := range []string{workload.ModeSerial, workload.ModePool} {
			for _, g := range groups {
				if r.has(d, g.name(m)) {
					label := d + ": one serial writer"
					if m == workload.ModePool {
						label = d + ": single-writer pool"
					}
					cols = append(cols, column{label, d, m})
					break
				}
			}
		}
	}
	fmt.Fprintln(w, "### Summary: tx/s, and max latency in ms (medians)")
	fmt.Fprintln(w)
	fmt.Fprint(w, "| workload |")
	for _, c := range cols {
		fmt.Fprintf(w, " %s |", c.label)
	}
	fmt.Fprint(w, "\n|---|")
	for range cols {
		fmt.Fprint(w, "---:|")
	}
	fmt.Fprintln(w)
	for _, g := range groups {
		fmt.Fprintf(w, "| %s |", g.title)
		for _, c := range cols {
			n := g.name(c.mode)
			if !r.has(c.driver, n) {
				fmt.Fprint(w, " |")
				continue
			}
			fmt.Fprintf(w, " %s (%s) |", r.cell(c.driver, n, "tx/s", false), r.cell(c.driver, n, "max-ms", false))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)

	for _, g := range groups {
		rows := r.groupRows(g)
		fmt.Fprintf(w, "### %s\n\n", g.title)
		fmt.Fprint(w, "| driver | tx/s | p50 | p99 | max | errors |")
		if g.readers > 0 {
			fmt.Fprint(w, " reads/s | read p99 | read max |")
		}
		fmt.Fprint(w, "\n|---|---:|---:|---:|---:|---:|")
		if g.readers > 0 {
			fmt.Fprint(w, "---:|---:|---:|")
		}
		fmt.Fprintln(w)
		for _, x := range rows {
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |", x.label,
				r.cell(x.driver, x.name, "tx/s", true), r.cell(x.driver, x.name, "p50-ms", false),
				r.cell(x.driver, x.name, "p99-ms", true), r.cell(x.driver, x.name, "max-ms", true),
				r.errCell(x.driver, x.name))
			if g.readers > 0 {
				fmt.Fprintf(w, " %s | %s | %s |", r.cell(x.driver, x.name, "reads/s", false),
					r.cell(x.driver, x.name, "read-p99-ms", true), r.cell(x.driver, x.name, "read-max-ms", false))
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w)
	}

	r.writeTurnTables(w)

	fmt.Fprintln(w, "### WAL growth: 1 writer (1 KB rows, one per autocommit INSERT), readers running short overlapping queries")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| driver | readers | WAL max MB | WAL at end MB | rows/s | write p99 | write max | reads/s | read p99 | read max | errors |")
	fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, readers := range []int{4, 1} {
		for _, d := range r.drivers {
			n := fmt.Sprintf("WALGrowth/readers=%d", readers)
			if readers != 4 && !r.has(d, n) {
				continue
			}
			fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", d, readers,
				r.cell(d, n, "wal-max-MB", true), r.cell(d, n, "wal-end-MB", false), r.cell(d, n, "rows/s", false),
				r.cell(d, n, "p99-ms", false), r.cell(d, n, "max-ms", true), r.cell(d, n, "reads/s", false),
				r.cell(d, n, "read-p99-ms", true), r.cell(d, n, "read-max-ms", false), r.errCell(d, n))
		}
	}
	fmt.Fprintln(w)

	if len(r.fails) > 0 || len(r.errs) > 0 {
		fmt.Fprintln(w, "### Failed")
		fmt.Fprintln(w)
		for _, f := range append(slices.Clone(r.fails), r.errs...) {
			fmt.Fprintf(w, "- %s\n", f)
		}
		fmt.Fprintln(w)
	}
}

// writeTurnTables writes a table per shape and pool of the Turn cases that
// some driver ran: a row per writer count, each driver's throughput and
// latencies, and the one-serial-writer row of the drivers that ran it.
func (r *results) writeTurnTables(w io.Writer) {
	shapes := []string{"one-row autocommit writes", "one-insert transactions", "two-insert transactions"}
	pools := []struct{ pool, what string }{
		{workload.PoolConns, "a connection per writer"},
		{workload.PoolDefault, "sql.Open's default pool"},
		{workload.PoolFour, "SetMaxOpenConns(4)"},
	}
	for inserts, shape := range shapes {
		for _, p := range pools {
			var drivers []string
			for _, d := range r.drivers {
				if r.has(d, workload.TurnName(p.pool, inserts, 1)) {
					drivers = append(drivers, d)
				}
			}
			if len(drivers) == 0 {
				continue
			}
			fmt.Fprintf(w, "### Turn: %s, %s (tx/s; p50/p99/max ms)\n\n| writers |", shape, p.what)
			for _, d := range drivers {
				fmt.Fprintf(w, " %s tx/s | %s p50/p99/max |", d, d)
			}
			fmt.Fprint(w, "\n|---:|")
			for range drivers {
				fmt.Fprint(w, "---:|---:|")
			}
			fmt.Fprintln(w)
			line := func(label string, name func(d string) string) {
				fmt.Fprintf(w, "| %s |", label)
				for _, d := range drivers {
					n := name(d)
					if !r.has(d, n) {
						fmt.Fprint(w, " | |")
						continue
					}
					fmt.Fprintf(w, " %s | %s/%s/%s |", r.cell(d, n, "tx/s", false), r.cell(d, n, "p50-ms", false),
						r.cell(d, n, "p99-ms", false), r.cell(d, n, "max-ms", false))
				}
				fmt.Fprintln(w)
			}
			for _, n := range workload.TurnWriters {
				line(fmt.Sprint(n), func(string) string { return workload.TurnName(p.pool, inserts, n) })
			}
			line("one serial writer", func(string) string { return workload.TurnName(workload.ModeSerial, inserts, 1) })
			for _, d := range drivers {
				for _, n := range workload.TurnWriters {
					if e := r.errCell(d, workload.TurnName(p.pool, inserts, n)); e != "0" && e != "—" {
						fmt.Fprintf(w, "\n%s, %d writers: errors %s\n", d, n, e)
					}
				}
			}
			fmt.Fprintln(w)
		}
	}
}
