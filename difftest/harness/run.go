package harness

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Driver is what a driver's program passes to Main.
type Driver struct {
	Label string
	// Code returns the SQLite result codes of err, if it is (or wraps) the
	// driver's Error.
	Code func(err error) (code, extended int, ok bool)
	// Stats, when set, describes what the driver did on a pool's file
	// (this driver: its group commits); printed on stderr as "# stat ...",
	// outside the transcript.
	Stats func(db *sql.DB) string
	// Register registers the driver as name, with hook as its ConnectHook.
	Register func(name string, hook func(HookConn) error)
	// Direct, when set, runs query on the connection dc (sql.Conn.Raw's)
	// with the driver's direct statement API and returns every row. Unset
	// (mattn has no such API), the same SQL runs through database/sql, on
	// the connection's transaction if it has one: the outcome must match.
	Direct func(dc any, query string, args []any) ([][]any, error)
	// Blob, when set, reads len(p) bytes at off (write false) or writes p at
	// off of main.b.data in row rowid with incremental BLOB I/O on dc.
	// Unset, the same runs through SQL.
	Blob func(dc any, rowid int64, off int, p []byte, write bool) error
}

// Main runs the programs of the seeds given by the flags and prints their
// transcripts on stdout.
func Main(d Driver) {
	seed := flag.Uint64("seed", 1, "first seed")
	count := flag.Int("count", 1, "programs: seeds seed, seed+1, ...")
	text := flag.Bool("text", false, "print each program before its transcript")
	flag.Parse()
	d.Register(DriverName, ConnectHook)
	for s := *seed; s < *seed+uint64(*count); s++ {
		p := Generate(s)
		if *text {
			fmt.Print(p.Text())
		}
		if err := Run(p, d, os.Stdout); err != nil {
			fmt.Printf("setup failed: %v\n", err)
			os.Exit(2)
		}
	}
}

type runner struct {
	d     Driver
	p     *Program
	w     io.Writer
	dir   string
	ctx   context.Context
	pools map[string]*sql.DB
	conns []*sql.Conn
	dbs   []*sql.DB
	txs   []*sql.Tx
	rows  []*sql.Rows
	img   [2][]byte
	flags int // the sessions phase running
	// blobbed: a BLOB write op ran on the connection (connState.blobbed).
	blobbed map[int]bool
}

// Run executes p and writes its transcript to w.
func Run(p *Program, d Driver, w io.Writer) error {
	dir, err := os.MkdirTemp("", "difftest")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	r := &runner{d: d, p: p, w: w, dir: dir, ctx: context.Background(), pools: map[string]*sql.DB{}, blobbed: map[int]bool{}}
	hooksOn.Store(p.Hooks)
	fmt.Fprintf(w, "program seed=%d mode=%s ops=%d\n", p.Seed, p.Mode, len(p.Ops))
	if err := r.setup(); err != nil {
		return err
	}
	for i, o := range p.Ops {
		out := r.op(o)
		// A phase's further lines each name a category: "op N cK kind.CAT: ...".
		first, more, _ := strings.Cut(out, "\n")
		fmt.Fprintf(w, "op %d c%d %s: %s\n", i, o.Conn, o.Kind, first)
		for _, l := range strings.Split(more, "\n") {
			if l != "" {
				fmt.Fprintf(w, "op %d c%d %s.%s\n", i, o.Conn, o.Kind, l)
			}
		}
		if f, ok := w.(*os.File); ok {
			f.Sync()
		}
	}
	for _, c := range r.conns {
		c.Close()
	}
	if d.Stats != nil {
		for _, db := range r.pools { // one file: any pool says it
			fmt.Fprintln(os.Stderr, "# stat "+d.Stats(db))
			break
		}
	}
	for _, db := range r.pools {
		db.Close()
	}
	r.dump("main", filepath.Join(dir, "main.db"))
	fmt.Fprintf(w, "final hooks %s\n", r.feedFile(filepath.Join(dir, "main.db")))
	r.dump("aux", filepath.Join(dir, "aux.db"))
	return nil
}

