//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"testing"
)

// benchPreparedRows is how many rows the PreparedQueryRow table has; the
// lookups cycle through them, so that the key and the value (id*1000) are
// numbers past 255, which database/sql and Go box in an allocation of their
// own, as an application's keys are.
const benchPreparedRows = 1000

// BenchmarkPreparedQueryRow is the prepared-statement point lookup of an
// application: one *sql.Stmt prepared once, then QueryRow(id).Scan(&v) of one
// column by primary key. Its allocations are mostly database/sql's own
// (bench/RESULTS.md has the table of each one and who makes it); the driver's
// share is what this benchmark watches.
func BenchmarkPreparedQueryRow(b *testing.B) {
	db := benchOpenMemory(b)
	err := benchExec(db,
		`CREATE TABLE prep (id INTEGER PRIMARY KEY, v INTEGER NOT NULL, s TEXT NOT NULL)`,
		`WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 1000)
			INSERT INTO prep SELECT x, x*1000, 'name-' || x FROM c`,
	)
	if err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B, ctx context.Context, query string, scan func(st *sql.Stmt, ctx context.Context, id int) error) {
		st, err := db.Prepare(query)
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		b.ReportAllocs()
		id := 0
		for b.Loop() {
			id = id%benchPreparedRows + 1
			if err := scan(st, ctx, id); err != nil {
				b.Fatal(err)
			}
		}
	}
	scanInt := func(st *sql.Stmt, ctx context.Context, id int) error {
		var v int64
		if err := st.QueryRowContext(ctx, id).Scan(&v); err != nil {
			return err
		}
		if v != int64(id)*1000 {
			b.Fatalf("v = %d for id %d", v, id)
		}
		return nil
	}
	scanText := func(st *sql.Stmt, ctx context.Context, id int) error {
		var s string
		return st.QueryRowContext(ctx, id).Scan(&s)
	}
	const (
		intQuery  = `SELECT v FROM prep WHERE id = ?`
		textQuery = `SELECT s FROM prep WHERE id = ?`
	)
	b.Run("Int", func(b *testing.B) { run(b, context.Background(), intQuery, scanInt) })
	b.Run("Text", func(b *testing.B) { run(b, context.Background(), textQuery, scanText) })
	b.Run("Cancellable", func(b *testing.B) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		run(b, ctx, intQuery, scanInt)
	})
}
