package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/fastsqlite/sqlite3/bench/workload"
)

// The chart: for each Writers workload without readers, the longest
// transaction (max-ms, median over the rounds) of every driver's shared
// case and of the reference rows of the first driver that ran them, as bars
// on a log₁₀ axis. It is plain SVG written by hand.

var chartColors = []string{"#ff7f0e", "#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#555555", "#aaaaaa"}

type chartBar struct {
	label, driver, mode string
}

func writeChartFile(r *results, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	r.writeChart(f)
	return f.Close()
}

func (r *results) writeChart(w io.Writer) {
	r.writeBarChart(w, barChart{
		metric: "max-ms", unit: "ms", log: true,
		title: "Longest write transaction, ms (log scale; median of the rounds' maxima): many goroutines writing one WAL file",
	})
}

// writeThroughputFile writes the throughput chart (tx/s) of the Writers
// workloads without readers that ran, to path.
func writeThroughputFile(r *results, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	r.writeBarChart(f, barChart{
		metric: "tx/s", unit: "tx/s", skipEmpty: true,
		title: "Write transactions per second (median of the rounds): many goroutines writing one WAL file",
	})
	return f.Close()
}

// barChart says what a chart of the Writers workloads plots.
type barChart struct {
	metric, unit, title string
	log                 bool // a log₁₀ axis from 1 to 1000, else linear from 0 to the largest value
	skipEmpty           bool // leave out the workloads nobody ran
}

func (r *results) writeBarChart(w io.Writer, c barChart) {
	var groups []writerGroup
	for _, g := range writerGroups() {
		if g.readers == 0 && g.writers > 1 {
			groups = append(groups, g)
		}
	}
	var bars []chartBar
	for _, d := range r.drivers {
		bars = append(bars, chartBar{d, d, workload.ModeShared})
	}
	for _, m := range []string{workload.ModeSerial, workload.ModePool} {
		for _, d := range r.drivers {
			if len(groups) > 0 && r.has(d, groups[0].name(m)) {
				label := d + ": one serial writer"
				if m == workload.ModePool {
					label = d + ": single-writer pool"
				}
				bars = append(bars, chartBar{label, d, m})
				break
			}
		}
	}
	if c.skipEmpty {
		kept := groups[:0]
		for _, g := range groups {
			for _, b := range bars {
				if _, ok := r.stats(b.driver, g.name(b.mode), c.metric); ok {
					kept = append(kept, g)
					break
				}
			}
		}
		groups = kept
	}
	const left, barH, gap, width, top = 250, 9, 14, 820, 40
	lo, hi := 1.0, 1000.0 // the log axis: 1 ms to 1 s
	ticks := []float64{1, 10, 100, 1000}
	x := func(v float64) float64 {
		v = math.Min(math.Max(v, lo), hi)
		return left + (width-left-20)*math.Log10(v/lo)/math.Log10(hi/lo)
	}
	if !c.log {
		top := 0.0
		for _, g := range groups {
			for _, b := range bars {
				if s, ok := r.stats(b.driver, g.name(b.mode), c.metric); ok {
					top = math.Max(top, s.med)
				}
			}
		}
		step := math.Pow(10, math.Floor(math.Log10(math.Max(top, 1))))
		hi = math.Ceil(top/step) * step
		ticks = nil
		for t := 0.0; t <= hi; t += step {
			ticks = append(ticks, t)
		}
		x = func(v float64) float64 { return left + (width-left-20)*math.Min(math.Max(v, 0), hi)/hi }
	}
	height := top + len(groups)*(len(bars)*barH+gap) + 30 + 16*len(bars)
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n", width, height)
	fmt.Fprintf(&sb, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&sb, `<text x="10" y="16" font-size="13">%s</text>`+"\n", xmlEscape(c.title))
	for _, t := range ticks {
		fmt.Fprintf(&sb, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>`+"\n", x(t), top-6, x(t), top+len(groups)*(len(bars)*barH+gap))
		label := num(t)
		if t == 0 {
			label = "0"
		}
		fmt.Fprintf(&sb, `<text x="%.1f" y="%d" text-anchor="middle" fill="#666">%s</text>`+"\n", x(t), top-9, label)
	}
	y := top
	for _, g := range groups {
		fmt.Fprintf(&sb, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", left-8, y+len(bars)*barH/2+4, xmlEscape(g.title))
		for i, b := range bars {
			if s, ok := r.stats(b.driver, g.name(b.mode), c.metric); ok {
				fmt.Fprintf(&sb, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"><title>%s: %s %s</title></rect>`+"\n",
					left, y+i*barH, x(s.med)-left, barH-1, chartColors[i%len(chartColors)], xmlEscape(b.label), num(s.med), c.unit)
			}
		}
		y += len(bars)*barH + gap
	}
	y += 14
	for i, b := range bars {
		fmt.Fprintf(&sb, `<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d">%s</text>`+"\n",
			left, y+i*16, chartColors[i%len(chartColors)], left+16, y+i*16+9, xmlEscape(b.label))
	}
	sb.WriteString("</svg>\n")
	io.WriteString(w, sb.String())
}

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

func xmlEscape(s string) string { return xmlEscaper.Replace(s) }
