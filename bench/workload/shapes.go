package workload

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/fastsqlite/sqlite3/bench/nopdriver"
)

// Application-shaped workloads (issue 41): read-only transactions, a
// prepared tiny query, populating a table, a blog's mix of reads and writes,
// and analytic queries on a populated file. Each fixture is a file with a
// pool of connections held open, as an application's; the writing ones run
// in WAL mode with PRAGMA synchronous=NORMAL on their one connection, so that
// every driver does the same work per commit (modernc's default in WAL mode
// is FULL, an fsync per commit; the others compile NORMAL in).

const (
	// readOnlyReads is the number of point reads of ReadOnlyTx/10.
	readOnlyReads = 10

	populateRows  = 1000 // rows inserted per op by Populate
	populateName  = 32   // characters of each row's TEXT
	populateBlob  = 128  // bytes of each row's BLOB
	blogPosts     = 1000
	blogComments  = 10 // comments per post in the fixture, and read per post
	blogBodyChars = 500

	analyticEvents = 20000
	analyticUsers  = 1000
	analyticTags   = 8
	analyticKinds  = 5
	// analyticWindowUsers is how many users' events the window query reads.
	analyticWindowUsers = 10
)

const (
	sqlSyncNormal = "PRAGMA synchronous=NORMAL"

	sqlPopulateCreate = "CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT NOT NULL, data BLOB NOT NULL)"
	sqlPopulateInsert = "INSERT INTO items (name, data) VALUES (?, ?)"
	sqlPopulateDelete = "DELETE FROM items"
	sqlPopulateCount  = "SELECT count(*), sum(length(name)), sum(length(data)) FROM items"

	sqlBlogPosts = `CREATE TABLE posts (id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL,
		comment_count INTEGER NOT NULL, created INTEGER NOT NULL)`
	sqlBlogComments = `CREATE TABLE comments (id INTEGER PRIMARY KEY,
		post_id INTEGER NOT NULL REFERENCES posts(id), author TEXT NOT NULL, body TEXT NOT NULL,
		created INTEGER NOT NULL)`
	sqlBlogIndex       = "CREATE INDEX comments_post ON comments (post_id, id)"
	sqlBlogReadPost    = "SELECT id, title, body, comment_count, created FROM posts WHERE id = ?"
	sqlBlogReadComment = "SELECT id, author, body, created FROM comments WHERE post_id = ? ORDER BY id DESC LIMIT 10"
	sqlBlogInsert      = "INSERT INTO comments (post_id, author, body, created) VALUES (?, ?, ?, ?)"
	sqlBlogBump        = "UPDATE posts SET comment_count = comment_count + 1 WHERE id = ?"
	// sqlBlogCheck must give two equal numbers: every comment counted once.
	sqlBlogCheck = "SELECT (SELECT count(*) FROM comments), (SELECT sum(comment_count) FROM posts)"

	sqlAnalyticCreate = `CREATE TABLE events (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL,
		kind TEXT NOT NULL, amount REAL NOT NULL, ts INTEGER NOT NULL, payload TEXT NOT NULL)`
	sqlAnalyticIndex = "CREATE INDEX events_user ON events (user_id)"
	sqlAnalyticCount = "SELECT count(*), count(DISTINCT user_id) FROM events"
	// sqlAnalyticJSON: per tag of the 'buy' events' JSON payloads, the
	// number of events and their total quantity.
	sqlAnalyticJSON = `SELECT j.value AS tag, count(*), sum(json_extract(e.payload, '$.qty'))
		FROM events e, json_each(e.payload, '$.tags') j
		WHERE e.kind = 'buy' GROUP BY tag ORDER BY tag`
	// sqlAnalyticWindow: a running total and rank of each event of a range
	// of users, per user.
	sqlAnalyticWindow = `SELECT id, user_id, amount, sum(amount) OVER w, row_number() OVER w
		FROM events WHERE user_id BETWEEN ? AND ?
		WINDOW w AS (PARTITION BY user_id ORDER BY ts)`
	// sqlAnalyticGroupBy: per user, the number, total and mean of events.
	sqlAnalyticGroupBy = `SELECT user_id, count(*), sum(amount), avg(amount)
		FROM events GROUP BY user_id ORDER BY user_id`
)

