//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// Stats feeds a service's metrics. Each call takes one pooled connection for
// a lock and a copy: no SQL runs. To serve them with expvar, publish a
// function that calls it, as examples/httpservice does:
//
//	expvar.Publish("sqlite", expvar.Func(func() any {
//		st, err := sqlite3.Stats(context.Background(), db)
//		if err != nil {
//			return err.Error()
//		}
//		return st
//	}))
func ExampleStats() {
	dir, err := os.MkdirTemp("", "stats")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "app.db")+"?_journal_mode=WAL&_txlock=immediate")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	if _, err := db.Exec("CREATE TABLE events(id INTEGER PRIMARY KEY, body TEXT)"); err != nil {
		panic(err)
	}

	// Eight goroutines write at once: they take the write lock in turn.
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if _, err := db.Exec("INSERT INTO events(body) VALUES ('x')"); err != nil {
					panic(err)
				}
			}
		})
	}
	wg.Wait()

	st, err := Stats(context.Background(), db)
	if err != nil {
		panic(err)
	}
	fmt.Println("busy timeouts:", st.BusyTimeouts, "waiting now:", st.WriteQueue)
	// Output: busy timeouts: 0 waiting now: 0
}
