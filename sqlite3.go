//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"runtime"
	"sync/atomic"
	"syscall"
	"time"
)

func init() {
	sql.Register("sqlite3", &SQLiteDriver{})
}

// Version returns SQLite's version string, version number and source id
// (sqlite3_libversion, sqlite3_libversion_number, sqlite3_sourceid).
func Version() (libVersion string, libVersionNumber int, sourceID string) {
	return cVersion()
}

// SQLiteDriver is the database/sql driver. Register your own with sql.Register
// to load extensions or run a hook on every new connection.
type SQLiteDriver struct {
	// Extensions are loaded into every new connection (sqlite3_load_extension).
	Extensions []string
	// ConnectHook runs on every new connection before it is used.
	ConnectHook func(*SQLiteConn) error
}

var (
	_ driver.Driver        = (*SQLiteDriver)(nil)
	_ driver.DriverContext = (*SQLiteDriver)(nil)
	_ driver.Connector     = (*connector)(nil)
)

// Open opens a new connection; see docs/dsn.md for the DSN grammar.
func (d *SQLiteDriver) Open(dsn string) (driver.Conn, error) {
	cfg, err := parseDSN(dsn)
	if err != nil {
		return nil, err
	}
	return d.open(context.Background(), cfg)
}

// OpenConnector parses the DSN once, for every connection of a sql.DB.
func (d *SQLiteDriver) OpenConnector(dsn string) (driver.Connector, error) {
	cfg, err := parseDSN(dsn)
	if err != nil {
		return nil, err
	}
	return &connector{d: d, cfg: cfg}, nil
}

