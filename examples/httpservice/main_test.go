//go:build cgo

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRun starts the program as main does, on a free port, makes requests,
// and shuts it down through its context.
func TestRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"-addr", "127.0.0.1:0"}, out) }()

	var base string
	for deadline := time.Now().Add(10 * time.Second); base == ""; {
		if line, _, ok := strings.Cut(out.String(), "\n"); ok {
			f := strings.Fields(line) // listening on http://ADDR (database PATH)
			if len(f) < 3 || f[0] != "listening" {
				t.Fatalf("first line: %q", line)
			}
			base = f[2]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no address printed; output so far: %q", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}

	created := postNote(t, base, "from TestRun")
	var got note
	getJSON(t, base+"/notes/"+itoa(created.ID), http.StatusOK, &got)
	if got.Body != "from TestRun" {
		t.Fatalf("GET: %+v", got)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("run did not return after its context was cancelled")
	}
	if !strings.Contains(out.String(), "shut down") {
		t.Errorf("output: %q", out.String())
	}
}

// TestAPI exercises every route, with writers and readers at once.
func TestAPI(t *testing.T) {
	st, err := openStore(filepath.Join(t.TempDir(), "api.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	srv := httptest.NewServer(st.routes())
	defer srv.Close()

	first := postNote(t, srv.URL, "buy milk")
	if first.ID != 1 || first.Created.IsZero() {
		t.Fatalf("created: %+v", first)
	}

	// Concurrent writes take turns on the one pool while reads run beside
	// them. None may fail with "database is locked".
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			postNote(t, srv.URL, "note "+itoa(int64(i)))
		}()
		go func() {
			defer wg.Done()
			var notes []note
			getJSON(t, srv.URL+"/notes", http.StatusOK, &notes)
		}()
	}
	wg.Wait()

	var notes []note
	getJSON(t, srv.URL+"/notes", http.StatusOK, &notes)
	if len(notes) != 9 || notes[0] != first {
		t.Fatalf("list: %d notes, first %+v; want 9, %+v", len(notes), notes[0], first)
	}

	// The database's numbers among the expvars, durations in seconds.
	var vars struct {
		SQLite map[string]any `json:"sqlite"`
	}
	getJSON(t, srv.URL+"/debug/vars", http.StatusOK, &vars)
	if n, _ := vars.SQLite["Connections"].(float64); n == 0 {
		t.Errorf("/debug/vars sqlite: %v, want connections", vars.SQLite)
	}
	if n, ok := vars.SQLite["BusyTimeouts"].(float64); !ok || n != 0 {
		t.Errorf("/debug/vars sqlite: %v, want BusyTimeouts 0", vars.SQLite)
	}
	for _, k := range []string{"WriteWaitSeconds", "WriteWaitMaxSeconds", "CheckpointSeconds", "ReadersHeldSeconds"} {
		if v, ok := vars.SQLite[k].(float64); !ok || v < 0 || v > 60 {
			t.Errorf("/debug/vars sqlite %s = %v, want seconds", k, vars.SQLite[k])
		}
	}
	if _, ok := vars.SQLite["WriteWaitTime"]; ok {
		t.Errorf("/debug/vars sqlite has WriteWaitTime (nanoseconds): %v", vars.SQLite)
	}

	req, _ := http.NewRequest(http.MethodDelete, srv.URL+"/notes/1", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %s", resp.Status)
	}
	getJSON(t, srv.URL+"/notes/1", http.StatusNotFound, nil)
	getJSON(t, srv.URL+"/notes/x", http.StatusBadRequest, nil)

	resp, err = http.Post(srv.URL+"/notes", "application/json", strings.NewReader(`{"body":`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("POST of bad JSON: %s", resp.Status)
	}

	// The pool is opened as the README recommends for servers.
	var journal string
	if err := st.db.QueryRow(`PRAGMA journal_mode`).Scan(&journal); err != nil || journal != "wal" {
		t.Errorf("journal_mode %q, %v; want wal", journal, err)
	}
}

func postNote(t *testing.T, base, body string) note {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"body": body})
	resp, err := http.Post(base+"/notes", "application/json", bytes.NewReader(b))
	if err != nil {
		t.Error(err)
		return note{}
	}
	defer resp.Body.Close()
	var n note
	if resp.StatusCode != http.StatusCreated {
		t.Errorf("POST /notes: %s", resp.Status)
	} else if err := json.NewDecoder(resp.Body).Decode(&n); err != nil {
		t.Error(err)
	}
	return n
}

func getJSON(t *testing.T, url string, status int, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Error(err)
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != status {
		t.Errorf("GET %s: %s, want %d", url, resp.Status, status)
		return
	}
	if v != nil {
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Error(err)
		}
	}
}

func itoa(i int64) string { return strconv.FormatInt(i, 10) }

// syncBuffer is a bytes.Buffer that run may write while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
