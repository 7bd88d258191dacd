package harness

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// DriverName is the name every program pool opens: the driver registered
// with ConnectHook (Driver.Register), so that what a ConnectHook sets up per
// connection is part of every program.
const DriverName = "difftest"

// HookConn is what ConnectHook needs of a connection: both drivers'
// *SQLiteConn have these methods with these signatures.
type HookConn interface {
	RegisterFunc(name string, impl any, pure bool) error
	RegisterCollation(name string, cmp func(string, string) int) error
	RegisterUpdateHook(func(op int, db, table string, rowid int64))
	RegisterCommitHook(func() int)
	RegisterRollbackHook(func())
}

// connOrd numbers the connections ConnectHook sets up, in the order the
// driver opens them. The pinned connections of a program are opened one
// after another in setup, so theirs are the same on both drivers.
var connOrd atomic.Int64

// The change feed the hooks keep, as an application keeps a cache or an
// outbox: the update hook notes a change of table h in its connection's
// pending list, the commit hook publishes that list, the rollback hook
// drops it. Published must then equal the rows of h.
var (
	feedMu    sync.Mutex
	published = map[int64]bool{}
	// hooksOn: the program being run has the feed (Program.Hooks); set
	// before its pools open.
	hooksOn atomic.Bool
)

// ConnectHook sets up a new connection as a program's ConnectHook:
//   - conn_ord(): the connection's number (connOrd), a value that differs
//     per connection, as a tenant or a per-connection setting does;
//   - conn_calls(): how many times it was called on this connection;
//   - the collation "odd" (case-insensitive), on odd-numbered connections
//     only, as an optional extension would be;
//   - in the programs with Hooks, update, commit and rollback hooks that
//     keep the change feed of h.
func ConnectHook(c HookConn) error {
	ord := connOrd.Add(1)
	if err := c.RegisterFunc("conn_ord", func() int64 { return ord }, false); err != nil {
		return err
	}
	var calls int64 // only SQLite calls it, one statement at a time per connection
	if err := c.RegisterFunc("conn_calls", func() int64 { calls++; return calls }, false); err != nil {
		return err
	}
	if ord%2 == 1 {
		if err := c.RegisterCollation("odd", func(a, b string) int {
			return strings.Compare(strings.ToLower(a), strings.ToLower(b))
		}); err != nil {
			return err
		}
	}
	if !hooksOn.Load() {
		return nil
	}
	type change struct {
		del   bool
		rowid int64
	}
	var pending []change
	c.RegisterUpdateHook(func(op int, db, table string, rowid int64) {
		if db != "main" || table != "h" {
			return
		}
		feedMu.Lock()
		pending = append(pending, change{op == sqliteDelete, rowid})
		feedMu.Unlock()
	})
	c.RegisterCommitHook(func() int {
		feedMu.Lock()
		for _, ch := range pending {
			if ch.del {
				delete(published, ch.rowid)
			} else {
				published[ch.rowid] = true
			}
		}
		pending = nil
		feedMu.Unlock()
		return 0
	})
	c.RegisterRollbackHook(func() {
		feedMu.Lock()
		pending = nil
		feedMu.Unlock()
	})
	return nil
}

const sqliteDelete = 9 // SQLITE_DELETE, the update hook's op

// feedCheck compares the published change feed with the rows of h: the
// rows published but not in the table (a change the feed announced that
// was undone) and those in it never published.
func feedCheck(rows []int64) string {
	if !hooksOn.Load() {
		return fmt.Sprintf("rows=%d (no feed)", len(rows))
	}
	in := map[int64]bool{}
	for _, id := range rows {
		in[id] = true
	}
	feedMu.Lock()
	defer feedMu.Unlock()
	var ghosts, missed []int64
	for id := range published {
		if !in[id] {
			ghosts = append(ghosts, id)
		}
	}
	for id := range in {
		if !published[id] {
			missed = append(missed, id)
		}
	}
	return fmt.Sprintf("rows=%d ghosts=%s missed=%s", len(rows), ids(ghosts), ids(missed))
}

func ids(s []int64) string {
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s) > 5 {
		return fmt.Sprintf("%d%v...", len(s), s[:5])
	}
	return fmt.Sprintf("%d%v", len(s), s)
}
