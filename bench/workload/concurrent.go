package workload

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Concurrent workloads (issue 23): many goroutines of one process writing one
// WAL file database, and how far its WAL grows while readers never stop.
// They measure latency distributions and a file's size, not a per-op cost,
// so they do not run under testing.Benchmark: each case runs once, on a
// fresh database, and prints one line in Go's benchmark format whose metrics
// are the case's throughput, latency percentiles and error counts.
//
// Every case opens its database with the driver's Driver.WALDSN: WAL, a
// busy timeout of BusyTimeout, BEGIN IMMEDIATE for every transaction, and the
// driver's defaults otherwise. Errors never stop a case: each failed
// transaction is rolled back and counted, busy errors apart, since "database
// is locked" under load is what these workloads are about.

// BusyTimeout is the busy timeout that Driver.WALDSN must set.
const BusyTimeout = 10 * time.Second

// Writer modes. Shared is what a service does with database/sql: every
// goroutine writes through one pool. Serial and Pool are the reference rows
// of issue 23: the same transactions from one goroutine, and the
// hand-built single-writer pool (a second sql.DB with SetMaxOpenConns(1)
// for the writes, the first for the reads).
const (
	ModeShared = "shared"
	ModeSerial = "serial"
	ModePool   = "pool"
)

// Transactions per writer, as in issue 23's measurements ("8 writers × 100
// tx of 50 inserts", "16 writers × 250 one-insert tx"), before -txscale.
const (
	txPerWriterOne   = 250
	txPerWriterFifty = 100
)

// ConcurrentCase is one concurrent workload.
type ConcurrentCase struct {
	Name string
	// Ref marks the reference rows (serial and pool writers, the WAL with
	// one reader), which compare a driver with itself.
	Ref bool

	mode             string
	inserts, writers int
	readers          int
	wal              bool
	pool             string // a Turn case's pool (PoolConns, PoolDefault, PoolFour), or ModeSerial
}

// ConcurrentCases lists every concurrent workload in the order they run.
var ConcurrentCases = concurrentCases()

func concurrentCases() []ConcurrentCase {
	var cs []ConcurrentCase
	for _, inserts := range []int{1, 50} {
		for _, readers := range []int{0, 4} {
			for _, writers := range []int{1, 4, 8, 16} {
				for _, mode := range []string{ModeShared, ModeSerial, ModePool} {
					if mode != ModeShared && writers == 1 {
						continue // all three are one goroutine on one connection
					}
					cs = append(cs, ConcurrentCase{
						Name: fmt.Sprintf("Writers/mode=%s/inserts=%d/writers=%d/readers=%d",
							mode, inserts, writers, readers),
						Ref:  mode != ModeShared,
						mode: mode, inserts: inserts, writers: writers, readers: readers,
					})
				}
			}
		}
	}
	// Issue 30's group commit: one-row autocommit writes (inserts=0) and
	// one-insert transactions from up to 64 writers, without readers.
	for _, g := range []struct{ inserts, writers int }{{0, 1}, {0, 4}, {0, 16}, {0, 64}, {1, 64}} {
		for _, mode := range []string{ModeShared, ModeSerial, ModePool} {
			if mode != ModeShared && g.writers == 1 {
				continue
			}
			cs = append(cs, ConcurrentCase{
				Name: fmt.Sprintf("Writers/mode=%s/inserts=%d/writers=%d/readers=0", mode, g.inserts, g.writers),
				Ref:  mode != ModeShared,
				mode: mode, inserts: g.inserts, writers: g.writers,
			})
		}
	}
	// Issue 41: the default write path (no group commit) under contention,
	// in the shapes a service has: one-row autocommit writes, and GORM's
	// transactions of one and of two INSERTs, through the pool as a
	// program configures it.
	for _, inserts := range []int{0, 1, 2} {
		for _, pool := range []string{PoolConns, PoolDefault, PoolFour} {
			for _, writers := range TurnWriters {
				cs = append(cs, ConcurrentCase{
					Name:    TurnName(pool, inserts, writers),
					mode:    ModeShared,
					inserts: inserts, writers: writers, pool: pool,
				})
			}
		}
		cs = append(cs, ConcurrentCase{
			Name: TurnName(ModeSerial, inserts, 1),
			Ref:  true,
			mode: ModeSerial, inserts: inserts, writers: 1, pool: ModeSerial,
		})
	}
	for _, readers := range []int{4, 1} {
		cs = append(cs, ConcurrentCase{
			Name: fmt.Sprintf("WALGrowth/readers=%d", readers),
			Ref:  readers != 4,
			wal:  true, writers: 1, readers: readers,
		})
	}
	return cs
}