func (r *runner) setup() error {
	main := filepath.Join(r.dir, "main.db")
	db, err := sql.Open("sqlite3", "file:"+main+"?_journal_mode="+r.p.Mode)
	if err != nil {
		return err
	}
	_, err = db.Exec(`CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER UNIQUE, v TEXT);
		INSERT INTO t(k, v) VALUES(1, 'a'), (2, 'b'), (3, 'c'), (4, 'd'), (5, 'e');
		CREATE TABLE parent(id INTEGER PRIMARY KEY, tag TEXT);
		CREATE TABLE child(id INTEGER PRIMARY KEY, pid INTEGER REFERENCES parent(id), tag TEXT);
		CREATE TABLE dchild(id INTEGER PRIMARY KEY, pid INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED, tag TEXT);
		CREATE TABLE c(id INTEGER PRIMARY KEY, v INTEGER CHECK (v >= 0));
		CREATE TABLE u(id INTEGER PRIMARY KEY, v INTEGER);
		CREATE TRIGGER u_fail BEFORE INSERT ON u WHEN new.v < 0 BEGIN SELECT RAISE(FAIL, 'negative'); END;
		CREATE TABLE h(id INTEGER PRIMARY KEY, v INTEGER CHECK (v >= 0));
		CREATE TABLE b(id INTEGER PRIMARY KEY, data BLOB);
		INSERT INTO b(id, data) VALUES(1, zeroblob(32)), (2, zeroblob(32)), (3, zeroblob(32)), (4, zeroblob(32));
		CREATE TABLE fn(id INTEGER PRIMARY KEY, tag TEXT, ord INTEGER, n INTEGER)`)
	db.Close()
	if err != nil {
		return err
	}
	db, err = sql.Open("sqlite3", "file:"+filepath.Join(r.dir, "aux.db")+"?_journal_mode="+r.p.Mode)
	if err != nil {
		return err
	}
	_, err = db.Exec("CREATE TABLE a(id INTEGER PRIMARY KEY, v TEXT)")
	db.Close()
	if err != nil {
		return err
	}
	// The fixed image: a table m and free pages, so that a few rows fit in
	// it (mattn's deserialized database cannot grow).
	mem, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		return err
	}
	defer mem.Close()
	mem.SetMaxOpenConns(1)
	if _, err := mem.Exec(`CREATE TABLE m(x); INSERT INTO m VALUES(1), (2);
		CREATE TABLE pad(b); INSERT INTO pad VALUES(zeroblob(200000)); DROP TABLE pad`); err != nil {
		return err
	}
	c, err := mem.Conn(r.ctx)
	if err != nil {
		return err
	}
	err = c.Raw(func(dc any) error {
		var err error
		r.img[0], err = dc.(serializer).Serialize("main")
		return err
	})
	c.Close()
	if err != nil {
		return err
	}
	r.img[1] = r.img[0]
	for _, cs := range r.p.Conns {
		dsn := cs.DSN(main, r.p.Mode, r.p.FK)
		db := r.pools[dsn]
		if db == nil {
			db, err = sql.Open(DriverName, dsn)
			if err != nil {
				return err
			}
			r.pools[dsn] = db
		}
		c, err := db.Conn(r.ctx)
		if err != nil {
			return fmt.Errorf("%s: %w", dsn, err)
		}
		r.conns = append(r.conns, c)
		r.dbs = append(r.dbs, db)
	}
	r.txs = make([]*sql.Tx, len(r.conns))
	r.rows = make([]*sql.Rows, len(r.conns))
	return nil
}

type serializer interface {
	Serialize(schema string) ([]byte, error)
	Deserialize(b []byte, schema string) error
}

type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func (r *runner) q(c int) querier {
	if r.txs[c] != nil {
		return r.txs[c]
	}
	return r.conns[c]
}

var deserRC = regexp.MustCompile(`deserialize failed with return (\d+)`)

// class is the canonical outcome of err.
func (r *runner) class(err error) string {
	if err == nil {
		return "ok"
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return "canceled"
	}
	code, ext, ok := r.d.Code(err)
	if !ok {
		// mattn's Deserialize reports SQLite's code in its text only.
		if m := deserRC.FindStringSubmatch(err.Error()); m != nil {
			code, _ = strconv.Atoi(m[1])
			ext, ok = code, true
		}
	}
	if !ok {
		return "go-error: " + err.Error()
	}
	name := map[int]string{5: "busy", 6: "locked", 8: "readonly", 9: "canceled", 13: "full", 19: "constraint"}[code]
	if name == "" {
		name = "error"
	}
	if code == 9 {
		return name
	}
	return fmt.Sprintf("%s(%d/%d)", name, code, ext)
}

