//go:build cgo

package sqlite3

// The statement cache keeps a connection's recently used single-statement
// queries prepared, so db.Exec(sql) and db.Query(sql) with the same SQL text
// skip sqlite3_prepare_v3 and sqlite3_finalize. It holds at most
// _stmt_cache_size idle statements (0 disables it), least recently used
// evicted first. SQLite itself re-prepares a cached statement after a schema
// change (sqlite3_prepare_v3 semantics); the bridge then describes its columns
// again, so a cached "SELECT *" follows ALTER TABLE.
//
// The cache must never change a result. SQLite applies two settings only when
// it compiles a statement and does not expire statements when they change:
// the run-time limits (sqlite3_limit: the number of variables, the SQL length,
// expression depth, ...) and the decisions of an authorizer, which is a
// callback whose answers may change from call to call (sqlite3_set_authorizer
// expires statements when the callback is replaced, not when its answers
// change). So SetLimit drops every idle statement and retires those in use
// (epoch), and while an authorizer is registered nothing is cached: each
// statement is compiled, and authorized, as it would be without a cache. Other
// prepare-time state (PRAGMAs that change code generation, functions and
// collations, the schema) expires statements inside SQLite, which re-prepares
// them before their next step.

import "strings"

// stmtCache is a small list, most recently used last: with a few dozen entries
// a scan beats a map and allocates nothing.
type stmtCache struct {
	idle []*SQLiteStmt
	max  int
	// off is set while an authorizer is registered: nothing is taken or kept.
	off bool
	// epoch counts the changes of prepare-time state (limits); a statement
	// prepared in an earlier epoch is finalized instead of kept.
	epoch uint64
}

// take removes and returns an idle statement prepared from query.
func (sc *stmtCache) take(query string) *SQLiteStmt {
	for i := len(sc.idle) - 1; i >= 0; i-- {
		if s := sc.idle[i]; s.cacheKey == query {
			copy(sc.idle[i:], sc.idle[i+1:])
			sc.idle[len(sc.idle)-1] = nil
			sc.idle = sc.idle[:len(sc.idle)-1]
			return s
		}
	}
	return nil
}

// put keeps s for reuse, finalizing the least recently used statement when
// full. It reports false when s was not kept (caching disabled).
func (sc *stmtCache) put(s *SQLiteStmt) bool {
	if sc.max <= 0 || sc.off || s.epoch != sc.epoch {
		return false
	}
	if len(sc.idle) >= sc.max {
		old := sc.idle[0]
		copy(sc.idle, sc.idle[1:])
		sc.idle[len(sc.idle)-1] = nil
		sc.idle = sc.idle[:len(sc.idle)-1]
		old.finalize()
	}
	sc.idle = append(sc.idle, s)
	return true
}

// retire finalizes every idle statement and makes those in use be finalized
// when released: something SQLite reads only at prepare time has changed.
func (sc *stmtCache) retire() {
	sc.epoch++
	for i, s := range sc.idle {
		s.finalize()
		sc.idle[i] = nil
	}
	sc.idle = sc.idle[:0]
}

// drop forgets every idle statement (their C side is freed by the caller).
func (sc *stmtCache) drop() {
	for i := range sc.idle {
		sc.idle[i] = nil
	}
	sc.idle = sc.idle[:0]
}

// prepareCached returns a statement for query, from the cache when possible.
// A statement the cache may keep afterwards has s.cacheKey set.
func (c *SQLiteConn) prepareCached(query string, gen uint64) (*SQLiteStmt, int, int, error) {
	if c.cache.off {
		// An authorizer decides at each prepare (see above).
	} else if s := c.cache.take(query); s != nil {
		s.closed = false
		s.releaseOnRowsClose = false
		return s, len(query), sqliteOK, nil
	}
	// A cached statement's text passed this check when it was prepared; a
	// hit skips the scan of the SQL.
	if err := checkQuery(query); err != nil {
		return nil, 0, sqliteOK, err
	}
	h, tail, rc := cPrepare(c.h, query, 0, gen)
	if rc != sqliteOK || h == nil {
		return nil, tail, rc, nil
	}
	s := newStmt(c, h)
	if c.cache.max > 0 && !c.cache.off && tail >= len(query) {
		s.cacheKey, s.epoch = query, c.cache.epoch
	}
	return s, tail, rc, nil
}

// release is the end of a use of s by the connection: back to the cache when
// it can be reused, finalized otherwise.
func (c *SQLiteConn) release(s *SQLiteStmt) {
	if s.cacheKey != "" && !c.closed.Load() && !s.closed && c.cache.put(s) {
		s.closed = true // idle: no caller may use it until taken again
		return
	}
	s.finalize()
}

// checkQuery rejects SQL that SQLite would silently cut short.
func checkQuery(query string) error {
	if i := strings.IndexByte(query, 0); i >= 0 {
		return driverError("query contains a NUL byte at offset " + itoa(i))
	}
	if len(query) >= maxLength {
		return errTooBig(len(query))
	}
	return nil
}