// NewConnector returns a connector for dsn with the default driver, for
// sql.OpenDB. The DSN is parsed here, so a malformed one fails now. opts
// add what a DSN cannot say (WithTracer).
func NewConnector(dsn string, opts ...ConnectorOption) (driver.Connector, error) {
	dc, err := (&SQLiteDriver{}).OpenConnector(dsn)
	if err != nil {
		return nil, err
	}
	c := dc.(*connector)
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

type connector struct {
	d      *SQLiteDriver
	cfg    *config
	tracer Tracer // tracer.go
}

func (c *connector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.d.open(ctx, c.cfg)
	if err == nil && c.tracer != nil {
		sc := conn.(*SQLiteConn)
		sc.tracer = c.tracer
		sc.core.site = new(callSite)
		tracedSites.Store(sc.core.id, sc.core.site) // tracer.go
	}
	return conn, err
}
func (c *connector) Driver() driver.Driver { return c.d }

func (d *SQLiteDriver) open(ctx context.Context, cfg *config) (driver.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The busy timeout is the bridge's context-aware handler (SetBusyTimeout),
	// installed below, rather than sqlite3_busy_timeout's.
	h, rc := cOpen(cfg.filename, cfg.flags, cfg.vfs, 0)
	if h == nil {
		return nil, Error{Code: ErrNo(rc & ErrNoMask), ExtendedCode: ErrNoExtended(rc), offset: -1}
	}
	if rc != sqliteOK {
		err := errorFor(h, rc, 0)
		cClose(h)
		return nil, err
	}
	word := newCancelWord()
	if word.p == nil {
		cClose(h)
		return nil, Error{Code: ErrNomem, ExtendedCode: ErrNoExtended(ErrNomem), offset: -1}
	}
	setCancelWord(h, word.p)
	cSetWALBound(h, cfg.walBound)
	c := &SQLiteConn{h: h, loc: cfg.loc, txlock: cfg.txlock, deferFK: cfg.deferFK, strict: cfg.strict, word: word}
	c.core = &connCore{h: h, word: word, id: coreIDs.Add(1)}
	cSetConnID(h, c.core.id) // lockholder.go
	if key := cShareFileKey(h); key != 0 {
		c.core.gate = gateFor(key)                                                      // gate.go
		c.core.groupOn, c.core.groupSig = cfg.groupCommit, groupSig{d: d, dsn: cfg.dsn} // group.go
	}
	c.memMain = cDBFilename(h, "main") == ""
	c.cleanup = runtime.AddCleanup(c, collectConn, c.core) // lifetime.go
	c.cache.max = cfg.stmtCacheSize
	if cfg.busyTimeout > 0 {
		if err := c.SetBusyTimeout(time.Duration(cfg.busyTimeout) * time.Millisecond); err != nil {
			c.Close()
			return nil, err
		}
	}
	if err := c.configure(cfg); err != nil {
		c.Close()
		return nil, err
	}
	if err := c.loadExtensions(d.Extensions); err != nil { // extension.go
		c.Close()
		return nil, err
	}
	if d.ConnectHook != nil {
		if err := d.ConnectHook(c); err != nil {
			c.Close()
			return nil, err
		}
	}
	if cfg.replSocket != "" {
		if err := c.replicateTo(cfg); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

// replicateTo makes the connection's acknowledgements wait for Litestream
// (_replicate_wait, replicate.go), once its settings (the DSN's, then the
// ConnectHook's) are in place: Litestream replicates a WAL database file.
func (c *SQLiteConn) replicateTo(cfg *config) error {
	defer c.core.unlock(c.core.lock())
	path := cDBFilename(c.h, "main")
	if path == "" {
		return driverError("_replicate_wait needs a database file (Litestream replicates files), not an in-memory or temporary database")
	}
	wal, err := c.queryInt("SELECT journal_mode = 'wal' FROM pragma_journal_mode")
	if err != nil {
		return err
	}
	if wal == 0 {
		return driverError("_replicate_wait needs journal_mode=WAL (Litestream replicates the WAL): add _journal_mode=WAL to the DSN")
	}
	cCountCommits(c.h)
	c.core.commits = cCommits(c.h)
	c.core.repl = replicatorFor(cfg.replSocket, path, cfg.replTimeout)
	return nil
}

// configure applies the DSN's settings that are SQL or sqlite3_db_config.
func (c *SQLiteConn) configure(cfg *config) error {
	defer c.core.unlock(c.core.lock())
	if cfg.defensive {
		if rc := cDBConfig(c.h, dbconfigDefensive, 1); rc != sqliteOK {
			return errorFor(c.h, rc, 0)
		}
	}
	for _, p := range cfg.pragmas {
		if err := c.execOne(p); err != nil {
			return err
		}
	}
	return nil
}

// SQLiteConn is one connection to an SQLite database; reach it with
// sql.Conn.Raw or SQLiteDriver.ConnectHook. Its methods may be called from
// several goroutines (a connection captured in a ConnectHook, say): each C
// call holds the connection's lock, and waits for another goroutine's to end
// (lifetime.go).
type SQLiteConn struct {
	h       connHandle
	loc     *time.Location
	txlock  string
	deferFK bool
	strict  bool        // _strict (strict.go)
	tracer  Tracer      // observes its operations (tracer.go); nil: none
	closed  atomic.Bool // set under the lock (lifetime.go); read anywhere

	// Cancellation (see bridge.h): gen numbers operations; word is the word
	// the bridge polls, which a context's AfterFunc may store into at any
	// time, even after Close (lifetime.go).
	gen  uint64
	word *cancelWord

	// core is what the cleanups of a connection or statement collected
	// without Close share (lifetime.go).
	core    *connCore
	cleanup runtime.Cleanup

	// readOnlyTx is set while a BeginTx(ReadOnly) transaction runs.
	readOnlyTx bool
	// inTx is set while a BeginTx transaction runs; txLost once SQLite has
	// rolled it back on its own. txSeq numbers the BeginTx transactions, for
	// the DirectStmts prepared in one.
	inTx, txLost bool
	txSeq        uint64

	cache stmtCache

	// memMain: the main database is in memory (no file, no OS locks); see
	// SQLiteStmt.query.
	memMain bool

	// results is the rest of the block Exec results are cut from (newResult).
	results []SQLiteResult

	// hooks holds the callbacks, open blobs and backups of hooks.go, trace.go,
	// blob.go and backup.go; nil until one is used.
	hooks *connHooks
}

// onClose registers f to run after the connection has been closed (after
// sqlite3_close_v2), for resources that SQLite's callbacks may use until then.
// They release the Go handles that hooks and functions gave to C.
func (c *SQLiteConn) onClose(f func()) { c.core.cleanups = append(c.core.cleanups, f) }

var (
	_ driver.Conn               = (*SQLiteConn)(nil)
	_ driver.ConnBeginTx        = (*SQLiteConn)(nil)
	_ driver.ConnPrepareContext = (*SQLiteConn)(nil)
	_ driver.ExecerContext      = (*SQLiteConn)(nil)
	_ driver.QueryerContext     = (*SQLiteConn)(nil)
	_ driver.Pinger             = (*SQLiteConn)(nil)
	_ driver.SessionResetter    = (*SQLiteConn)(nil)
	_ driver.Validator          = (*SQLiteConn)(nil)
	_ driver.NamedValueChecker  = (*SQLiteConn)(nil)
)

// ID is the connection's number: unique in the process, in the order
// connections opened. LockHolder.Conn and TraceEvent.Conn name connections
// by it.
func (c *SQLiteConn) ID() int64 { return int64(c.core.id) }

// Close finalizes every statement still prepared on the connection and closes
// it (sqlite3_close_v2). Closing twice is harmless.
func (c *SQLiteConn) Close() error {
	k := c.core
	var held bool
	for {
		// A backup locks both its connections, in lockBoth's order: it
		// ends before this one is locked for good.
		c.finishBackups()
		held = k.lock()
		if c.closed.Load() {
			k.unlock(held)
			return nil
		}
		if x := c.hooks; x == nil || len(x.backups) == 0 {
			break
		}
		k.unlock(held) // a backup began meanwhile
	}
	defer k.unlock(held)
	c.closed.Store(true)
	c.cleanup.Stop()
	c.cache.drop()
	rc := k.closeLocked()
	c.h = nil
	if rc != sqliteOK {
		return Error{Code: ErrNo(rc & ErrNoMask), ExtendedCode: ErrNoExtended(rc), offset: -1}
	}
	return nil
}

// Ping reports driver.ErrBadConn once the connection is closed, and the
// context's error when it has ended.
func (c *SQLiteConn) Ping(ctx context.Context) error {
	if c.closed.Load() {
		return driver.ErrBadConn
	}
	return ctx.Err()
}

// ResetSession is called by database/sql before a pooled connection is reused.
func (c *SQLiteConn) ResetSession(ctx context.Context) error {
	if c.closed.Load() {
		return driver.ErrBadConn
	}
	return nil
}

// IsValid reports whether the connection may go back to the pool.
func (c *SQLiteConn) IsValid() bool { return !c.closed.Load() }

// AutoCommit reports whether the connection is outside any transaction
// (sqlite3_get_autocommit).
func (c *SQLiteConn) AutoCommit() bool {
	defer c.core.unlock(c.core.lock())
	return !c.closed.Load() && cAutocommit(c.h)
}

// watch is the cancellation of one operation: its generation (0 when its
// context can never be cancelled) and the AfterFunc that stores it.
type watch struct {
	gen  uint64
	stop func() bool
	ctx  context.Context
	cell *watchCell
}

// watchCell is what an operation's AfterFunc reads: raised is the generation
// it raises the word to, gen, which renew moves to a newer one for rows that
// outlive later operations. Once a stop has kept the AfterFunc from ever
// running, the cell serves the connection's next operation (word.spare), so
// that a cancellable operation allocates only what context.AfterFunc does,
// not a generation and a closure of its own each time.
type watchCell struct {
	raised atomic.Uint64
	word   *cancelWord
	fire   func()
}

func newWatchCell(word *cancelWord) *watchCell {
	cell := &watchCell{word: word}
	cell.fire = func() { raise(cell.word.p, cell.raised.Load()) }
	return cell
}

// watch arms cancellation for an operation run with ctx. A context without a
// Done channel costs nothing: no AfterFunc, no progress handler.
func (c *SQLiteConn) watch(ctx context.Context) (watch, error) {
	if ctx.Done() == nil {
		return watch{}, nil
	}
	if err := ctx.Err(); err != nil {
		return watch{}, err
	}
	c.gen++
	cell := c.word.spare.Swap(nil)
	if cell == nil {
		cell = newWatchCell(c.word)
	}
	cell.raised.Store(c.gen)
	stop := context.AfterFunc(ctx, cell.fire)
	return watch{gen: c.gen, stop: stop, ctx: ctx, cell: cell}, nil
}

// renew gives an operation that another took a generation after (open rows
// stepped again after a later query or Exec) the connection's newest one.
// The word only rises, so once that later operation is cancelled, raising
// the old generation would never reach the rows' step; and a late AfterFunc
// of any earlier operation cannot stop it either. Check ended() after it: an
// AfterFunc that runs later raises the new generation.
func (w *watch) renew(c *SQLiteConn) {
	if w.gen != 0 && w.gen != c.gen {
		c.gen++
		w.gen = c.gen
		w.cell.raised.Store(w.gen)
	}
}

// ended reports whether the context has ended. The AfterFunc that
// raises the cancellation word runs in a goroutine of its own, a moment after
// the cancel; the channel tells at once, without a lock.
func (w *watch) ended() bool {
	if w.gen == 0 {
		return false // no Done channel
	}
	select {
	case <-w.ctx.Done():
		return true
	default:
		return false
	}
}

// raise stores gen in the cancellation word unless a later generation is
// there already: an AfterFunc that runs late must not undo the cancellation
// of the operation now running.
func raise(word *uint64, gen uint64) {
	for {
		old := atomic.LoadUint64(word)
		if old >= gen || atomic.CompareAndSwapUint64(word, old, gen) {
			return
		}
	}
}

// done disarms the watch. An AfterFunc that still runs late is harmless: it
// raises the word to a generation no later operation uses, and never lowers it.
// Only the copy of a watch whose stop kept the AfterFunc from running hands
// its cell back (a stop reports that once): another copy, or a cell whose
// AfterFunc has started, is never handed out again.
func (w *watch) done() {
	if w.stop != nil {
		if w.stop() {
			w.cell.word.spare.Store(w.cell)
		}
		w.stop = nil
	}
}

// errorFor returns the error for result code rc of an operation: the context's
// error when the operation was interrupted because its context ended.
func (c *SQLiteConn) errorFor(rc int, w *watch, base int) error {
	if c.inTx && !c.txLost && cAutocommit(c.h) {
		// SQLite rolled the whole transaction back (an interrupt, a full
		// disk, ...): later statements of the Tx must not run on their own.
		c.txLost = true
	}
	if code := rc & ErrNoMask; (code == sqliteInterrupt || code == sqliteBusy) && w.gen != 0 && atomic.LoadUint64(c.word.p) == w.gen {
		return c.contextError(w.ctx)
	}
	err := errorFor(c.h, rc, base)
	if rc&ErrNoMask == sqliteBusy && !c.closed.Load() && (rc == sqliteBusySnapshot || !cBusyWaited(c.h)) && cUpgradeBusy(c.h) {
		// SQLite refused at once, and the transaction still holds its read
		// of main: it read before it wrote, and SQLite never lets such an
		// upgrade wait (a wait could deadlock against the writer, or the
		// snapshot it read is already stale). Said in the message; the
		// codes stay SQLite's.
		if e, ok := err.(Error); ok {
			if e.err == "" {
				e.err = cErrstr(int(e.ExtendedCode))
			}
			e.hint = upgradeBusyHint // after the holder (lockholder.go)
			return e
		}
	}
	return err
}

// upgradeBusyHint ends the message of a write refused because its
// transaction read first.
const upgradeBusyHint = " (this transaction read before it wrote, and SQLite cannot make such a transaction wait for the write lock: " +
	"begin it with BEGIN IMMEDIATE, or open the database with _txlock=immediate, to wait for the lock instead)"

// contextError is the error of an operation stopped because ctx ended.
func (c *SQLiteConn) contextError(ctx context.Context) error {
	err := ctx.Err()
	if err == nil {
		err = context.Canceled
	}
	if !c.strict {
		return err // mattn/go-sqlite3's error: programs compare it with ==
	}
	return newInterruptedError(err)
}

// nest lets a Go callback (a user function or hook running inside a step of
// this connection) run SQL on the connection: the outer operation's SQL
// buffer is set aside until the nested one ends. It returns the function that
// restores it, or nil when no step is in progress (the usual case: one field
// read).
func (c *SQLiteConn) nest() func() {
	if c.closed.Load() || !inCallback(c.h) {
		return nil
	}
	saved := takeSQLBuffer(c.h)
	return func() {
		if !c.closed.Load() {
			restoreSQLBuffer(c.h, saved)
		}
	}
}

// usable reports why the connection cannot run a statement now: closed, or
// inside a transaction that SQLite has already rolled back.
func (c *SQLiteConn) usable() error {
	if c.closed.Load() {
		return driver.ErrBadConn
	}
	if c.txLost {
		return errTxLost
	}
	return nil
}

var errTxLost = driverError("the transaction was rolled back by SQLite after an earlier error (for example an interrupted statement); roll back the Tx and start again")

// CheckNamedValue accepts the values the driver binds directly, integer and
// float kinds included, so database/sql neither converts them by reflection
// nor boxes them again; anything else goes to database/sql's default
// conversion (driver.Valuer, named types).
func (c *SQLiteConn) CheckNamedValue(nv *driver.NamedValue) error {
	switch v := nv.Value.(type) {
	case nil, int64, float64, bool, string, []byte, time.Time, ZeroBlob,
		int, int32, int16, int8, uint8, uint16, uint32, float32:
		return nil
	case uint:
		return checkUint(uint64(v))
	case uint64:
		return checkUint(v)
	}
	return driver.ErrSkip
}

// BeginTx starts a transaction with the DSN's _txlock (BEGIN, BEGIN IMMEDIATE
// or BEGIN EXCLUSIVE). SQLite transactions are serializable, whatever the
// level asked for: as mattn/go-sqlite3 does, every isolation level is accepted
// and served by SQLite's serializable isolation, which keeps every promise of
// the weaker ones (ReadUncommitted, ReadCommitted, WriteCommitted,
// RepeatableRead, Snapshot). With _strict=1 only the levels SQLite gives as
// asked are accepted (Default, Serializable, Linearizable), so that a program
// that relies on a weaker level's behaviour (seeing other transactions'
// commits, say) hears that it will not get it. A ReadOnly transaction really
// is read-only (SQLite's query_only for its duration, set without running
// the PRAGMA): writes in it fail with ErrReadonly.
func (c *SQLiteConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if c.tracer != nil {
		tx, err := traced(c, ctx, TraceBegin, "", func(ctx context.Context) (driver.Tx, error) { return c.beginTx(ctx, opts) })
		if err == nil {
			tx.(*SQLiteTx).ctx = ctx // Commit and Rollback take no context: theirs is BeginTx's
		}
		return tx, err
	}
	tx, err := c.beginTx(ctx, opts)
	if err == nil && c.core.repl != nil {
		tx.(*SQLiteTx).ctx = ctx // Commit's wait for the replica (replicate.go) is bounded by it
	}
	return tx, err
}

// beginTx is BeginTx, untraced.
func (c *SQLiteConn) beginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if c.closed.Load() {
		return nil, driver.ErrBadConn
	}
	switch sql.IsolationLevel(opts.Isolation) {
	case sql.LevelDefault, sql.LevelSerializable, sql.LevelLinearizable:
	default:
		if c.strict {
			return nil, driverError("isolation level " + sql.IsolationLevel(opts.Isolation).String() + " is refused with _strict=1: SQLite transactions are serializable (ask for sql.LevelSerializable)")
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	defer c.core.unlock(c.core.lock())
	if c.closed.Load() {
		return nil, driver.ErrBadConn
	}
	if opts.ReadOnly {
		if err := c.beginReadOnly(); err != nil {
			return nil, err
		}
	}
	begin := c.txlock
	if opts.ReadOnly {
		begin = "BEGIN" // a reader takes no write lock, whatever _txlock says
	}
	if _, err := c.execContext(ctx, begin, nil); err != nil {
		c.endReadOnly()
		return nil, err
	}
	c.inTx, c.txLost = true, false
	c.txSeq++
	if c.deferFK {
		// SQLite switches defer_foreign_keys off at every COMMIT and ROLLBACK.
		if err := c.execOne("PRAGMA defer_foreign_keys = 1"); err != nil {
			_ = c.execOne("ROLLBACK")
			c.endTx()
			return nil, err
		}
	}
	return &SQLiteTx{c: c}, nil
}

// queryInt runs a single-row, single-column statement of the driver's own.
func (c *SQLiteConn) queryInt(query string) (int64, error) {
	s, _, rc, err := c.prepareCached(query, 0)
	if err != nil {
		return 0, err
	}
	if rc != sqliteOK {
		return 0, errorFor(c.h, rc, 0)
	}
	if s == nil {
		return 0, driverError("not a statement: " + query)
	}
	defer c.release(s)
	rc = cQuery(s.h, 0, true)
	s.syncShape()
	if rc == sqliteRow && len(s.cols) == 0 {
		cReset(s.h)
		return 0, driverError("no column from: " + query)
	}
	switch rc {
	case sqliteRow:
		v := s.cols[0].int64()
		cReset(s.h)
		return v, nil
	case sqliteDone:
		return 0, driverError("no row from: " + query)
	default:
		err := errorFor(c.h, rc, 0)
		cReset(s.h)
		return 0, err
	}
}

// endTx is the end of a BeginTx transaction, committed or not.
func (c *SQLiteConn) endTx() {
	c.inTx, c.txLost = false, false
	c.endReadOnly()
}

// beginReadOnly makes the connection query-only for a read-only
// transaction, as PRAGMA query_only = 1 does, and notes whether endReadOnly
// must undo it: a connection that is query-only already (_query_only) is
// left as it is. The bridge sets SQLite's flag itself, without the three
// statements the PRAGMAs take (read, set, reset), and without the PRAGMA's
// side effect of expiring every prepared statement, which SQLite would then
// compile again at its next run. Built against another SQLite, the PRAGMAs
// run.
func (c *SQLiteConn) beginReadOnly() error {
	if was, ok := cQueryOnly(c.h, true); ok {
		c.readOnlyTx = !was
		return nil
	}
	on, err := c.queryInt("PRAGMA query_only")
	if err != nil {
		return err
	}
	if on == 0 {
		if err := c.execOne("PRAGMA query_only = 1"); err != nil {
			return err
		}
		c.readOnlyTx = true
	}
	return nil
}

// endReadOnly restores writes after a read-only transaction.
func (c *SQLiteConn) endReadOnly() {
	if c.readOnlyTx && !c.closed.Load() {
		c.readOnlyTx = false
		if _, ok := cQueryOnly(c.h, false); !ok {
			_ = c.execOne("PRAGMA query_only = 0")
		}
	}
}

// SQLiteTx is a transaction.
type SQLiteTx struct {
	c   *SQLiteConn
	ctx context.Context // BeginTx's, for the tracer (tracer.go) and Commit's wait for the replica (replicate.go); else nil
}

// Commit commits the transaction. If COMMIT fails (say SQLITE_BUSY), the
// transaction is rolled back, so the connection is never left inside it:
// database/sql considers the transaction over either way.
func (tx *SQLiteTx) Commit() error {
	if tx.c.tracer != nil {
		_, err := traced(tx.c, tx.ctx, TraceCommit, "COMMIT", func(context.Context) (struct{}, error) {
			return struct{}{}, tx.c.core.acked(tx.ctx, tx.commit()) // replicate.go
		})
		return err
	}
	return tx.c.core.acked(tx.ctx, tx.commit()) // replicate.go
}

func (tx *SQLiteTx) commit() error {
	c := tx.c
	defer c.core.unlock(c.core.lock())
	defer c.endTx()
	if c.closed.Load() {
		return driver.ErrBadConn
	}
	if cAutocommit(c.h) {
		return driverError("cannot commit: the transaction was already rolled back (for example by an interrupted statement or an error)")
	}
	if err := c.execOne("COMMIT"); err != nil {
		if !cAutocommit(c.h) {
			_ = c.execOne("ROLLBACK")
		}
		return err
	}
	return nil
}

// Rollback rolls the transaction back. Rolling back a transaction that SQLite
// already ended (after an interrupt or certain errors) is not an error.
func (tx *SQLiteTx) Rollback() error {
	if tx.c.tracer != nil {
		_, err := traced(tx.c, tx.ctx, TraceRollback, "ROLLBACK", func(context.Context) (struct{}, error) { return struct{}{}, tx.rollback() })
		return err
	}
	return tx.rollback()
}

func (tx *SQLiteTx) rollback() error {
	c := tx.c
	defer c.core.unlock(c.core.lock())
	defer c.endTx()
	if c.closed.Load() {
		return driver.ErrBadConn
	}
	if cAutocommit(c.h) {
		return nil
	}
	return c.execOne("ROLLBACK")
}

// errorFor builds the Error for result code rc from the connection's state,
// which holds the message when rc came from the call just made on it.
func errorFor(h connHandle, rc int, base int) error {
	info := cErrInfo(h)
	e := Error{Code: ErrNo(rc & ErrNoMask), ExtendedCode: ErrNoExtended(rc), offset: -1}
	if info.code == rc&ErrNoMask {
		e.ExtendedCode = ErrNoExtended(info.extended)
		e.err = info.msg
		if info.offset >= 0 {
			e.offset = base + info.offset
		}
		if e.Code == ErrIoErr || e.Code == ErrCantOpen {
			e.SystemErrno = syscall.Errno(info.sysErrno)
		}
	}
	if e.Code == ErrBusy {
		e.holder = cLockHolder(h) // lockholder.go
	}
	return withHookPanic(h, e) // hooks.go: a hook's panic made this call fail
}