// rollbackClass is the outcome of a Rollback: one class for "done", and
// for "SQLite had already rolled the transaction back" (an interrupted
// write, OR ROLLBACK), which mattn reports as SQLite's "no transaction is
// active" and this driver as done (rollback-ended in Exceptions).
func (r *runner) rollbackClass(err error) string {
	if cl := r.class(err); cl != "error(1/1)" {
		return cl
	}
	return "ok"
}

func (r *runner) op(o Op) (out string) {
	defer func() {
		if e := recover(); e != nil {
			out = fmt.Sprintf("panic: %v", e)
		}
	}()
	ctx := r.ctx
	c := o.Conn
	sqlText := strings.ReplaceAll(o.SQL, "$AUX", "'"+filepath.Join(r.dir, "aux.db")+"'")
	switch o.Kind {
	case KExec:
		res, err := r.q(c).ExecContext(ctx, sqlText, o.Args...)
		if err != nil {
			return r.class(err)
		}
		if !isDML(o.SQL) && r.blobbed[c] {
			// RowsAffected is the connection's last DML's count: on mattn
			// that may be the UPDATE that stands in for a BLOB write.
			return "ok"
		}
		n, _ := res.RowsAffected()
		if strings.HasPrefix(o.SQL, "INSERT") {
			id, _ := res.LastInsertId()
			return fmt.Sprintf("ok n=%d id=%d", n, id)
		}
		return fmt.Sprintf("ok n=%d", n)
	case KDirect:
		return r.direct(ctx, r.conns[c], r.q(c), sqlText, o.Args)
	case KBlob:
		var data []byte
		if o.Data != "" {
			data = []byte(o.Data)
			r.blobbed[c] = true
		}
		return r.blob(ctx, r.conns[c], r.q(c), o.Args[0].(int64), o.Ms, data, 8)
	case KSlowWrite:
		cctx, cancel := context.WithTimeout(ctx, time.Duration(o.Ms)*time.Millisecond)
		defer cancel()
		_, err := r.q(c).ExecContext(cctx, sqlText, o.Args...)
		return r.class(err)
	case KQuery:
		rows, err := r.q(c).QueryContext(ctx, sqlText, o.Args...)
		if err != nil {
			return r.class(err)
		}
		s, err := readRows(rows, -1, o.SQL)
		if err != nil {
			return r.class(err)
		}
		return "ok " + s
	case KBegin:
		tx, err := r.conns[c].BeginTx(ctx, nil)
		if err != nil {
			return r.class(err)
		}
		r.txs[c] = tx
		return "ok"
	case KCommit, KRollback:
		tx := r.txs[c]
		r.txs[c] = nil
		if tx == nil {
			return "no transaction"
		}
		if o.Kind == KCommit {
			return r.class(tx.Commit())
		}
		return r.rollbackClass(tx.Rollback())
	case KVacuum:
		target := filepath.Join(r.dir, fmt.Sprintf("vac-%d.db", o.Seq))
		if _, err := r.q(c).ExecContext(ctx, "VACUUM INTO ?", target); err != nil {
			return r.class(err)
		}
		return "ok " + r.check(target)
	case KDeser:
		err := r.conns[c].Raw(func(dc any) error { return dc.(serializer).Deserialize(r.img[o.Img], "main") })
		return r.class(err)
	case KSer:
		var b []byte
		err := r.conns[c].Raw(func(dc any) error {
			var err error
			b, err = dc.(serializer).Serialize("main")
			return err
		})
		if err != nil {
			return r.class(err)
		}
		r.img[1] = b
		return "ok " + r.loadImage(b)
	case KOpen:
		rows, err := r.q(c).QueryContext(ctx, sqlText)
		if err != nil {
			return r.class(err)
		}
		s, err := readRows(rows, 1, "")
		if err != nil {
			rows.Close()
			return r.class(err)
		}
		r.rows[c] = rows
		return "ok " + s
	case KClose:
		rows := r.rows[c]
		r.rows[c] = nil
		if rows == nil {
			return "no reader"
		}
		s, err := readRows(rows, -1, "")
		if err != nil {
			return r.class(err)
		}
		return "ok rest " + s
	case KLeak:
		func() {
			rows, err := r.dbs[c].QueryContext(ctx, o.SQL, o.Args...)
			if err != nil {
				out = r.class(err)
				return
			}
			if rows.Next() {
				out = "ok row"
			} else {
				out = "ok " + r.class(rows.Err())
			}
			// dropped without Close
		}()
		// mattn finalizes the leaked statement (and commits a leaked write)
		// on the finalizer goroutine, after the collection: under load 30 ms
		// was once too short for it, and the next op met its commit's lock.
		for i := 0; i < 5; i++ {
			runtime.GC()
			time.Sleep(20 * time.Millisecond)
		}
		r.waitLeakFinalized()
		return out
	case KCancelPre:
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		rows, err := r.q(c).QueryContext(cctx, sqlText)
		if err == nil {
			_, err = readRows(rows, -1, "")
		}
		// mattn may run the statement before it sees the cancellation:
		// either outcome is one class.
		if cl := r.class(err); cl != "ok" && cl != "canceled" {
			return cl
		}
		return "ok-or-canceled"
	case KCancelDur:
		cctx, cancel := context.WithTimeout(ctx, time.Duration(o.Ms)*time.Millisecond)
		defer cancel()
		rows, err := r.q(c).QueryContext(cctx, sqlText)
		if err == nil {
			_, err = readRows(rows, -1, "")
		}
		return r.class(err)
	case KPhase:
		if o.Phase == PSessions {
			return "ok\n" + strings.Join(r.sessions(o), "\n")
		}
		return r.phase(o)
	}
	return "unknown op"
}