// The pools of the Turn cases: a connection for every writer, all opened
// beforehand (as the Writers cases); sql.Open's defaults (no limit on open
// connections, two kept idle: the README's snippet as written); and
// SetMaxOpenConns(4), fewer connections than writers.
const (
	PoolConns   = "conns"
	PoolDefault = "default"
	PoolFour    = "4"
)

// TurnWriters are the writer counts of the Turn cases.
var TurnWriters = []int{1, 2, 4, 8, 16, 64}

// turnTxTotal is a Turn case's transactions, shared by its writers (before
// -txscale), so that a case with 64 writers takes as long as one with 1.
const turnTxTotal = 4000

// TurnName names a Turn case; pool ModeSerial is its reference row, the
// same transactions from one goroutine.
func TurnName(pool string, inserts, writers int) string {
	return fmt.Sprintf("Turn/pool=%s/inserts=%d/writers=%d", pool, inserts, writers)
}

// ConcurrentOptions sizes the concurrent workloads.
type ConcurrentOptions struct {
	// TxScale multiplies the transactions per writer (1 in real runs; a
	// smoke test uses a fraction).
	TxScale float64
	// WALFor is how long WALGrowth writes and reads.
	WALFor time.Duration
	// WALRate paces WALGrowth's writer, in rows per second (0: as fast as
	// it can). Paced, every driver puts the same bytes into its WAL, so the
	// sizes compare how checkpoints fare, not how fast drivers write.
	WALRate float64
	// Synchronous, when set, is given to PRAGMA synchronous on every
	// connection, overriding the driver's default (which differs: NORMAL
	// in WAL for ours, mattn and ncruces, FULL for modernc).
	Synchronous string
}

// ConcurrentNames returns the names of the concurrent cases that match re
// (all when nil), without the reference rows unless refs is set.
func ConcurrentNames(re *regexp.Regexp, refs bool) []string {
	var names []string
	for _, c := range ConcurrentCases {
		if (refs || !c.Ref) && (re == nil || re.MatchString(c.Name)) {
			names = append(names, c.Name)
		}
	}
	return names
}

// RunConcurrent runs the named concurrent cases on d, each on a fresh
// database in dir, and calls report with each one's benchmark line (or
// "# FAIL ..." line).
func RunConcurrent(d Driver, dir string, names []string, o ConcurrentOptions, report func(line string, failed bool)) error {
	if d.WALDSN == nil {
		return errors.New("the driver has no WALDSN")
	}
	byName := map[string]ConcurrentCase{}
	for _, c := range ConcurrentCases {
		byName[c.Name] = c
	}
	for i, n := range names {
		c, ok := byName[n]
		if !ok {
			return fmt.Errorf("unknown concurrent workload %q", n)
		}
		path := filepath.Join(dir, fmt.Sprintf("conc-%d.db", i))
		var m metrics
		var err error
		switch {
		case c.wal:
			m, err = walGrowth(d, path, c, o)
		case c.pool != "":
			m, err = turnWriters(d, path, c, o)
		default:
			m, err = writers(d, path, c, o)
		}
		for _, suffix := range []string{"", "-wal", "-shm"} {
			os.Remove(path + suffix)
		}
		if err != nil {
			report(fmt.Sprintf("# FAIL Benchmark%s: %s", c.Name, oneLine(err.Error())), true)
			continue
		}
		report(m.line(c.Name), false)
	}
	return nil
}

