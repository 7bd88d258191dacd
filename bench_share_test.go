//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkFileWrite is one goroutine writing a WAL file, nobody else
// writing: with the connection alone on the file, and in a pool of 4
// connections that are all open (so the file's write turn, gate.go, is
// taken and given back at every write). Exec is an autocommit INSERT, Tx a
// BEGIN IMMEDIATE, INSERT, COMMIT.
func BenchmarkFileWrite(b *testing.B) {
	for _, conns := range []int{1, 4} {
		for _, kind := range []string{"Exec", "Tx", "Returning"} {
			b.Run(fmt.Sprintf("%s/conns=%d", kind, conns), func(b *testing.B) {
				db, err := sql.Open("sqlite3", filepath.Join(b.TempDir(), "w.db")+"?_journal_mode=WAL&_txlock=immediate")
				if err != nil {
					b.Fatal(err)
				}
				defer db.Close()
				db.SetMaxOpenConns(conns)
				db.SetMaxIdleConns(conns)
				held := make([]*sql.Conn, conns)
				for i := range held {
					if held[i], err = db.Conn(context.Background()); err != nil {
						b.Fatal(err)
					}
				}
				for _, c := range held {
					c.Close()
				}
				if _, err := db.Exec("CREATE TABLE t(x INTEGER)"); err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; b.Loop(); i++ {
					if kind == "Exec" {
						_, err = db.Exec("INSERT INTO t VALUES (?)", i)
					} else {
						var tx *sql.Tx
						if tx, err = db.Begin(); err == nil {
							if _, err = tx.Exec("INSERT INTO t VALUES (?)", i); err == nil {
								err = tx.Commit()
							} else {
								tx.Rollback()
							}
						}
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkGroupCommit is writers goroutines writing one WAL file through
// one pool, without and with _group_commit=1 (group.go): Exec is an
// autocommit INSERT, Tx a BEGIN IMMEDIATE, INSERT, COMMIT, Returning an
// INSERT ... RETURNING read by QueryRow (a grouped write's rows are copied
// in the group, converted by their caller). ns/op is per
// write, all writers together: with one writer it is the lone writer's cost
// of the switch. The writers=16-full cases run at _sync=FULL, where each
// commit waits for an fsync (the others at the driver's NORMAL).
func BenchmarkGroupCommit(b *testing.B) {
	for _, writers := range []string{"1", "16", "16-full"} {
		for _, kind := range []string{"Exec", "Tx", "Returning"} {
			for _, group := range []int{0, 1} {
				b.Run(fmt.Sprintf("%s/writers=%s/group=%d", kind, writers, group), func(b *testing.B) {
					dsn := filepath.Join(b.TempDir(), "w.db") + "?_journal_mode=WAL&_txlock=immediate&_busy_timeout=10000"
					if strings.HasSuffix(writers, "-full") {
						dsn += "&_sync=FULL"
					}
					writers, _ := strconv.Atoi(strings.TrimSuffix(writers, "-full"))
					if group == 1 {
						dsn += "&_group_commit=1"
					}
					db, err := sql.Open("sqlite3", dsn)
					if err != nil {
						b.Fatal(err)
					}
					defer db.Close()
					conns := max(writers, 2) // two: the turn is taken, as in a server's pool
					db.SetMaxOpenConns(conns)
					db.SetMaxIdleConns(conns)
					held := make([]*sql.Conn, conns)
					for i := range held {
						if held[i], err = db.Conn(context.Background()); err != nil {
							b.Fatal(err)
						}
					}
					for _, c := range held {
						c.Close()
					}
					if _, err := db.Exec("CREATE TABLE t(x INTEGER)"); err != nil {
						b.Fatal(err)
					}
					write := func(i int) error {
						switch kind {
						case "Exec":
							_, err := db.Exec("INSERT INTO t VALUES (?)", i)
							return err
						case "Returning":
							var x int
							var s string
							return db.QueryRow("INSERT INTO t VALUES (?) RETURNING x, 'row ' || x", i).Scan(&x, &s)
						}
						tx, err := db.Begin()
						if err != nil {
							return err
						}
						if _, err := tx.Exec("INSERT INTO t VALUES (?)", i); err != nil {
							tx.Rollback()
							return err
						}
						return tx.Commit()
					}
					b.ReportAllocs()
					g0, u0 := groupCounts()
					defer func() {
						if g1, u1 := groupCounts(); g1 > g0 {
							b.ReportMetric(float64(u1-u0)/float64(g1-g0), "writes/group")
							b.ReportMetric(float64(u1-u0)/float64(b.N), "grouped/op")
						}
					}()
					b.ResetTimer()
					if writers == 1 {
						for i := 0; b.Loop(); i++ {
							if err := write(i); err != nil {
								b.Fatal(err)
							}
						}
						return
					}
					b.SetParallelism((writers + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
					b.RunParallel(func(pb *testing.PB) {
						for i := 0; pb.Next(); i++ {
							if err := write(i); err != nil {
								b.Error(err)
								return
							}
						}
					})
				})
			}
		}
	}
}

// groupCounts is how many groups this process committed, and how many
// writes they held (group.go).
func groupCounts() (groups, units int64) {
	return groupStats.groups.Load(), groupStats.units.Load()
}
