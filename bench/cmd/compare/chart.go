package main

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// chartSeries are the bars drawn for each workload: ns/op relative to ours.
var chartSeries = []struct {
	label, color string
	driver       string   // whose ns/op is the numerator
	plus         []string // drivers whose ns/op are added to it
}{
	{"C (physical limit)", "#555555", "c", nil},
	{"C + database/sql floor", "#aaaaaa", "c", []string{"nop"}},
	{"C under database/sql, one process (cfloor)", "#ff7f0e", "cfloor", nil},
	{"mattn/go-sqlite3", "#1f77b4", "mattn", nil},
	{"modernc.org/sqlite", "#2ca02c", "modernc", nil},
	{"ncruces/go-sqlite3", "#d62728", "ncruces", nil},
}

// chartValue is a series' metric for name divided by ours, if both exist.
func (r *results) chartValue(metric, driver string, plus []string, name string) (float64, bool) {
	ours, _, ok := r.median("ours", name, metric)
	if !ok || ours <= 0 {
		return 0, false
	}
	v, _, ok := r.median(driver, name, metric)
	if !ok {
		return 0, false
	}
	for _, p := range plus {
		x, _, ok := r.median(p, name, metric)
		if !ok {
			return 0, false
		}
		v += x
	}
	if v <= 0 {
		return 0, false
	}
	return v / ours, true
}

var xmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

