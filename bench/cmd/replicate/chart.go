package main

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// The chart: acknowledged writes per second (median of the rounds) of
// every case that ran, one group of bars per sync level and writer count,
// one bar per mode, on a log₁₀ axis (plain and post are 100 times apart).
// Plain SVG written by hand, as cmd/concurrency's.

var modeColors = map[string]string{"plain": "#aaaaaa", "wait": "#ff7f0e", "post": "#1f77b4"}

var modeLabels = map[string]string{
	"plain": "group commit alone (acknowledged at the local commit, not replicated)",
	"wait":  "_replicate_wait: acknowledged once Litestream confirms, one request shared",
	"post":  "one POST /sync per write (what applications do without the switch)",
}

func writeChart(w io.Writer, cfg config, results map[acase][]measured, med func(acase, func(measured) float64) float64) {
	const (
		left, top, barW, gap, plotH = 70.0, 60.0, 22.0, 26.0, 300.0
		lo, hi                      = 1.0, 5.0 // log₁₀ of the axis: 10 to 100,000 writes/s
	)
	type group struct {
		sync    string
		writers int
	}
	var groups []group
	for _, s := range cfg.syncs {
		for _, n := range cfg.writers {
			groups = append(groups, group{s, n})
		}
	}
	groupW := float64(len(cfg.modes))*barW + gap
	width := max(left+float64(len(groups))*groupW+20, 760) // room for the title and legend
	height := top + plotH + 60 + 18*float64(len(cfg.modes))
	y := func(v float64) float64 {
		l := math.Log10(max(v, math.Pow(10, lo)))
		return top + plotH - (min(l, hi)-lo)/(hi-lo)*plotH
	}
	fmt.Fprintf(w, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" font-family="sans-serif" font-size="11">`+"\n", width, height)
	fmt.Fprintf(w, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(w, `<text x="%.0f" y="22" font-size="13">Acknowledged one-row writes per second (log scale, median of the rounds), Litestream file replica</text>`+"\n", left)
	for e := lo; e <= hi; e++ {
		v := math.Pow(10, e)
		fmt.Fprintf(w, `<line x1="%.0f" x2="%.0f" y1="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", left, width-20, y(v), y(v))
		fmt.Fprintf(w, `<text x="%.0f" y="%.1f" text-anchor="end">%s</text>`+"\n", left-6, y(v)+4, commas(v))
	}
	for i, g := range groups {
		x0 := left + float64(i)*groupW + gap/2
		for j, mode := range cfg.modes {
			c := acase{mode, g.sync, g.writers}
			if len(results[c]) == 0 {
				continue
			}
			v := med(c, func(m measured) float64 { return m.rate() })
			x := x0 + float64(j)*barW
			fmt.Fprintf(w, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>%s %s, %d writers: %s writes/s</title></rect>`+"\n",
				x, y(v), barW-2, top+plotH-y(v), modeColors[mode], mode, g.sync, g.writers, commas(v))
			fmt.Fprintf(w, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="9">%s</text>`+"\n", x+barW/2-1, y(v)-3, short(v))
		}
		fmt.Fprintf(w, `<text x="%.1f" y="%.0f" text-anchor="middle">%s, %d</text>`+"\n", x0+float64(len(cfg.modes))*barW/2, top+plotH+16, g.sync, g.writers)
	}
	fmt.Fprintf(w, `<text x="%.0f" y="%.0f">synchronous, writers</text>`+"\n", left, top+plotH+34)
	for j, mode := range cfg.modes {
		ly := top + plotH + 52 + 18*float64(j)
		fmt.Fprintf(w, `<rect x="%.0f" y="%.0f" width="12" height="12" fill="%s"/>`+"\n", left, ly-10, modeColors[mode])
		fmt.Fprintf(w, `<text x="%.0f" y="%.0f">%s: %s</text>`+"\n", left+18, ly, mode, modeLabels[mode])
	}
	fmt.Fprintln(w, "</svg>")
}

// commas prints v rounded, with thousands separators.
func commas(v float64) string {
	s := fmt.Sprintf("%.0f", v)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// short prints v in at most four characters: 76, 973, 3.5k, 22k.
func short(v float64) string {
	switch {
	case v < 1000:
		return fmt.Sprintf("%.0f", v)
	case v < 10000:
		return fmt.Sprintf("%.1fk", v/1000)
	default:
		return fmt.Sprintf("%.0fk", v/1000)
	}
}
