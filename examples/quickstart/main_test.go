//go:build cgo

package main

import "testing"

// TestRun runs the quickstart program as `go run ./examples/quickstart` does.
func TestRun(t *testing.T) {
	if err := run(); err != nil {
		t.Fatal(err)
	}
}