// readRows reads up to max rows (all if max < 0) and describes them: the
// count and the values, or a hash of them if long. A wal_checkpoint row
// keeps its first column only (frame counts depend on checkpoints this
// driver's WAL bound may have run).
func readRows(rows *sql.Rows, max int, query string) (string, error) {
	cols, err := rows.Columns()
	if err != nil {
		rows.Close()
		return "", err
	}
	var lines []string
	for (max < 0 || len(lines) < max) && rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			rows.Close()
			return "", err
		}
		if strings.Contains(query, "wal_checkpoint") {
			vals = vals[:1]
		}
		lines = append(lines, formatRow(vals))
	}
	if max >= 0 {
		return strings.Join(lines, ";"), rows.Err()
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return "", err
	}
	if err := rows.Close(); err != nil {
		return "", err
	}
	return summarize(lines), nil
}

func formatRow(vals []any) string {
	f := make([]string, len(vals))
	for i, v := range vals {
		switch v := v.(type) {
		case nil:
			f[i] = "NULL"
		case []byte:
			f[i] = strconv.Quote(string(v))
		case string:
			f[i] = strconv.Quote(v)
		case time.Time:
			f[i] = v.UTC().Format(time.RFC3339Nano)
		default:
			f[i] = fmt.Sprint(v)
		}
	}
	return strings.Join(f, "|")
}

func summarize(lines []string) string {
	s := strings.Join(lines, ";")
	if len(s) <= 160 {
		return fmt.Sprintf("rows=%d [%s]", len(lines), s)
	}
	return fmt.Sprintf("rows=%d sha=%x", len(lines), sha256.Sum256([]byte(s)))
}

// check opens a VACUUM INTO target on its own and describes it.
func (r *runner) check(path string) string {
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		return "open: " + r.class(err)
	}
	defer db.Close()
	return strings.Join(describe(db, r.class), " ")
}

// loadImage loads a Serialize image into a scratch in-memory database and
// describes it.
func (r *runner) loadImage(b []byte) string {
	mem, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		return r.class(err)
	}
	defer mem.Close()
	c, err := mem.Conn(r.ctx)
	if err != nil {
		return r.class(err)
	}
	defer c.Close()
	if err := c.Raw(func(dc any) error { return dc.(serializer).Deserialize(b, "main") }); err != nil {
		return "deserialize: " + r.class(err)
	}
	var n int
	if err := c.QueryRowContext(r.ctx, "SELECT count(*) FROM sqlite_schema").Scan(&n); err != nil {
		return "image: " + r.class(err)
	}
	var rows string
	if err := c.QueryRowContext(r.ctx, "SELECT count(*) || '/' || total(k) FROM t").Scan(&rows); err != nil {
		rows = r.class(err)
	}
	return fmt.Sprintf("image schema=%d t=%s", n, rows)
}