var (
	// The blog: blogPosts posts of ~blogBodyChars characters, each with
	// blogComments comments.
	sqlBlogFillPosts = fmt.Sprintf(`WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM r WHERE x < %d)
		INSERT INTO posts SELECT x, printf('Post number %%d', x),
			substr(replace(hex(zeroblob(%d)), '00', 'lorem ipsum '), 1, %d), %d, 1700000000 + x FROM r`,
		blogPosts, blogBodyChars/12+1, blogBodyChars, blogComments)
	sqlBlogFillComments = fmt.Sprintf(`WITH RECURSIVE r(x) AS (SELECT 0 UNION ALL SELECT x+1 FROM r WHERE x < %d)
		INSERT INTO comments (post_id, author, body, created)
		SELECT x %% %d + 1, printf('user%%d', x %% 97), printf('Comment %%d: %%s', x,
			substr(replace(hex(zeroblob(10)), '00', 'well said '), 1, 100)), 1700000000 + x FROM r`,
		blogPosts*blogComments-1, blogPosts)

	// The events: analyticEvents rows over analyticUsers users, with a JSON
	// payload of a quantity and two tags.
	sqlAnalyticFill = fmt.Sprintf(`WITH RECURSIVE r(x) AS (SELECT 0 UNION ALL SELECT x+1 FROM r WHERE x < %d)
		INSERT INTO events SELECT x + 1, x %% %d + 1,
			CASE x %% %d WHEN 0 THEN 'view' WHEN 1 THEN 'click' WHEN 2 THEN 'cart' WHEN 3 THEN 'buy' ELSE 'refund' END,
			(x %% 97) * 1.25, 1700000000 + x * 37,
			json_object('qty', x %% 7 + 1, 'tags', json_array('t' || (x %% %d), 't' || ((x / %d) %% %d)),
				'src', CASE x %% 3 WHEN 0 THEN 'web' WHEN 1 THEN 'app' ELSE 'api' END)
		FROM r`, analyticEvents-1, analyticUsers, analyticKinds, analyticTags, analyticTags, analyticTags)
)

// mixGen is the blog's deterministic choice of requests: the same sequence
// on every driver (xorshift, as the point lookups' keys).
type mixGen uint64

func (g *mixGen) next() uint64 {
	*g ^= *g << 13
	*g ^= *g >> 7
	*g ^= *g << 17
	return uint64(*g)
}

// walFile opens name in the env's directory with a pool of conns
// connections, in WAL mode, and runs stmts on it, then a checkpoint.
func (e *env) walFile(name string, conns int, stmts ...string) (*sql.DB, error) {
	db, err := e.file(name, conns)
	if err != nil {
		return nil, err
	}
	var mode string
	if err := db.QueryRow(sqlWAL).Scan(&mode); err != nil {
		return nil, err
	}
	if !strings.EqualFold(mode, "wal") {
		return nil, fmt.Errorf("journal_mode is %q, want wal", mode)
	}
	return db, execAll(db, append(stmts, sqlCheckpoint)...)
}

// readOnlyTx runs reads point reads of PointLookup's table in a read-only
// transaction per op: BeginTx with ReadOnly, QueryRow by primary key, Commit.
func readOnlyTx(b *testing.B, e *env, reads int) error {
	db, err := e.pointDB()
	if err != nil {
		return err
	}
	ctx := context.Background()
	opts := &sql.TxOptions{ReadOnly: true}
	r := xorshift(1)
	return loop(b, func() error {
		tx, err := db.BeginTx(ctx, opts)
		if err != nil {
			return err
		}
		for range reads {
			var v string
			if err := tx.QueryRowContext(ctx, sqlPointLookup, r.key()).Scan(&v); err != nil {
				tx.Rollback()
				return err
			}
			if v == "" {
				tx.Rollback()
				return errors.New("empty value")
			}
		}
		return tx.Commit()
	})
}

