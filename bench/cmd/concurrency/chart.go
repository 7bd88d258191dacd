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
	const left, barH, gap, width, top = 250, 9, 14, 820, 40
	lo, hi := 1.0, 1000.0 // ms, the axis: 1 ms to 1 s
	x := func(v float64) float64 {
		v = math.Min(math.Max(v, lo), hi)
		return left + (width-left-20)*math.Log10(v/lo)/math.Log10(hi/lo)
	}
	height := top + len(groups)*(len(bars)*barH+gap) + 30 + 16*len(bars)
	var sb strings.Builder
	fmt.Fprintf(&sb, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n", width, height)
	fmt.Fprintf(&sb, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&sb, `<text x="10" y="16" font-size="13">Longest write transaction, ms (log scale; median of the rounds' maxima): many goroutines writing one WAL file</text>`+"\n")
	for _, t := range []float64{1, 10, 100, 1000} {
		fmt.Fprintf(&sb, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/>`+"\n", x(t), top-6, x(t), top+len(groups)*(len(bars)*barH+gap))
		fmt.Fprintf(&sb, `<text x="%.1f" y="%d" text-anchor="middle" fill="#666">%g</text>`+"\n", x(t), top-9, t)
	}
	y := top
	for _, g := range groups {
		fmt.Fprintf(&sb, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", left-8, y+len(bars)*barH/2+4, xmlEscape(g.title))
		for i, b := range bars {
			if s, ok := r.stats(b.driver, g.name(b.mode), "max-ms"); ok {
				fmt.Fprintf(&sb, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"><title>%s: %s ms</title></rect>`+"\n",
					left, y+i*barH, x(s.med)-left, barH-1, chartColors[i%len(chartColors)], xmlEscape(b.label), num(s.med))
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