// describe is a database's canonical content: integrity, user_version,
// schema and every table's rows, sorted.
func describe(db *sql.DB, class func(error) string) []string {
	var out []string
	one := func(label, q string) {
		rows, err := db.Query(q)
		if err != nil {
			out = append(out, label+"="+class(err))
			return
		}
		s, err := readRows(rows, -1, q)
		if err != nil {
			s = class(err)
		}
		out = append(out, label+"="+s)
	}
	one("integrity", "PRAGMA integrity_check")
	one("user_version", "PRAGMA user_version")
	one("schema", "SELECT type, name, sql FROM sqlite_schema ORDER BY name")
	var tables []string
	rows, err := db.Query("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name")
	if err == nil {
		for rows.Next() {
			var n string
			rows.Scan(&n)
			tables = append(tables, n)
		}
		rows.Close()
	}
	sort.Strings(tables)
	for _, t := range tables {
		one("table "+t, fmt.Sprintf("SELECT * FROM %q ORDER BY 1", t))
	}
	return out
}

func (r *runner) dump(label, path string) {
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		fmt.Fprintf(r.w, "final %s: open %s\n", label, r.class(err))
		return
	}
	defer db.Close()
	one := func(q string) string {
		var s string
		if err := db.QueryRow(q).Scan(&s); err != nil {
			return r.class(err)
		}
		return s
	}
	fmt.Fprintf(r.w, "final %s journal_mode=%s\n", label, one("PRAGMA journal_mode"))
	for _, l := range describe(db, r.class) {
		fmt.Fprintf(r.w, "final %s %s\n", label, l)
	}
}

