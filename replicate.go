package sqlite3

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Acknowledged means replicated (_replicate_wait, docs/replication.md).
//
// Litestream ships a database's WAL to a replica in the background; a write
// acknowledged before the next upload is lost with the machine. Its control
// socket answers POST /sync {"path", "wait": true} once everything in the
// WAL when the request came is on the replica. With _replicate_wait=SOCKET
// every acknowledgement of a commit (Exec, a write's Query when its rows
// end, Tx.Commit, the direct API's statements) waits for such an answer
// after the write turn has passed on, so that the writers of the file share
// it: one request is in flight per file; a commit that ended before the
// request was sent is covered by it; the commits that end meanwhile share
// the next one. A lone writer pays one round trip; a crowd, one for all.
//
// What counts as a commit is what SQLite says: the connection's commit hook
// fired (bridge_count_commits), or the connection's write ran in a group
// that committed (group.go). The connection notes it as its operation ends
// (connCore.settle), under its exclusion, and the caller waits once the
// exclusion is let go (connCore.acked).

// ErrNotReplicated is what errors.Is finds in the error of a write whose
// commit is in the local database but was not confirmed on the replica
// (Litestream unreachable, refusing, or too slow for the context or
// _replicate_timeout). The commit stands: retrying the write would apply it
// twice. The error is a *ReplicationError.
var ErrNotReplicated = errors.New("sqlite3: committed locally, not confirmed replicated")

// ReplicationError is the error of a write committed locally whose
// replication Litestream did not confirm. Err says why.
type ReplicationError struct {
	Socket string        // the control socket asked (_replicate_wait)
	Path   string        // the database file, as sent to Litestream
	Waited time.Duration // how long the write waited for the confirmation
	Err    error         // the cause: Litestream's answer, a socket error, or the context's
	Result sql.Result    // an Exec's result (LastInsertId, RowsAffected), its commit standing; else nil
}

func (e *ReplicationError) Error() string {
	return fmt.Sprintf("sqlite3: the write is committed locally but not confirmed replicated (Litestream at %s, %s, after %v): %v",
		e.Socket, e.Path, e.Waited.Round(time.Millisecond), e.Err)
}

// Is makes errors.Is(err, ErrNotReplicated) true.
func (e *ReplicationError) Is(target error) bool { return target == ErrNotReplicated }

// Unwrap returns the cause, so errors.Is(err, context.DeadlineExceeded) works.
func (e *ReplicationError) Unwrap() error { return e.Err }

// The default bound on a wait for Litestream (_replicate_timeout): a
// forced upload to an object store takes well under a second; this leaves
// room for a retry of Litestream's own.
const defaultReplicateTimeout = 10 * time.Second

// replicator is one file's link to Litestream's control socket: the
// commits its connections made and the requests that confirm them.
type replicator struct {
	socket, path string
	timeout      time.Duration
	maxHold      time.Duration // maxReplHold

	seq atomic.Uint64 // commits of the file's connections, numbered as they ended

	mu        sync.Mutex
	confirmed uint64     // every commit numbered up to it is on the replica
	cur       *replRound // in flight or held (not sent yet), or nil
	next      *replRound // waiting for cur to end, or nil
	until     uint64     // a held cur is sent once seq reaches it, or at holdEnd
	holdEnd   time.Time  // the end of the hold that follows the last request
	holding   atomic.Bool

	rounds      atomic.Int64 // requests that confirmed
	acked       atomic.Int64 // writes acknowledged by them
	failures    atomic.Int64 // writes told ErrNotReplicated
	waitNanos   atomic.Int64 // the writes' total wait
	waitMaxNano atomic.Int64 // the longest
}

// replRound is one request to Litestream.
type replRound struct {
	covers  uint64 // the commits numbered up to it ended before it was sent
	sent    bool
	waiters int // callers waiting for it
	done    chan struct{}
	err     error // set before done closes
}

// maxReplHold bounds how long a request is held for the writers the last
// one released (run). A variable for the tests: a replicator takes it when
// it is made.
var maxReplHold = 20 * time.Millisecond

var replicators struct {
	mu sync.Mutex
	m  map[[2]string]*replicator
}

// replicatorFor returns the process's replicator for database file path
// and control socket, creating it; it lives as long as the process, so its
// counters (FileStats) never go back.
func replicatorFor(socket, path string, timeout time.Duration) *replicator {
	replicators.mu.Lock()
	defer replicators.mu.Unlock()
	if replicators.m == nil {
		replicators.m = make(map[[2]string]*replicator)
	}
	key := [2]string{socket, path}
	r := replicators.m[key]
	if r == nil {
		r = &replicator{socket: socket, path: path, timeout: timeout, maxHold: maxReplHold}
		replicators.m[key] = r
	}
	return r
}

