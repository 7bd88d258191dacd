package main

import (
	"fmt"
	"strings"
)

// summary gathers, per run (a tag set of tests, or the examples), the counts
// of each side and the tests that pass on mattn and fail here.
type summary struct {
	lines            []string
	regressions      int
	allowed          int
	unusedExceptions map[string]bool
}

func count(res map[string][2]result, side int) string {
	c := map[string]int{}
	for _, r := range res {
		c[r[side].status]++
	}
	s := fmt.Sprintf("%d passed, %d failed", c[pass], c[fail]+c[crash]+c[timeout]+c[buildFailed])
	var extra []string
	if c[skip] > 0 {
		extra = append(extra, fmt.Sprintf("%d skipped", c[skip]))
	}
	if c[crash] > 0 {
		extra = append(extra, fmt.Sprintf("%d crashed", c[crash]))
	}
	if c[buildFailed] > 0 {
		extra = append(extra, fmt.Sprintf("%d did not build", c[buildFailed]))
	}
	if c[timeout] > 0 {
		extra = append(extra, fmt.Sprintf("%d hung", c[timeout]))
	}
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	return s
}

// add prints one run's comparison and records it. res holds, per name, the
// results on mattn ([0]) and here ([1]).
func (s *summary) add(o options, what string, names []string, res map[string][2]result) {
	if s.unusedExceptions == nil {
		s.unusedExceptions = map[string]bool{}
		for n := range o.exceptions {
			s.unusedExceptions[n] = true
		}
	}
	head := fmt.Sprintf("%s: mattn %s; this driver %s", what, count(res, 0), count(res, 1))
	var bad, allowed, info, flaky []string
	for _, n := range names {
		m, h := res[n][0], res[n][1]
		if h.flaky != "" {
			flaky = append(flaky, n)
			info = append(info, fmt.Sprintf("  %s: flaky here: %s", n, h.flaky))
		}
		mattnOK := m.status == pass || m.status == skip
		switch {
		case m.status == pass && h.status == skip:
			info = append(info, fmt.Sprintf("  %s: passes on mattn, skipped here", n))
		case mattnOK && h.status != pass && h.status != skip:
			delete(s.unusedExceptions, n)
			line := fmt.Sprintf("  %s [%s]", n, h.status)
			if why, ok := o.exceptions[n]; ok {
				allowed = append(allowed, line+" allowed: "+why)
				continue
			}
			bad = append(bad, line+"\n      "+strings.ReplaceAll(excerpt(h.out, 4), "\n", "\n      "))
		case !mattnOK && h.status == pass:
			info = append(info, fmt.Sprintf("  %s: fails on mattn [%s], passes here", n, m.status))
		}
	}
	fmt.Println(head)
	fmt.Printf("pass on mattn, fail here: %d", len(bad))
	if len(allowed) > 0 {
		fmt.Printf(" (+%d allowed by the exceptions file)", len(allowed))
	}
	fmt.Println()
	for _, l := range append(bad, allowed...) {
		fmt.Println(l)
	}
	for _, l := range info {
		fmt.Println(l)
	}
	var names2 []string
	for _, l := range bad {
		names2 = append(names2, strings.Fields(l)[0])
	}
	tail := ""
	if len(names2) > 0 {
		tail = ": " + strings.Join(names2, " ")
	}
	s.lines = append(s.lines, head, fmt.Sprintf("  pass on mattn, fail here: %d%s", len(bad), tail))
	if len(flaky) > 0 {
		s.lines = append(s.lines, "  flaky here (failed, then passed when run again alone): "+strings.Join(flaky, " "))
	}
	s.regressions += len(bad)
	s.allowed += len(allowed)
}

// print writes the summary and returns the exit status: 1 when something
// passes on mattn and fails here without an exception.
func (s *summary) print() int {
	fmt.Println("\n== summary (mattn v1.14.53's tests and examples, on mattn and on this driver)")
	for _, l := range s.lines {
		fmt.Println(l)
	}
	for n := range s.unusedExceptions {
		fmt.Printf("note: exception %s no longer needed (it does not fail here)\n", n)
	}
	if s.regressions > 0 {
		fmt.Printf("FAIL: %d pass on mattn and fail here (%d more allowed by exceptions)\n", s.regressions, s.allowed)
		return 1
	}
	fmt.Printf("ok: everything that passes on mattn passes here (%d allowed by exceptions)\n", s.allowed)
	return 0
}