// pointStmt is PointLookup/1 through a *sql.Stmt prepared once: one column
// of one row per op.
func pointStmt(b *testing.B, e *env) error {
	db, err := e.pointDB()
	if err != nil {
		return err
	}
	st, err := db.Prepare(sqlPointLookup)
	if err != nil {
		return err
	}
	defer st.Close()
	r := xorshift(1)
	var v string
	return loop(b, func() error {
		if err := st.QueryRow(r.key()).Scan(&v); err != nil {
			return err
		}
		if v == "" {
			return errors.New("empty value")
		}
		return nil
	})
}

// populateDB holds Populate's table, in a WAL file.
func (e *env) populateDB() (*sql.DB, error) {
	return once(e, "populate", func() (*sql.DB, error) {
		return e.walFile("populate.db", 1, sqlSyncNormal, sqlPopulateCreate)
	})
}

// populate inserts populateRows rows of a TEXT and a BLOB per op in one
// transaction, through a statement prepared in it: an application filling a
// table. The rows are made before the timer, as an importer holds its data;
// emptying the table between ops is not timed.
func populate(b *testing.B, e *env) error {
	db, err := e.populateDB()
	if err != nil {
		return err
	}
	names := make([]string, populateRows)
	blobs := make([][]byte, populateRows)
	for i := range names {
		names[i] = fmt.Sprintf("item %06d %s", i, strings.Repeat("x", populateName-12))
		blobs[i] = make([]byte, populateBlob)
		for j := range blobs[i] {
			blobs[i][j] = byte(i + j)
		}
	}
	insert := func() error {
		tx, err := db.Begin()
		if err != nil {
			return err
		}
		defer tx.Rollback() // no-op after Commit
		st, err := tx.Prepare(sqlPopulateInsert)
		if err != nil {
			return err
		}
		defer st.Close()
		for i := range populateRows {
			if _, err := st.Exec(names[i], blobs[i]); err != nil {
				return err
			}
		}
		return tx.Commit()
	}
	b.ReportAllocs()
	var cpu cpuMeter
	for b.Loop() {
		b.StopTimer()
		if err := execAll(db, sqlPopulateDelete); err != nil {
			return err
		}
		b.StartTimer()
		cpu.begin()
		if err := insert(); err != nil {
			return err
		}
		cpu.end()
	}
	cpu.report(b)
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*populateRows), "ns/row")
	var n, nameLen, blobLen int
	if err := db.QueryRow(sqlPopulateCount).Scan(&n, &nameLen, &blobLen); err != nil {
		return err
	}
	if n != populateRows || nameLen != populateRows*populateName || blobLen != populateRows*populateBlob {
		return fmt.Errorf("items has %d rows, %d characters, %d bytes; want %d, %d, %d",
			n, nameLen, blobLen, populateRows, populateRows*populateName, populateRows*populateBlob)
	}
	return nil
}

// blogDB holds the blog's posts and comments, in a WAL file read and written
// through one connection.
func (e *env) blogDB() (*sql.DB, error) {
	return once(e, "blog", func() (*sql.DB, error) {
		db, err := e.walFile("blog.db", 1, sqlSyncNormal, sqlBlogPosts, sqlBlogComments,
			sqlBlogFillPosts, sqlBlogFillComments, sqlBlogIndex, "ANALYZE")
		if err != nil {
			return nil, err
		}
		return db, blogCheck(db)
	})
}

// blogCheck checks that every comment is counted once in its post's
// comment_count, and that none is lost.
func blogCheck(db *sql.DB) error {
	var comments, counted int
	if err := db.QueryRow(sqlBlogCheck).Scan(&comments, &counted); err != nil {
		return err
	}
	if comments != counted || comments < blogPosts*blogComments {
		return fmt.Errorf("%d comments, %d counted in posts; want equal and at least %d",
			comments, counted, blogPosts*blogComments)
	}
	return nil
}

// querier is what *sql.DB and *sql.Tx have in common for the blog.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

// blogRead reads a post and its ten newest comments, as a post's page does.
func blogRead(ctx context.Context, q querier, post int64) error {
	var (
		id, count, created int64
		title, body        string
	)
	if err := q.QueryRowContext(ctx, sqlBlogReadPost, post).Scan(&id, &title, &body, &count, &created); err != nil {
		return err
	}
	rows, err := q.QueryContext(ctx, sqlBlogReadComment, post)
	if err != nil {
		return err
	}
	var (
		cid, ccreated int64
		author, text  string
	)
	n, err := scanAll(rows, &cid, &author, &text, &ccreated)
	if err == nil && n != blogComments {
		err = fmt.Errorf("post %d: %d comments, want %d", post, n, blogComments)
	}
	return err
}