// committed numbers a commit that has just ended, and sends the held
// request once the commits it waits for have come.
func (r *replicator) committed() uint64 {
	n := r.seq.Add(1)
	if r.holding.Load() {
		r.mu.Lock()
		if rd := r.cur; rd != nil && !rd.sent && n >= r.until {
			r.send(rd)
		}
		r.mu.Unlock()
	}
	return n
}

// wait returns once the commit numbered seq is confirmed on the replica,
// or with a *ReplicationError when it cannot be, by ctx or r.timeout.
func (r *replicator) wait(ctx context.Context, seq uint64) error {
	start := time.Now()
	r.mu.Lock()
	if seq <= r.confirmed {
		r.mu.Unlock()
		r.acked.Add(1)
		return nil
	}
	var rd *replRound
	switch {
	case r.cur == nil:
		rd = &replRound{done: make(chan struct{})}
		r.begin(rd)
	case !r.cur.sent || r.cur.covers >= seq:
		rd = r.cur
	default:
		if r.next == nil {
			r.next = &replRound{done: make(chan struct{})}
		}
		rd = r.next
	}
	rd.waiters++
	r.mu.Unlock()
	t := time.NewTimer(r.timeout)
	defer t.Stop()
	var err error
	select {
	case <-rd.done:
		err = rd.err
	case <-ctx.Done():
		err = ctx.Err()
	case <-t.C:
		err = fmt.Errorf("no answer within _replicate_timeout (%v)", r.timeout)
	}
	waited := time.Since(start)
	r.waitNanos.Add(int64(waited))
	for {
		m := r.waitMaxNano.Load()
		if int64(waited) <= m || r.waitMaxNano.CompareAndSwap(m, int64(waited)) {
			break
		}
	}
	if err != nil {
		r.failures.Add(1)
		return &ReplicationError{Socket: r.socket, Path: r.path, Waited: waited, Err: err}
	}
	r.acked.Add(1)
	return nil
}

// begin makes rd the current round, and sends it, unless the writers
// the last request released have not all committed again and the hold
// that followed it lasts; under mu.
//
// Sent at once, a request would cover only the commits made while the last
// one was in flight, and the writers that one released, committing while
// this one is in flight, would wait for the next: the writers would split in
// two halves that take turns, each request confirming half of them. The
// hold lasts at most as long as the last request took (maxReplHold at
// most): a released writer that misses it waits for the request after, as
// long again, so a hold up to that length costs the early writers no more
// than it saves the late ones. (Half of it was too short at FULL, where an
// fsync per group makes the writers slow to come back: 40 of 64 writers a
// confirmation.) A writer alone never waits for it.
func (r *replicator) begin(rd *replRound) {
	r.cur = rd
	left := time.Until(r.holdEnd)
	if left <= 0 || r.seq.Load() >= r.until {
		r.send(rd)
		return
	}
	r.holding.Store(true)
	time.AfterFunc(left, func() {
		r.mu.Lock()
		if r.cur == rd && !rd.sent {
			r.send(rd)
		}
		r.mu.Unlock()
	})
}

// send sends rd, the current round, covering every commit numbered so far;
// under mu.
func (r *replicator) send(rd *replRound) {
	rd.covers = r.seq.Load()
	rd.sent = true
	r.holding.Store(false)
	go r.run(rd)
}

// run makes rd's request, then begins the round waiting behind it.
func (r *replicator) run(rd *replRound) {
	start := time.Now()
	err := syncReplica(r.socket, r.path, r.timeout)
	took := time.Since(start)
	r.mu.Lock()
	defer r.mu.Unlock()
	if err == nil {
		r.rounds.Add(1)
		r.confirmed = max(r.confirmed, rd.covers)
	}
	rd.err = err
	close(rd.done)
	r.cur = nil
	r.holdEnd = time.Time{}
	if err == nil && rd.waiters > 1 {
		r.until = r.seq.Load() + uint64(rd.waiters)
		r.holdEnd = time.Now().Add(min(took, r.maxHold))
	}
	if n := r.next; n != nil {
		r.next = nil
		r.begin(n)
	}
}

// syncAnswer is Litestream's answer to POST /sync (its server.go).
//
// A 200 answer to a request with "wait" says that Litestream synced the WAL
// to its end into an LTX file (db.Sync), then uploaded every LTX file up to
// its newest (Replica.Sync), the request's included: status "synced", or
// "no_change" when an earlier sync had already taken the new frames. Its
// txid and replicated_txid are read after that, and replicated_txid trails
// txid whenever another sync made an LTX file in between: another request
// (another process's, another pool's), or Litestream's own, once a second.
// That says nothing about this request's commits, and litestream sync -wait
// does not look at it either. "synced_local" is the answer of a sync that
// did not wait for the upload.
type syncAnswer struct {
	Status         string `json:"status"`
	TXID           uint64 `json:"txid"`
	ReplicatedTXID uint64 `json:"replicated_txid"`
	Error          string `json:"error"`
}