// walConfig checks that db is in WAL mode and describes the
// settings the driver left at its defaults, for the output's header.
func walConfig(db *sql.DB) (string, error) {
	var mode string
	var busy, sync, autockpt int
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil {
		return "", err
	}
	if err := db.QueryRow("PRAGMA busy_timeout").Scan(&busy); err != nil {
		return "", err
	}
	// SQLITE_DEFAULT_WAL_SYNCHRONOUS takes effect when a transaction finds
	// the file in WAL mode, not on the connection that just switched it:
	// read once so that PRAGMA synchronous says what the cases' commits get.
	if err := db.QueryRow("SELECT count(*) FROM sqlite_master").Scan(&autockpt); err != nil {
		return "", err
	}
	if err := db.QueryRow("PRAGMA synchronous").Scan(&sync); err != nil {
		return "", err
	}
	if err := db.QueryRow("PRAGMA wal_autocheckpoint").Scan(&autockpt); err != nil {
		return "", err
	}
	// busy_timeout is reported, not checked: a driver whose busy timeout is
	// a busy handler of its own (this one, for contexts) reads 0 there.
	if !strings.EqualFold(mode, "wal") {
		return "", fmt.Errorf("WALDSN gave journal_mode=%s, want wal", mode)
	}
	return fmt.Sprintf("journal_mode=%s busy_timeout=%d synchronous=%d wal_autocheckpoint=%d",
		strings.ToLower(mode), busy, sync, autockpt), nil
}

// ConcurrentConfig opens a scratch database in dir with d.WALDSN and
// returns its settings as one line, checking WAL.
func ConcurrentConfig(d Driver, dir string, o ConcurrentOptions) (string, error) {
	path := filepath.Join(dir, "config.db")
	defer func() {
		for _, suffix := range []string{"", "-wal", "-shm"} {
			os.Remove(path + suffix)
		}
	}()
	db, err := openPool(d, path, 1, o)
	if err != nil {
		return "", err
	}
	defer db.Close()
	return walConfig(db)
}

// openPool opens path with d.WALDSN on a pool of exactly conns connections,
// all opened now, so that no case times a connection's opening, and never
// replaced, so that o.Synchronous holds on every connection the case uses.
func openPool(d Driver, path string, conns int, o ConcurrentOptions) (*sql.DB, error) {
	dsn := d.WALDSN(path)
	pragma := o.Synchronous
	if pragma != "" && d.SyncParam != "" {
		dsn += "&" + d.SyncParam + "=" + pragma
		pragma = ""
	}
	db, err := sql.Open(d.SQLName, dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	cs := make([]*sql.Conn, conns)
	for i := range cs {
		if cs[i], err = db.Conn(context.Background()); err != nil {
			db.Close()
			return nil, err
		}
		// The first query makes drivers that apply DSN pragmas lazily apply
		// them now, before anything is timed.
		var one int
		if err = cs[i].QueryRowContext(context.Background(), "SELECT 1").Scan(&one); err != nil {
			db.Close()
			return nil, err
		}
		if pragma != "" {
			if _, err = cs[i].ExecContext(context.Background(), "PRAGMA synchronous = "+pragma); err != nil {
				db.Close()
				return nil, err
			}
		}
	}
	for _, c := range cs {
		c.Close()
	}
	return db, nil
}

// latencies collects one goroutine's durations; merged after the run.
type latencies []time.Duration

// percentile is the nearest-rank percentile p (0-100) of sorted d.
func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	i := int(math.Ceil(p/100*float64(len(d)))) - 1
	return d[max(0, min(i, len(d)-1))]
}

// metrics is one case's result: its count, wall time and named values.
type metrics struct {
	n     int
	wall  time.Duration
	units []string
	vals  map[string]float64
}