// phase runs a concurrent phase on connections of its own, and describes it
// by counts that do not depend on how the goroutines interleave.
func (r *runner) phase(o Op) string {
	main := filepath.Join(r.dir, "main.db")
	spec := r.p.Conns[o.Conn]
	w := Conn{TxLock: spec.TxLock, Busy: 2000, WALBound: spec.WALBound}
	wdb, err := sql.Open(DriverName, w.DSN(main, r.p.Mode, r.p.FK))
	if err != nil {
		return r.class(err)
	}
	defer wdb.Close()
	rodb, err := sql.Open(DriverName, Conn{TxLock: "deferred", Busy: 2000, RO: true, WALBound: spec.WALBound}.DSN(main, r.p.Mode, r.p.FK))
	if err != nil {
		return r.class(err)
	}
	defer rodb.Close()
	// Work beside the writers: in WAL it never waits for them on a correct
	// driver, so its busy timeout is short; in rollback mode it may wait
	// for a writer's commit, so it is long.
	sideBusy := 2000
	if r.p.Mode == "WAL" {
		sideBusy = 1
	}
	sdb, err := sql.Open(DriverName, Conn{TxLock: "deferred", Busy: sideBusy, WALBound: spec.WALBound}.DSN(main, r.p.Mode, r.p.FK))
	if err != nil {
		return r.class(err)
	}
	defer sdb.Close()

	var mu sync.Mutex
	counts := map[string]int{}
	count := func(who string, err error) {
		mu.Lock()
		counts[who+" "+r.class(err)]++
		mu.Unlock()
	}
	var wg sync.WaitGroup
	writer := func(g int, db *sql.DB, n, per int) {
		defer wg.Done()
		for j := 0; j < n; j++ {
			tx, err := db.BeginTx(r.ctx, nil)
			if err == nil {
				for i := 0; i < per && err == nil; i++ {
					key := 100000*o.Seq + 1000*g + 10*j + i // id = k: the rows do not depend on the commit order
					_, err = tx.Exec("INSERT INTO t(id, k, v) VALUES(?, ?, ?)", key, key, fmt.Sprintf("p%d", g))
				}
				if err == nil {
					err = tx.Commit()
				} else {
					tx.Rollback()
				}
			}
			count("writer", err)
		}
	}
	reader := func(n int) {
		defer wg.Done()
		for j := 0; j < n; j++ {
			var x int
			count("reader", rodb.QueryRow("SELECT count(*) FROM t").Scan(&x))
		}
	}
	switch o.Phase {
	case PWriters, PSide:
		for g := 0; g < o.G; g++ {
			wg.Add(1)
			go writer(g, wdb, o.N, 1+g%3)
		}
		wg.Add(1)
		go reader(2 * o.N)
		if o.Phase == PSide {
			// each side goroutine on a connection of its own
			sides := []func(c *sql.Conn, j int) error{
				func(c *sql.Conn, j int) error {
					if j == 0 {
						if _, err := c.ExecContext(r.ctx, "CREATE TEMP TABLE ps(x)"); err != nil {
							return err
						}
					}
					_, err := c.ExecContext(r.ctx, "INSERT INTO temp.ps VALUES(?)", j)
					return err
				},
				func(c *sql.Conn, j int) error {
					if j == 0 {
						path := filepath.Join(r.dir, fmt.Sprintf("side-%d.db", o.Seq))
						if _, err := c.ExecContext(r.ctx, "ATTACH ? AS side", path); err != nil {
							return err
						}
						if _, err := c.ExecContext(r.ctx, "CREATE TABLE side.x(v)"); err != nil {
							return err
						}
					}
					_, err := c.ExecContext(r.ctx, "INSERT INTO side.x VALUES(?)", j)
					return err
				},
				func(c *sql.Conn, j int) error {
					q := []string{"PRAGMA journal_mode", "PRAGMA wal_checkpoint(PASSIVE)", "PRAGMA journal_mode=" + r.p.Mode}[j%3]
					rows, err := c.QueryContext(r.ctx, q)
					if err != nil {
						return err
					}
					for rows.Next() {
					}
					if err := rows.Err(); err != nil {
						rows.Close()
						return err
					}
					return rows.Close()
				},
				func(c *sql.Conn, j int) error {
					if j > 1 {
						return nil
					}
					_, err := c.ExecContext(r.ctx, "VACUUM INTO ?", filepath.Join(r.dir, fmt.Sprintf("pvac-%d-%d.db", o.Seq, j)))
					return err
				},
			}
			names := []string{"temp", "attach", "pragma", "vacinto"}
			for s, f := range sides {
				c, err := sdb.Conn(r.ctx)
				if err != nil {
					count(names[s]+"-open", err)
					continue
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer c.Close()
					for j := 0; j < o.N; j++ {
						count(names[s], f(c, j))
					}
				}()
			}
		}
		wg.Wait()
	case PBackup:
		// A table large enough for VACUUM INTO to take a while.
		if _, err := wdb.Exec(`CREATE TABLE IF NOT EXISTS big(id INTEGER PRIMARY KEY, a TEXT);
			WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM n WHERE i < ` + strconv.Itoa(bigRowsKV) + `)
			INSERT INTO big(a) SELECT printf('%040d', i) FROM n`); err != nil {
			return "setup " + r.class(err)
		}
		bdb, err := sql.Open(DriverName, Conn{TxLock: spec.TxLock, Busy: 2, WALBound: spec.WALBound}.DSN(main, r.p.Mode, r.p.FK))
		if err != nil {
			return r.class(err)
		}
		defer bdb.Close()
		bdb.SetMaxOpenConns(1)
		if err := bdb.Ping(); err != nil {
			return r.class(err)
		}
		done := make(chan struct{})
		wg.Add(1)
		go func() { // the app's writes, while the backup runs
			defer wg.Done()
			for j := 0; ; j++ {
				select {
				case <-done:
					return
				default:
				}
				_, err := bdb.Exec("INSERT INTO t(k, v) VALUES(?, 'backup')", 100000*o.Seq+j)
				if err != nil {
					count("writer", err)
				}
				time.Sleep(time.Millisecond)
			}
		}()
		for j := 0; j < 2; j++ {
			_, err := sdb.Exec("VACUUM INTO ?", filepath.Join(r.dir, fmt.Sprintf("bvac-%d-%d.db", o.Seq, j)))
			count("backup", err)
		}
		close(done)
		wg.Wait()
		// The rows the writer put in depend on timing: drop them, and the table.
		if _, err := wdb.Exec("DELETE FROM t WHERE v = 'backup'; DROP TABLE big"); err != nil {
			count("cleanup", err)
		}
	}
	// Leave the WAL empty: how much of it the phase's own checkpoints (a
	// side goroutine's, a commit's) copied depends on timing, and a later
	// checkpoint's outcome on it (on a read-only connection: IOERR_WRITE if
	// there is anything to copy).
	var busy int
	err = wdb.QueryRow("PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, new(int), new(int))
	count(fmt.Sprintf("checkpoint(busy=%d)", busy), err)
	var keys []string
	for k, n := range counts {
		keys = append(keys, fmt.Sprintf("%s=%d", k, n))
	}
	sort.Strings(keys)
	return "ok " + strings.Join(keys, " ")
}

// direct runs query with the driver's direct API on c (inside its
// transaction, if it has one: docs/direct.md), or, on a driver without one,
// through q, the connection's transaction or the connection.
func (r *runner) direct(ctx context.Context, c *sql.Conn, q querier, query string, args []any) string {
	if r.d.Direct == nil {
		rows, err := q.QueryContext(ctx, query, args...)
		if err != nil {
			return r.class(err)
		}
		s, err := readRows(rows, -1, query)
		if err != nil {
			return r.class(err)
		}
		return "ok " + s
	}
	var got [][]any
	err := c.Raw(func(dc any) error {
		var err error
		got, err = r.d.Direct(dc, query, args)
		return err
	})
	if err != nil {
		return r.class(err)
	}
	lines := make([]string, len(got))
	for i, row := range got {
		lines[i] = formatRow(row)
	}
	return "ok " + summarize(lines)
}

// blob reads n bytes at off of main.b.data in row rowid, or writes data
// there, with the driver's incremental BLOB I/O on c, or through SQL on q:
// the value read, spliced and written back whole.
func (r *runner) blob(ctx context.Context, c *sql.Conn, q querier, rowid int64, off int, data []byte, n int) string {
	write := data != nil
	p := data
	if !write {
		p = make([]byte, n)
	}
	var err error
	if r.d.Blob != nil {
		err = c.Raw(func(dc any) error { return r.d.Blob(dc, rowid, off, p, write) })
	} else {
		err = sqlBlob(ctx, q, rowid, off, p, write)
	}
	switch {
	case err != nil:
		// sqlite3_blob_open reports most failures as SQLITE_ERROR, where the
		// SQL that stands in for it on mattn keeps the cause's code
		// (CANTOPEN, BUSY): the class is that it failed.
		return "blob:failed"
	case write:
		return "blob:ok"
	}
	return fmt.Sprintf("blob:ok %x", p)
}

func sqlBlob(ctx context.Context, q querier, rowid int64, off int, p []byte, write bool) error {
	rows, err := q.QueryContext(ctx, "SELECT data FROM b WHERE id = ?", rowid)
	if err != nil {
		return err
	}
	var cur []byte
	found := rows.Next()
	if found {
		err = rows.Scan(&cur)
	}
	if err == nil {
		err = rows.Err()
	}
	rows.Close()
	switch {
	case err != nil:
		return err
	case !found || off+len(p) > len(cur):
		return errBlobRange
	case !write:
		copy(p, cur[off:])
		return nil
	}
	copy(cur[off:], p)
	_, err = q.ExecContext(ctx, "UPDATE b SET data = ? WHERE id = ?", cur, rowid)
	return err
}

// errBlobRange is what the programs avoid: a row that is not there, or
// bytes past a value's end (sqlite3_blob_open and sqlite3_blob_read fail
// with SQLITE_ERROR there, which SQL does not mimic).
var errBlobRange = errors.New("difftest: blob row or range out of the program's bounds")

// feedFile is the hooks' change feed against the rows of h in the file.
func (r *runner) feedFile(path string) string {
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		return r.class(err)
	}
	defer db.Close()
	return r.feed(db)
}

// waitLeakFinalized waits, up to a second, until a connection of a pool of
// its own can take the write lock: a leaked write keeps it until its driver
// finalizes the statement, which on a loaded machine takes longer than the
// collections above, and the next op would meet that lock on one driver
// and not on the other. (Where a transaction of the program holds the lock,
// both drivers wait the whole second alike.)
func (r *runner) waitLeakFinalized() {
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(r.dir, "main.db")+"?_busy_timeout=0")
	if err != nil {
		return
	}
	defer db.Close()
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); {
		if _, err := db.Exec("BEGIN IMMEDIATE; ROLLBACK"); err == nil {
			return
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}
