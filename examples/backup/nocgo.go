//go:build !cgo

package main

import (
	"context"
	"errors"
	"io"
)

// The backup API belongs to the cgo driver: without cgo there is no SQLite.
func run(ctx context.Context, args []string, stdout io.Writer) error {
	return errors.New("backup: built with CGO_ENABLED=0; the SQLite driver needs cgo")
}
