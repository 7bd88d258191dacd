//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"encoding/json"
	"expvar"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// Stats feeds a service's metrics: here expvar, which serves them as JSON at
// /debug/vars once the program imports net/http/pprof or mounts
// expvar.Handler. Each call takes one pooled connection for a lock and a
// copy: no SQL runs.
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

	expvar.Publish("sqlite_app_db", expvar.Func(func() any {
		st, err := Stats(context.Background(), db)
		if err != nil {
			return err.Error()
		}
		return st
	}))

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

	var st FileStats
	if err := json.Unmarshal([]byte(expvar.Get("sqlite_app_db").String()), &st); err != nil {
		panic(err)
	}
	fmt.Println("busy timeouts:", st.BusyTimeouts, "waiting now:", st.WriteQueue)
	// Output: busy timeouts: 0 waiting now: 0
}
