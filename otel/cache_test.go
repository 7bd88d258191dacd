package otelsqlite

import (
	"strconv"
	"strings"
	"testing"

	"github.com/fastsqlite/sqlite3"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
)

// Each (kind, statement) keeps its opInfo, up to maxCached statements of
// up to maxCachedSQL bytes; past either, operations still get theirs.
func TestInfoCacheBound(t *testing.T) {
	tr, err := NewTracer(WithTracerProvider(tracenoop.NewTracerProvider()), WithMeterProvider(metricnoop.NewMeterProvider()))
	if err != nil {
		t.Fatal(err)
	}
	cached := func() int {
		if m := tr.infos.Load(); m != nil {
			return len(*m)
		}
		return 0
	}
	first := tr.info(sqlite3.TraceExec, "INSERT INTO t0 VALUES (1)")
	if again := tr.info(sqlite3.TraceExec, "INSERT INTO t0 VALUES (1)"); again != first {
		t.Error("the same statement worked out twice")
	}
	if p := tr.info(sqlite3.TracePrepare, "INSERT INTO t0 VALUES (1)"); p == first || p.name != "PREPARE INSERT t0" {
		t.Errorf("the statement's prepare: %q", p.name)
	}
	for i := range maxCached + 100 {
		q := "INSERT INTO t" + strconv.Itoa(i) + " VALUES (1)"
		if in := tr.info(sqlite3.TraceExec, q); in.name != "INSERT t"+strconv.Itoa(i) {
			t.Fatalf("%q: span name %q", q, in.name)
		}
	}
	if n := cached(); n != maxCached {
		t.Errorf("%d statements kept, want %d", n, maxCached)
	}
	long := "SELECT * FROM big WHERE x IN (" + strings.Repeat("1, ", maxCachedSQL) + "1)"
	if in := tr.info(sqlite3.TraceQuery, long); in.name != "SELECT big" {
		t.Errorf("a long statement's span name %q", in.name)
	}
	if begin := tr.info(sqlite3.TraceBegin, ""); begin.name != "BEGIN" {
		t.Errorf("BEGIN's span name %q", begin.name)
	}
}
