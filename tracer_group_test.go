//go:build cgo && !libsqlite3

package sqlite3

import (
	"context"
	"path/filepath"
	"testing"
)

// A write that waited for the file's write turn says how long; one run in
// another connection's group says it shared a COMMIT, of how many writes,
// and how long the COMMIT took.
func TestTracerTurnWaitAndGroup(t *testing.T) {
	tr := &recTracer{}
	path := filepath.Join(t.TempDir(), "g.db")
	db := openTraced(t, path+groupDSN, tr)
	testMustExec(t, db, "CREATE TABLE t(v INT)")
	ctx := context.Background()
	x, h, a := threeConns(t, db)
	hold, err := x.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := hold.ExecContext(ctx, "INSERT INTO t VALUES (0)"); err != nil {
		t.Fatal(err)
	}
	tr.take()
	leadErr, err := queueBehind(t, db, hold, func() error {
		_, err := h.ExecContext(ctx, "INSERT INTO t VALUES (1)")
		return err
	}, func() error {
		_, err := a.ExecContext(ctx, "INSERT INTO t VALUES (2)")
		return err
	})
	if leadErr != nil || err != nil {
		t.Fatal(leadErr, err)
	}
	var lead, sent *TraceEvent
	for _, e := range tr.take() {
		switch e.SQL {
		case "INSERT INTO t VALUES (1)":
			lead = &e
		case "INSERT INTO t VALUES (2)":
			sent = &e
		}
	}
	if lead == nil || sent == nil {
		t.Fatal("an INSERT's event is missing")
	}
	if lead.TurnWait <= 0 {
		t.Errorf("the write that waited for the Tx's turn has TurnWait %v", lead.TurnWait)
	}
	if !lead.Grouped || !sent.Grouped {
		t.Errorf("Grouped: leader %v, write run in its group %v; want both true", lead.Grouped, sent.Grouped)
	}
	// One COMMIT held both: the same size and time in both events (the time
	// may be 0 where the clock ticks coarsely).
	if lead.GroupWrites != 2 || sent.GroupWrites != 2 || lead.GroupCommit != sent.GroupCommit || lead.GroupCommit < 0 {
		t.Errorf("GroupWrites %d and %d, GroupCommit %v and %v; want 2 writes, one COMMIT's time", lead.GroupWrites, sent.GroupWrites, lead.GroupCommit, sent.GroupCommit)
	}
	for _, b := range tr.bad {
		t.Error(b)
	}
}
