package otelsqlite_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	otelsqlite "github.com/fastsqlite/sqlite3/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// point is one data point of an observed metric: its kind, unit, value and
// attributes.
type point struct {
	kind  string // "sum", "updown" or "gauge"
	unit  string
	value float64
	attrs attribute.Set
}

// points returns the data points of rm's metric name.
func points(t *testing.T, rm metricdata.ResourceMetrics, name string) []point {
	t.Helper()
	m, ok := findMetric(rm, name)
	if !ok {
		return nil
	}
	var out []point
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		kind := "sum"
		if !d.IsMonotonic {
			kind = "updown"
		}
		for _, dp := range d.DataPoints {
			out = append(out, point{kind, m.Unit, float64(dp.Value), dp.Attributes})
		}
	case metricdata.Sum[float64]:
		kind := "sum"
		if !d.IsMonotonic {
			kind = "updown"
		}
		for _, dp := range d.DataPoints {
			out = append(out, point{kind, m.Unit, dp.Value, dp.Attributes})
		}
	case metricdata.Gauge[float64]:
		for _, dp := range d.DataPoints {
			out = append(out, point{"gauge", m.Unit, dp.Value, dp.Attributes})
		}
	default:
		t.Errorf("%s: data %T", name, m.Data)
	}
	return out
}

// The file's FileStats, observed through a ManualReader after writes that
// queued for the write turn, shared a group's COMMIT and made the WAL bound
// checkpoint: every instrument with its unit and kind, the registration's
// attributes on each point, the checkpoints by result.
func TestFileStatsMetrics(t *testing.T) {
	h := newHarness(t)
	path := filepath.Join(t.TempDir(), "stats.db")
	db := h.open(t, path+"?_journal_mode=WAL&_txlock=immediate&_busy_timeout=5000&_group_commit=1&_wal_bound=65536")
	ctx := context.Background()
	mustExec(t, ctx, db, "CREATE TABLE t(v)")
	reg, err := otelsqlite.RegisterFileStats(h.mp.Meter("test"), db, attribute.String("db.namespace", path))
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Unregister()

	queueWrites(t, db, 3, func(i int) error {
		_, err := db.ExecContext(ctx, "INSERT INTO t VALUES (?)", i)
		return err
	})
	// 1 KiB rows, one commit each: the WAL passes half of its 64 KiB bound
	// many times over, and the bound checkpoints it.
	for range 200 {
		mustExec(t, ctx, db, "INSERT INTO t VALUES (?)", strings.Repeat("x", 1024))
	}

	rm := h.collect(t)
	for _, c := range []struct {
		name, kind, unit string
		min              float64
	}{
		{"sqlite.connections", "updown", "{connection}", 1},
		{"sqlite.write_turn.waits", "sum", "{wait}", 1},
		{"sqlite.write_turn.wait_time", "sum", "s", 1e-9},
		{"sqlite.write_turn.wait_max", "gauge", "s", 1e-9},
		{"sqlite.write_turn.queue", "updown", "{connection}", 0},
		{"sqlite.busy_timeouts", "sum", "{timeout}", 0},
		{"sqlite.refused_upgrades", "sum", "{write}", 0},
		{"sqlite.wal.size", "updown", "By", 0},
		{"sqlite.wal.usage", "updown", "By", 0},
		{"sqlite.wal.limit", "updown", "By", 65536},
		{"sqlite.checkpoints", "sum", "{checkpoint}", 1},
		{"sqlite.checkpoint.time", "sum", "s", 1e-9},
		{"sqlite.checkpoint.held_readers", "sum", "{transaction}", 0},
		{"sqlite.checkpoint.hold_time", "sum", "s", 0},
		{"sqlite.group_commits", "sum", "{commit}", 1},
		{"sqlite.group_commit.writes", "sum", "{write}", 2},
		{"sqlite.replications", "sum", "{upload}", 0}, // no _replicate_wait here: present, zero
		{"sqlite.replication.writes", "sum", "{write}", 0},
		{"sqlite.replication.failures", "sum", "{write}", 0},
		{"sqlite.replication.wait_time", "sum", "s", 0},
	} {
		ps := points(t, rm, c.name)
		if len(ps) == 0 {
			t.Errorf("%s: no points", c.name)
			continue
		}
		var v float64
		for _, p := range ps {
			if p.kind != c.kind || p.unit != c.unit {
				t.Errorf("%s: a %s in %q, want a %s in %q", c.name, p.kind, p.unit, c.kind, c.unit)
			}
			if ns, _ := p.attrs.Value("db.namespace"); ns.AsString() != path {
				t.Errorf("%s: db.namespace %q, want %q", c.name, ns.AsString(), path)
			}
			v += p.value
		}
		if v < c.min {
			t.Errorf("%s = %v, want at least %v", c.name, v, c.min)
		}
	}
	byResult := map[string]float64{}
	for _, p := range points(t, rm, "sqlite.checkpoints") {
		r, _ := p.attrs.Value(otelsqlite.CheckpointResultKey)
		byResult[r.AsString()] += p.value
	}
	if len(byResult) != 3 || byResult["truncated"] < 1 {
		t.Errorf("checkpoints by result %v, want truncated, failed and deferred, at least one truncated", byResult)
	}
}

// A database that is not a file has no FileStats: nothing is observed.
func TestFileStatsMemory(t *testing.T) {
	h := newHarness(t)
	db := h.open(t, ":memory:")
	mustExec(t, context.Background(), db, "CREATE TABLE t(v)")
	reg, err := otelsqlite.RegisterFileStats(h.mp.Meter("test"), db)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Unregister()
	rm := h.collect(t)
	for _, name := range []string{"sqlite.connections", "sqlite.write_turn.waits", "sqlite.wal.size"} {
		if ps := points(t, rm, name); len(ps) != 0 {
			t.Errorf("%s: %d points for :memory:", name, len(ps))
		}
	}
}
