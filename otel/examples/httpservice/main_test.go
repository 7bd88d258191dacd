package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRun starts the program as main does, with the stdout exporters, makes
// requests, shuts it down, and reads what it exported: each statement's
// span is the child of its request's span, and the metrics hold the
// duration histogram and the file's numbers.
func TestRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-metrics-every", "1h"}, out) }()

	var base string
	for deadline := time.Now().Add(30 * time.Second); base == ""; {
		if line, _, ok := strings.Cut(out.String(), "\n"); ok {
			f := strings.Fields(line) // listening on http://ADDR (...)
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

	resp, err := http.Post(base+"/notes", "application/json", strings.NewReader(`{"body":"traced"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST: %s", resp.Status)
	}
	for _, path := range []string{"/notes", "/notes/1"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %s", path, resp.Status)
		}
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("run did not return after its context was cancelled")
	}

	type spanID struct{ SpanID string }
	type span struct {
		Name        string
		SpanContext spanID
		Parent      spanID
		SpanKind    int
	}
	spans := map[string]span{}
	var metrics string
	for _, line := range strings.Split(out.String(), "\n") {
		switch {
		case strings.HasPrefix(line, `{"Name":`):
			var s span
			if err := json.Unmarshal([]byte(line), &s); err != nil {
				t.Fatalf("a span line: %v: %q", err, line)
			}
			spans[s.Name] = s
		case strings.HasPrefix(line, `{"Resource":`):
			metrics += line
		}
	}
	for child, parent := range map[string]string{
		"INSERT notes": "POST /notes",
		"SELECT notes": "GET /notes/{id}",
	} {
		c, p := spans[child], spans[parent]
		if c.Name == "" || p.Name == "" || c.Parent.SpanID != p.SpanContext.SpanID {
			t.Errorf("span %q (%+v) is not the child of %q (%+v)", child, c, parent, p)
		}
	}
	for _, name := range []string{"db.client.operation.duration", "sqlite.write_turn.waits", "sqlite.wal.size", "sqlite.checkpoints"} {
		if !strings.Contains(metrics, `"Name":"`+name+`"`) {
			t.Errorf("no %s in the exported metrics", name)
		}
	}
	if t.Failed() {
		t.Logf("output:\n%s", out.String())
	}
}

// syncBuffer is a bytes.Buffer that the server, the exporters and the
// test share.
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