// blogWrite posts a comment: it inserts the comment and counts it in its
// post.
func blogWrite(ctx context.Context, q querier, post, seq int64) error {
	if _, err := q.ExecContext(ctx, sqlBlogInsert, post, "reader", "Thanks for this post, it helped.", 1800000000+seq); err != nil {
		return err
	}
	_, err := q.ExecContext(ctx, sqlBlogBump, post)
	return err
}

// blog runs the blog's mix: per op, a request for a pseudo-random post
// that is a write (a comment posted) with probability writePct percent,
// otherwise a read (the post and its newest comments). With tx, a read is a
// read-only transaction and a write a transaction; without, every statement
// commits alone.
func blog(b *testing.B, e *env, writePct uint64, tx bool) error {
	db, err := e.blogDB()
	if err != nil {
		return err
	}
	ctx := context.Background()
	readOnly := &sql.TxOptions{ReadOnly: true}
	g := mixGen(writePct + 1)
	seq := int64(0)
	op := func() error {
		x := g.next()
		post := int64(x%blogPosts) + 1
		write := (x>>32)%100 < writePct
		if !tx {
			if write {
				seq++
				return blogWrite(ctx, db, post, seq)
			}
			return blogRead(ctx, db, post)
		}
		var opts *sql.TxOptions
		if !write {
			opts = readOnly
		}
		t, err := db.BeginTx(ctx, opts)
		if err != nil {
			return err
		}
		if write {
			seq++
			err = blogWrite(ctx, t, post, seq)
		} else {
			err = blogRead(ctx, t, post)
		}
		if err != nil {
			t.Rollback()
			return err
		}
		return t.Commit()
	}
	if err := loop(b, op); err != nil {
		return err
	}
	return blogCheck(db)
}

// analyticDB holds the events, in a WAL file.
func (e *env) analyticDB() (*sql.DB, error) {
	return once(e, "analytic", func() (*sql.DB, error) {
		db, err := e.walFile("analytic.db", 1, sqlAnalyticCreate, sqlAnalyticFill, sqlAnalyticIndex, "ANALYZE")
		if err != nil {
			return nil, err
		}
		var n, users int
		if err := db.QueryRow(sqlAnalyticCount).Scan(&n, &users); err != nil {
			return nil, err
		}
		if n != analyticEvents || users != analyticUsers {
			return nil, fmt.Errorf("events has %d rows of %d users, want %d of %d", n, users, analyticEvents, analyticUsers)
		}
		return db, nil
	})
}

// analyticQuery is one analytic workload: its SQL and arguments, and what
// its result must be.
type analyticQuery struct {
	sql      string
	args     []any
	wantRows int
	// newRow returns the scan targets of one row and a function that checks
	// the row scanned into them and accumulates it; done checks the totals.
	newRow func() (dest []any, row func() error, done func() error)
}

// analytic runs q per op on the events, reading every row; each op must read
// q.wantRows rows. The rows are checked one by one, and then as a whole, on a
// first run before the timer.
func analytic(b *testing.B, e *env, q analyticQuery) error {
	db, err := e.analyticDB()
	if err != nil {
		return err
	}
	dest, row, done := q.newRow()
	read := func(check bool) (int, error) {
		rows, err := db.Query(q.sql, q.args...)
		if err != nil {
			return 0, err
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			if err := rows.Scan(dest...); err != nil {
				return n, err
			}
			if check {
				if err := row(); err != nil {
					return n, err
				}
			}
			n++
		}
		if err := rows.Err(); err != nil {
			return n, err
		}
		return n, rows.Close()
	}
	// The whole result checked once, untimed.
	n, err := read(true)
	if err != nil {
		return err
	}
	if n != q.wantRows {
		return fmt.Errorf("%d rows, want %d", n, q.wantRows)
	}
	if err := done(); err != nil {
		return err
	}
	return perRow(b, q.wantRows, func() (int, error) { return read(false) })
}

