//go:build cgo

package sqlite3

// The statement cache keeps a connection's recently used single-statement
// queries prepared, so db.Exec(sql) and db.Query(sql) with the same SQL text
// skip sqlite3_prepare_v3 and sqlite3_finalize. It holds at most
// _stmt_cache_size idle statements (0 disables it), least recently used
// evicted first. SQLite itself re-prepares a cached statement after a schema
// change (sqlite3_prepare_v3 semantics); the bridge then describes its columns
// again, so a cached "SELECT *" follows ALTER TABLE.

// stmtCache is a small list, most recently used last: with a few dozen entries
// a scan beats a map and allocates nothing.
type stmtCache struct {
	idle []*SQLiteStmt
	max  int
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
	if sc.max <= 0 {
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
	if s := c.cache.take(query); s != nil {
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
	if c.cache.max > 0 && tail >= len(query) {
		s.cacheKey = query
	}
	return s, tail, rc, nil
}

// release is the end of a use of s by the connection: back to the cache when
// it can be reused, finalized otherwise.
func (c *SQLiteConn) release(s *SQLiteStmt) {
	if s.cacheKey != "" && !c.closed && !s.closed && c.cache.put(s) {
		s.closed = true // idle: no caller may use it until taken again
		return
	}
	s.finalize()
}