// writeChart draws, for every workload, one bar per series from 1 (ours) to
// the series' ratio on a log₂ axis: left of the line is faster than ours,
// right of it slower. It is plain SVG written by hand.
func (r *results) writeChart(w io.Writer, metric, subtitle string) {
	type bar struct {
		series int
		v      float64
	}
	var series []int
	for i, s := range chartSeries {
		if r.has(s.driver) && (s.plus == nil || r.has(s.plus[0])) && r.has("ours") {
			series = append(series, i)
		}
	}
	groups := make([][]bar, len(r.names))
	lo, hi := 0.5, 2.0
	for g, name := range r.names {
		for _, i := range series {
			s := chartSeries[i]
			if v, ok := r.chartValue(r.unitFor(name, metric), s.driver, s.plus, name); ok {
				groups[g] = append(groups[g], bar{i, v})
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	loExp := math.Max(math.Floor(math.Log2(lo)), -12)
	hiExp := math.Min(math.Ceil(math.Log2(hi)), 12)

	const (
		width   = 980.0
		left    = 180.0 // workload labels
		right   = 70.0
		barH    = 8.0
		barGap  = 2.0
		groupGp = 12.0
	)
	var labels []string
	for _, i := range series {
		labels = append(labels, chartSeries[i].label)
	}
	legend := layoutLegend(labels, left-170, width-10, 50)
	// The plot starts below the legend's last row.
	top := 92.0
	if n := len(legend); n > 0 {
		top += legend[n-1].y - 50
	}
	plotW := width - left - right
	x := func(v float64) float64 {
		e := math.Max(math.Min(math.Log2(v), hiExp), loExp)
		return left + (e-loExp)/(hiExp-loExp)*plotW
	}
	groupH := float64(len(series))*(barH+barGap) + groupGp
	height := top + float64(len(r.names))*groupH + 40

	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="Helvetica, Arial, sans-serif">`+"\n",
		width, height, width, height)
	fmt.Fprintf(w, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(w, `<text x="%.0f" y="22" font-size="16" font-weight="bold">%s relative to github.com/fastsqlite/sqlite3 (log scale; left of 1× is faster than ours)</text>`+"\n",
		left-170, xmlEscaper.Replace(metric))
	fmt.Fprintf(w, `<text x="%.0f" y="40" font-size="11" fill="#444">%s: %s; medians</text>`+"\n",
		left-170, xmlEscaper.Replace(metricDoc[metric]), xmlEscaper.Replace(subtitle))
	for k, i := range series {
		s, at := chartSeries[i], legend[k]
		fmt.Fprintf(w, `<rect x="%.0f" y="%.0f" width="12" height="10" fill="%s"/><text x="%.0f" y="%.0f" font-size="11">%s</text>`+"\n",
			at.x, at.y, s.color, at.x+16, at.y+9, xmlEscaper.Replace(s.label))
	}

	// Grid: one line per power of two, labelled at top and bottom.
	plotTop, plotBottom := top-8, top+float64(len(r.names))*groupH
	for e := loExp; e <= hiExp; e++ {
		gx := x(math.Exp2(e))
		stroke, sw := "#dddddd", 1.0
		if e == 0 {
			stroke, sw = "#000000", 1.5
		}
		fmt.Fprintf(w, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%.1f"/>`+"\n",
			gx, plotTop, gx, plotBottom, stroke, sw)
		for _, ty := range []float64{plotTop - 4, plotBottom + 14} {
			fmt.Fprintf(w, `<text x="%.1f" y="%.1f" font-size="10" text-anchor="middle" fill="#444">%s</text>`+"\n",
				gx, ty, powLabel(e))
		}
	}

	for g, name := range r.names {
		gy := top + float64(g)*groupH
		if g%2 == 1 {
			fmt.Fprintf(w, `<rect x="0" y="%.1f" width="%.0f" height="%.1f" fill="#000" fill-opacity="0.035"/>`+"\n",
				gy-groupGp/2, width, groupH)
		}
		label := name
		if unit := r.unitFor(name, metric); unit != metric {
			label += " (" + unit + ")"
		}
		fmt.Fprintf(w, `<text x="%.0f" y="%.1f" font-size="12" text-anchor="end">%s</text>`+"\n",
			left-8, gy+(groupH-groupGp)/2+4, xmlEscaper.Replace(label))
		for k, i := range series {
			by := gy + float64(k)*(barH+barGap)
			var v float64
			found := false
			for _, b := range groups[g] {
				if b.series == i {
					v, found = b.v, true
				}
			}
			if !found {
				fmt.Fprintf(w, `<text x="%.1f" y="%.1f" font-size="8" fill="#999">n/a</text>`+"\n", x(1)+3, by+barH-1)
				continue
			}
			x0, x1 := x(1), x(v)
			if x1 < x0 {
				x0, x1 = x1, x0
			}
			fmt.Fprintf(w, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s, %s: %s× ours</title></rect>`+"\n",
				x0, by, math.Max(x1-x0, 0.5), barH, chartSeries[i].color,
				xmlEscaper.Replace(name), xmlEscaper.Replace(chartSeries[i].label), fmtRatio(v))
			anchor, tx := "start", x1+3
			if v < 1 {
				anchor, tx = "end", x0-3
			}
			fmt.Fprintf(w, `<text x="%.1f" y="%.1f" font-size="8" text-anchor="%s" fill="#333">%s×</text>`+"\n",
				tx, by+barH-1, anchor, fmtRatio(v))
		}
	}
	fmt.Fprintln(w, `</svg>`)
}

// legendCharWidth is a generous width of one character of the 11-pixel
// legend text (Helvetica and Arial average under 6 pixels), so that a label
// never runs past the chart's edge whatever font the viewer substitutes.
const legendCharWidth = 6.5

// legendPos is where a legend entry's colour swatch goes; its label follows.
type legendPos struct{ x, y float64 }

// layoutLegend places the entries left to right from x0 on a row at y, and
// starts a new row, 16 pixels lower, before an entry whose label would cross
// maxX.
func layoutLegend(labels []string, x0, maxX, y float64) []legendPos {
	pos := make([]legendPos, len(labels))
	x := x0
	for i, l := range labels {
		w := 16 + legendCharWidth*float64(len([]rune(l)))
		if x > x0 && x+w > maxX {
			x, y = x0, y+16
		}
		pos[i] = legendPos{x, y}
		x += w + 18
	}
	return pos
}

func powLabel(e float64) string {
	if e >= 0 {
		return fmt.Sprintf("%.0f×", math.Exp2(e))
	}
	return fmt.Sprintf("1/%.0f×", math.Exp2(-e))
}