// The three analytic queries, with what their results must be.
var (
	analyticJSON = analyticQuery{
		sql: sqlAnalyticJSON, wantRows: analyticTags,
		newRow: func() ([]any, func() error, func() error) {
			var (
				tag        string
				count, qty int64
				total      int64
			)
			return []any{&tag, &count, &qty}, func() error {
					if !strings.HasPrefix(tag, "t") || count <= 0 || qty < count {
						return fmt.Errorf("row %q %d %d", tag, count, qty)
					}
					total += count
					return nil
				}, func() error {
					// Two tags per 'buy' event.
					if want := int64(2 * analyticEvents / analyticKinds); total != want {
						return fmt.Errorf("%d tags counted, want %d", total, want)
					}
					return nil
				}
		},
	}
	analyticWindow = analyticQuery{
		sql: sqlAnalyticWindow, args: []any{1, analyticWindowUsers},
		wantRows: analyticWindowUsers * analyticEvents / analyticUsers,
		newRow: func() ([]any, func() error, func() error) {
			var (
				id, user, rank int64
				amount, sum    float64
				maxRank        int64
			)
			return []any{&id, &user, &amount, &sum, &rank}, func() error {
					if user < 1 || user > analyticWindowUsers || sum < amount || rank < 1 {
						return fmt.Errorf("row %d %d %v %v %d", id, user, amount, sum, rank)
					}
					maxRank = max(maxRank, rank)
					return nil
				}, func() error {
					if want := int64(analyticEvents / analyticUsers); maxRank != want {
						return fmt.Errorf("largest row_number %d, want %d", maxRank, want)
					}
					return nil
				}
		},
	}
	analyticGroupBy = analyticQuery{
		sql: sqlAnalyticGroupBy, wantRows: analyticUsers,
		newRow: func() ([]any, func() error, func() error) {
			var (
				user, count int64
				sum, avg    float64
			)
			return []any{&user, &count, &sum, &avg}, func() error {
				if count != analyticEvents/analyticUsers || avg < 0 || sum < avg {
					return fmt.Errorf("row %d %d %v %v", user, count, sum, avg)
				}
				return nil
			}, func() error { return nil }
		},
	}
)

// shapeNames are the workloads of this file, which the C program (and so
// cfloor) does not run.
var shapeNames = []string{
	"ReadOnlyTx/1", "ReadOnlyTx/10", "PointLookup/Stmt", "Populate",
	"Blog/writes=10/tx=no", "Blog/writes=10/tx=yes", "Blog/writes=90/tx=no", "Blog/writes=90/tx=yes",
	"Analytic/JSON", "Analytic/Window", "Analytic/GroupBy",
}

// addShapeAnswers adds the nop driver's answers for this file's queries to
// a, with one making an answer of one row.
func addShapeAnswers(a map[string]*nopdriver.Answer, one func(vals ...driver.Value) *nopdriver.Answer) {
	many := func(n int, vals ...driver.Value) *nopdriver.Answer {
		ans := one(vals...)
		ans.Count = n
		return ans
	}
	a[sqlPopulateCount] = one(int64(populateRows), int64(populateRows*populateName), int64(populateRows*populateBlob))
	a[sqlBlogCheck] = one(int64(blogPosts*blogComments), int64(blogPosts*blogComments))
	a[sqlBlogReadPost] = one(int64(1), "Post number 1", strings.Repeat("lorem ipsum ", blogBodyChars/12), int64(blogComments), int64(1700000001))
	a[sqlBlogReadComment] = many(blogComments, int64(1), "user1", "Comment 1: well said", int64(1700000000))
	a[sqlAnalyticCount] = one(int64(analyticEvents), int64(analyticUsers))
	a[sqlAnalyticJSON] = many(analyticTags, "t0", int64(2*analyticEvents/analyticKinds/analyticTags), int64(4000))
	a[sqlAnalyticWindow] = many(analyticWindowUsers*analyticEvents/analyticUsers,
		int64(1), int64(1), 1.25, 25.0, int64(analyticEvents/analyticUsers))
	a[sqlAnalyticGroupBy] = many(analyticUsers, int64(1), int64(analyticEvents/analyticUsers), 600.0, 30.0)
}