func (m *metrics) add(unit string, v float64) {
	if m.vals == nil {
		m.vals = map[string]float64{}
	}
	m.units = append(m.units, unit)
	m.vals[unit] = v
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// addLatencies adds the p50, p99 and max of d, in milliseconds, as
// <prefix>p50-ms and so on.
func (m *metrics) addLatencies(prefix string, d []time.Duration) {
	slices.Sort(d)
	m.add(prefix+"p50-ms", ms(percentile(d, 50)))
	m.add(prefix+"p99-ms", ms(percentile(d, 99)))
	m.add(prefix+"max-ms", ms(percentile(d, 100)))
}

func (m metrics) line(name string) string {
	var sb strings.Builder
	ns := 0.0
	if m.n > 0 {
		ns = float64(m.wall.Nanoseconds()) / float64(m.n)
	}
	fmt.Fprintf(&sb, "Benchmark%s-%d\t%8d\t%s ns/op", name, runtime.GOMAXPROCS(0), m.n, fmtFloat(ns))
	for _, u := range m.units {
		fmt.Fprintf(&sb, "\t%s %s", fmtFloat(m.vals[u]), u)
	}
	return sb.String()
}

// isBusy reports whether err is SQLite's SQLITE_BUSY (or SQLITE_LOCKED),
// by its message: the drivers' error types differ, their messages all carry
// SQLite's text.
func isBusy(err error) bool {
	s := strings.ToLower(err.Error())
	return strings.Contains(s, "database is locked") || strings.Contains(s, "busy") ||
		strings.Contains(s, "database table is locked")
}

// errCount counts failed transactions, busy ones apart, and keeps the first
// error's text for the output.
type errCount struct {
	all, busy atomic.Int64
	first     sync.Once
	firstErr  string
}

func (e *errCount) add(err error) {
	e.all.Add(1)
	if isBusy(err) {
		e.busy.Add(1)
	}
	e.first.Do(func() { e.firstErr = err.Error() })
}

// readerLoop runs query over and over until stop is closed, scanning every
// row, and returns its latencies. Errors are counted, not fatal. It calls
// ready once, after its first query.
func readerLoop(db *sql.DB, query string, stop <-chan struct{}, ready func(), errs *errCount) latencies {
	var lat latencies
	var id int64
	var v []byte
	for first := true; ; first = false {
		if !first {
			select {
			case <-stop:
				return lat
			default:
			}
		}
		t0 := time.Now()
		rows, err := db.Query(query)
		if err == nil {
			for rows.Next() {
				if err = rows.Scan(&id, &v); err != nil {
					break
				}
			}
			if err == nil {
				err = rows.Err()
			}
			rows.Close()
		}
		if err != nil {
			errs.add(err)
		} else {
			lat = append(lat, time.Since(t0))
		}
		if first {
			ready()
		}
	}
}

// startReaders starts n readerLoops on db and returns once each has run a
// query, so that the writers timed next meet readers already reading; the
// returned function stops them and returns their merged latencies.
func startReaders(db *sql.DB, n int, query string, errs *errCount) func() []time.Duration {
	stop := make(chan struct{})
	out := make([]latencies, n)
	var wg, ready sync.WaitGroup
	ready.Add(n)
	for i := range n {
		wg.Go(func() { out[i] = readerLoop(db, query, stop, ready.Done, errs) })
	}
	ready.Wait()
	return func() []time.Duration {
		close(stop)
		wg.Wait()
		var all []time.Duration
		for _, l := range out {
			all = append(all, l...)
		}
		return all
	}
}

const (
	sqlWritersSchema = "CREATE TABLE t (id INTEGER PRIMARY KEY, writer INTEGER, n INTEGER, v BLOB)"
	sqlWritersInsert = "INSERT INTO t (writer, n, v) VALUES (?, ?, ?)"
	// Readers of the writer cases read the newest rows: short queries on
	// the pages the writers are changing.
	sqlWritersRead = "SELECT id, v FROM t ORDER BY id DESC LIMIT 10"
	writersPrefill = 1000
	writersRowSize = 100
)

// writers runs one Writers case: c.writers goroutines (one in serial mode)
// committing their transactions of c.inserts rows as fast as they can, with
// c.readers goroutines reading meanwhile.
func writers(d Driver, path string, c ConcurrentCase, o ConcurrentOptions) (metrics, error) {
	perWriter := txPerWriterOne
	if c.inserts > 1 {
		perWriter = txPerWriterFifty
	}
	perWriter = max(1, int(math.Round(float64(perWriter)*o.TxScale)))
	goroutines, txEach := c.writers, perWriter
	conns := c.writers + c.readers
	switch c.mode {
	case ModeSerial:
		goroutines, txEach = 1, c.writers*perWriter
		conns = 1 + c.readers
	case ModePool:
		conns = 1 + c.readers // the readers', and one for the setup and checks
	}
	db, err := openPool(d, path, conns, o)
	if err != nil {
		return metrics{}, err
	}
	defer db.Close()
	if _, err := walConfig(db); err != nil {
		return metrics{}, err
	}
	payload := make([]byte, writersRowSize)
	for i := range payload {
		payload[i] = byte('a' + i%26)
	}
	if err := execAll(db, sqlWritersSchema); err != nil {
		return metrics{}, err
	}
	if err := fill(db, writersPrefill, payload); err != nil {
		return metrics{}, err
	}
	wdb := db
	if c.mode == ModePool {
		if wdb, err = openPool(d, path, 1, o); err != nil {
			return metrics{}, err
		}
		defer wdb.Close()
	}

	var werrs, rerrs errCount
	stopReaders := startReaders(db, c.readers, sqlWritersRead, &rerrs)
	start := make(chan struct{})
	lat := make([]latencies, goroutines)
	var wg sync.WaitGroup
	for w := range goroutines {
		wg.Go(func() {
			<-start
			for i := range txEach {
				t0 := time.Now()
				if err := writeTx(wdb, w, i, c.inserts, payload); err != nil {
					werrs.add(err)
					continue
				}
				lat[w] = append(lat[w], time.Since(t0))
			}
		})
	}
	t0 := time.Now()
	close(start)
	wg.Wait()
	wall := time.Since(t0)
	readLat := stopReaders()

	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	var rows int
	if err := db.QueryRow("SELECT count(*) FROM t").Scan(&rows); err != nil {
		return metrics{}, err
	}
	if want := writersPrefill + len(all)*max(c.inserts, 1); rows != want {
		return metrics{}, fmt.Errorf("%d rows after %d committed transactions, want %d", rows, len(all), want)
	}
	m := metrics{n: len(all), wall: wall}
	m.add("tx/s", float64(len(all))/wall.Seconds())
	m.addLatencies("", all)
	m.add("errors", float64(werrs.all.Load()))
	m.add("busy-errors", float64(werrs.busy.Load()))
	if c.readers > 0 {
		m.add("reads/s", float64(len(readLat))/wall.Seconds())
		m.addLatencies("read-", readLat)
		m.add("read-errors", float64(rerrs.all.Load()))
	}
	if werrs.all.Load() > 0 || rerrs.all.Load() > 0 {
		fmt.Fprintf(os.Stderr, "%s: first writer error %q, first reader error %q\n",
			c.Name, werrs.firstErr, rerrs.firstErr)
	}
	return m, nil
}

// fill inserts n rows of payload in one transaction.
func fill(db *sql.DB, n int, payload []byte) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for i := range n {
		if _, err := tx.Exec(sqlWritersInsert, -1, i, payload); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// writeTx is one writer transaction: BEGIN (IMMEDIATE, by the DSN), inserts
// rows, COMMIT; a failure rolls back. With inserts 0 it is one row's
// autocommit Exec.
func writeTx(db *sql.DB, writer, i, inserts int, payload []byte) error {
	if inserts == 0 {
		_, err := db.Exec(sqlWritersInsert, writer, i, payload)
		return err
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	for k := range inserts {
		if _, err := tx.Exec(sqlWritersInsert, writer, i*inserts+k, payload); err != nil {
			tx.Rollback()
			return err
		}
	}
	return tx.Commit()
}

const (
	sqlWALSchema = "CREATE TABLE big (id INTEGER PRIMARY KEY, v BLOB)"
	sqlWALInsert = "INSERT INTO big (v) VALUES (?)"
	// Short queries that overlap: each reads the newest rows, so with
	// several readers looping some read transaction is nearly always open.
	sqlWALRead   = "SELECT id, v FROM big ORDER BY id DESC LIMIT 10"
	walRowSize   = 1024
	walSampleGap = 2 * time.Millisecond
	walMaxLag    = 100 * time.Millisecond
)

// walGrowth runs one WALGrowth case: one goroutine inserting walRowSize-byte
// rows (one per autocommit statement, o.WALRate a second) for o.WALFor while c.readers
// goroutines run sqlWALRead back to back, sampling the WAL file's size.
func walGrowth(d Driver, path string, c ConcurrentCase, o ConcurrentOptions) (metrics, error) {
	db, err := openPool(d, path, 1+c.readers, o)
	if err != nil {
		return metrics{}, err
	}
	defer db.Close()
	if _, err := walConfig(db); err != nil {
		return metrics{}, err
	}
	if err := execAll(db, sqlWALSchema); err != nil {
		return metrics{}, err
	}
	payload := make([]byte, walRowSize)
	for i := range payload {
		payload[i] = byte(i * 7)
	}

	var maxWAL atomic.Int64
	stopSampler := make(chan struct{})
	var sampler sync.WaitGroup
	sampler.Go(func() {
		tick := time.NewTicker(walSampleGap)
		defer tick.Stop()
		for {
			if fi, err := os.Stat(path + "-wal"); err == nil && fi.Size() > maxWAL.Load() {
				maxWAL.Store(fi.Size())
			}
			select {
			case <-stopSampler:
				return
			case <-tick.C:
			}
		}
	})

	var werrs, rerrs errCount
	stopReaders := startReaders(db, c.readers, sqlWALRead, &rerrs)
	var lat []time.Duration
	var gap time.Duration
	if o.WALRate > 0 {
		gap = time.Duration(float64(time.Second) / o.WALRate)
	}
	t0 := time.Now()
	next := t0
	for time.Since(t0) < o.WALFor {
		if gap > 0 {
			next = next.Add(gap)
			// A writer that fell behind (a slow commit, a descheduled
			// process) resumes the pace instead of bursting to catch up.
			if now := time.Now(); now.Before(next) {
				time.Sleep(next.Sub(now))
			} else if now.Sub(next) > walMaxLag {
				next = now
			}
		}
		t := time.Now()
		if _, err := db.Exec(sqlWALInsert, payload); err != nil {
			werrs.add(err)
			continue
		}
		lat = append(lat, time.Since(t))
	}
	wall := time.Since(t0)
	readLat := stopReaders()
	close(stopSampler)
	sampler.Wait()
	var endWAL int64
	if fi, err := os.Stat(path + "-wal"); err == nil {
		endWAL = fi.Size()
	}

	const mb = 1 << 20
	m := metrics{n: len(lat), wall: wall}
	m.add("wal-max-MB", float64(max(maxWAL.Load(), endWAL))/mb)
	m.add("wal-end-MB", float64(endWAL)/mb)
	m.add("rows/s", float64(len(lat))/wall.Seconds())
	m.addLatencies("", lat)
	m.add("errors", float64(werrs.all.Load()))
	m.add("busy-errors", float64(werrs.busy.Load()))
	m.add("reads/s", float64(len(readLat))/wall.Seconds())
	m.addLatencies("read-", readLat)
	m.add("read-errors", float64(rerrs.all.Load()))
	if werrs.all.Load() > 0 || rerrs.all.Load() > 0 {
		fmt.Fprintf(os.Stderr, "%s: first writer error %q, first reader error %q\n",
			c.Name, werrs.firstErr, rerrs.firstErr)
	}
	return m, nil
}

// turnWriters runs one Turn case: c.writers goroutines (one for the serial
// reference) sharing turnTxTotal transactions of c.inserts rows (0: one
// autocommit INSERT), through the pool c.pool.
func turnWriters(d Driver, path string, c ConcurrentCase, o ConcurrentOptions) (metrics, error) {
	total := max(1, int(math.Round(turnTxTotal*o.TxScale)))
	goroutines := c.writers
	txEach := (total + goroutines - 1) / goroutines
	var db *sql.DB
	var err error
	switch c.pool {
	case PoolConns:
		db, err = openPool(d, path, c.writers, o)
	case PoolFour:
		db, err = openPool(d, path, 4, o)
	case ModeSerial:
		db, err = openPool(d, path, 1, o)
	default:
		// As sql.Open leaves it. Connections opened later get
		// o.Synchronous only through the DSN (d.SyncParam).
		db, err = openPool(d, path, 1, o)
		db.SetMaxOpenConns(0)
		db.SetMaxIdleConns(-1) // forget the one opened, then database/sql's default of 2
		db.SetMaxIdleConns(2)
	}
	if err != nil {
		return metrics{}, err
	}
	defer db.Close()
	if _, err := walConfig(db); err != nil {
		return metrics{}, err
	}
	payload := make([]byte, writersRowSize)
	for i := range payload {
		payload[i] = byte('a' + i%26)
	}
	if err := execAll(db, sqlWritersSchema); err != nil {
		return metrics{}, err
	}
	if err := fill(db, writersPrefill, payload); err != nil {
		return metrics{}, err
	}

	var werrs errCount
	start := make(chan struct{})
	lat := make([]latencies, goroutines)
	var wg sync.WaitGroup
	ctx := context.Background()
	for w := range goroutines {
		wg.Go(func() {
			<-start
			for i := range txEach {
				t0 := time.Now()
				if err := turnTx(ctx, db, w, i, c.inserts, payload); err != nil {
					werrs.add(err)
					continue
				}
				lat[w] = append(lat[w], time.Since(t0))
			}
		})
	}
	t0 := time.Now()
	close(start)
	wg.Wait()
	wall := time.Since(t0)

	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	var rows int
	if err := db.QueryRow("SELECT count(*) FROM t").Scan(&rows); err != nil {
		return metrics{}, err
	}
	if want := writersPrefill + len(all)*max(c.inserts, 1); rows != want {
		return metrics{}, fmt.Errorf("%d rows after %d committed transactions, want %d", rows, len(all), want)
	}
	m := metrics{n: len(all), wall: wall}
	m.add("tx/s", float64(len(all))/wall.Seconds())
	m.addLatencies("", all)
	m.add("errors", float64(werrs.all.Load()))
	m.add("busy-errors", float64(werrs.busy.Load()))
	// The WAL file's size is its largest: a restart reuses it from the
	// start, and nothing truncated it (none of these runs reaches a bound).
	if fi, err := os.Stat(path + "-wal"); err == nil {
		m.add("wal-B", float64(fi.Size()))
	}
	if werrs.all.Load() > 0 {
		fmt.Fprintf(os.Stderr, "%s: first writer error %q\n", c.Name, werrs.firstErr)
	}
	return m, nil
}

// turnTx is one Turn transaction as GORM runs one: BeginTx, the INSERTs,
// Commit; with inserts 0, one autocommit ExecContext.
func turnTx(ctx context.Context, db *sql.DB, writer, i, inserts int, payload []byte) error {
	if inserts == 0 {
		_, err := db.ExecContext(ctx, sqlWritersInsert, writer, i, payload)
		return err
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	for k := range inserts {
		if _, err := tx.ExecContext(ctx, sqlWritersInsert, writer, i*inserts+k, payload); err != nil {
			tx.Rollback()
			return err
		}
	}
	return tx.Commit()
}
