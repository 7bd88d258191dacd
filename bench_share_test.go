//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkFileWrite is one goroutine writing a WAL file, nobody else
// writing: with the connection alone on the file, and in a pool of 4
// connections that are all open (so the file's write turn, gate.go, is
// taken and given back at every write). Exec is an autocommit INSERT, Tx a
// BEGIN IMMEDIATE, INSERT, COMMIT.
func BenchmarkFileWrite(b *testing.B) {
	for _, conns := range []int{1, 4} {
		for _, kind := range []string{"Exec", "Tx"} {
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
