//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"testing"
)

// benchCountReprepares runs the benchmark f on db and reports the statements
// SQLite compiled again meanwhile (SQLITE_STMTSTATUS_REPREPARE, summed over
// db's connections; reprepares/op): a re-prepare nobody asked for is a
// compile per run. Another driver has no such counter: this file is this
// driver's, where bench_test.go runs on any.
func benchCountReprepares(b *testing.B, db *sql.DB, f func(*testing.B)) {
	count := func() int64 {
		conn, err := db.Conn(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close()
		var n int64
		err = conn.Raw(func(dc any) error {
			c := dc.(*SQLiteConn)
			defer c.core.unlock(c.core.lock())
			n = cReprepares(c.h)
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		return n
	}
	before := count()
	f(b)
	if b.N > 0 {
		b.ReportMetric(float64(count()-before)/float64(b.N), "reprepares/op")
	}
}