// syncReplica asks Litestream at socket to sync path to its replica and
// wait for the upload; nil once the replica holds everything the WAL held
// when the request came. A small HTTP/1.1 client of its own: net/http
// would add megabytes to every program that imports the driver.
func syncReplica(socket, path string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	conn, err := (&net.Dialer{Deadline: deadline}).Dial("unix", socket)
	if err != nil {
		return err
	}
	defer conn.Close()
	if err := conn.SetDeadline(deadline); err != nil {
		return err
	}
	// Litestream's own bound, in whole seconds, a little inside ours so
	// that its answer (an error) arrives before we stop listening.
	secs := max(1, int((timeout-timeout/10)/time.Second))
	body, _ := json.Marshal(struct {
		Path    string `json:"path"`
		Wait    bool   `json:"wait"`
		Timeout int    `json:"timeout"`
	}{path, true, secs})
	req := "POST /sync HTTP/1.1\r\nHost: litestream\r\nContent-Type: application/json\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\nConnection: close\r\n\r\n" + string(body)
	if _, err := io.WriteString(conn, req); err != nil {
		return err
	}
	status, payload, err := readHTTPResponse(bufio.NewReader(conn))
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return fmt.Errorf("no answer within _replicate_timeout (%v)", timeout)
	}
	if err != nil {
		return fmt.Errorf("reading Litestream's answer: %w", err)
	}
	var a syncAnswer
	jerr := json.Unmarshal(payload, &a)
	switch {
	case status != 200 && a.Error != "":
		return fmt.Errorf("answered %d: %s", status, a.Error)
	case status != 200:
		return fmt.Errorf("answered %d: %.200s", status, payload)
	case jerr != nil:
		return fmt.Errorf("the answer is not JSON: %w", jerr)
	case a.Status != "synced" && a.Status != "no_change":
		return fmt.Errorf("answered %q (txid %d, replicated_txid %d), not that it waited for the upload", a.Status, a.TXID, a.ReplicatedTXID)
	}
	return nil
}

// readHTTPResponse reads a response's status code and body (Content-Length,
// chunked, or up to the end), at most 1 MiB of it.
func readHTTPResponse(br *bufio.Reader) (int, []byte, error) {
	const maxBody = 1 << 20
	line, err := br.ReadString('\n')
	if err != nil {
		return 0, nil, err
	}
	f := strings.Fields(line)
	if len(f) < 2 || !strings.HasPrefix(f[0], "HTTP/1.") {
		return 0, nil, fmt.Errorf("not an HTTP response: %.80q", line)
	}
	status, err := strconv.Atoi(f[1])
	if err != nil {
		return 0, nil, fmt.Errorf("not an HTTP status: %.80q", line)
	}
	length, chunked := -1, false
	for {
		h, err := br.ReadString('\n')
		if err != nil {
			return 0, nil, err
		}
		h = strings.TrimRight(h, "\r\n")
		if h == "" {
			break
		}
		name, value, _ := strings.Cut(h, ":")
		value = strings.TrimSpace(value)
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "content-length":
			if length, err = strconv.Atoi(value); err != nil || length < 0 || length > maxBody {
				return 0, nil, fmt.Errorf("bad Content-Length %q", value)
			}
		case "transfer-encoding":
			chunked = strings.EqualFold(value, "chunked")
		}
	}
	switch {
	case chunked:
		var body []byte
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return 0, nil, err
			}
			size, _, _ := strings.Cut(strings.TrimSpace(line), ";")
			n, err := strconv.ParseInt(size, 16, 32)
			if err != nil || n < 0 || len(body)+int(n) > maxBody {
				return 0, nil, fmt.Errorf("bad chunk size %q", line)
			}
			if n == 0 {
				return status, body, nil
			}
			chunk := make([]byte, n+2) // the chunk and its CRLF
			if _, err := io.ReadFull(br, chunk); err != nil {
				return 0, nil, err
			}
			body = append(body, chunk[:n]...)
		}
	case length >= 0:
		body := make([]byte, length)
		_, err := io.ReadFull(br, body)
		return status, body, err
	default:
		body, err := io.ReadAll(io.LimitReader(br, maxBody))
		return status, body, err
	}
}

// stats adds r's counters to st.
func (r *replicator) stats(st *FileStats) {
	st.Replications = r.rounds.Load()
	st.ReplicatedWrites = r.acked.Load()
	st.ReplicationFailures = r.failures.Load()
	st.ReplicationWaitTime = time.Duration(r.waitNanos.Load())
	st.ReplicationWaitMax = time.Duration(r.waitMaxNano.Load())
}
