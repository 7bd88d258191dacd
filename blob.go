//go:build cgo

package sqlite3

import (
	"context"
	"database/sql/driver"
	"errors"
	"io"
)

// ZeroBlob is a query argument that binds a BLOB of that many zero bytes
// without allocating them (sqlite3_bind_zeroblob64,
// https://sqlite.org/c3ref/bind_blob.html): the way to make room for a value
// that OpenBlob then fills piece by piece.
//
//	db.Exec(`INSERT INTO files(name, data) VALUES(?, ?)`, name, sqlite3.ZeroBlob(size))
//
// A size beyond SQLITE_LIMIT_LENGTH fails with ErrTooBig. Not in
// mattn/go-sqlite3.
type ZeroBlob int64

// SQLiteBlob reads and writes one BLOB (or TEXT) value in place, without
// loading it whole (https://sqlite.org/c3ref/blob_open.html). It is an
// io.Reader, io.Writer, io.Seeker, io.ReaderAt, io.WriterAt and io.Closer.
// A blob cannot change size: make room first, for example with ZeroBlob.
//
// A blob belongs to its connection: use it from the goroutine that uses the
// connection, and close it before the connection closes (closing the
// connection closes it). When its row changes or is deleted by other means,
// reads and writes fail with ErrAbort.
type SQLiteBlob struct {
	c     *SQLiteConn
	h     blobHandle // nil once closed
	size  int
	off   int64
	write bool
}

var (
	_ io.ReadWriteSeeker = (*SQLiteBlob)(nil)
	_ io.ReaderAt        = (*SQLiteBlob)(nil)
	_ io.WriterAt        = (*SQLiteBlob)(nil)
	_ io.Closer          = (*SQLiteBlob)(nil)
)

// OpenBlob opens the value in column of the row with rowid in table of
// database schema ("" is "main") for incremental I/O (sqlite3_blob_open,
// https://sqlite.org/c3ref/blob_open.html), read-only or, with write, for
// reading and writing. The value must be a BLOB or TEXT. Cost: one cgo call
// that compiles and runs a small statement; moving to another row of the same
// column with Reopen is cheaper. Not in mattn/go-sqlite3.
func (c *SQLiteConn) OpenBlob(schema, table, column string, rowid int64, write bool) (*SQLiteBlob, error) {
	defer c.core.unlock(c.core.lock())
	if c.closed.Load() {
		return nil, driver.ErrBadConn
	}
	disarm(c.h)
	h, rc := cBlobOpen(c.h, schemaOrMain(schema), table, column, rowid, write)
	if rc != sqliteOK {
		err := errorFor(c.h, rc, 0)
		if h != nil {
			cBlobClose(h)
		}
		return nil, err
	}
	b := &SQLiteBlob{c: c, h: h, size: cBlobBytes(h), write: write}
	x := c.extras()
	x.mu.Lock()
	if x.blobs == nil {
		x.blobs = make(map[*SQLiteBlob]struct{})
	}
	x.blobs[b] = struct{}{}
	x.mu.Unlock()
	return b, nil
}

var errBlobClosed = errors.New("sqlite3: blob is closed")

func (b *SQLiteBlob) usable() error {
	if b.h == nil {
		return errBlobClosed
	}
	if b.c.closed.Load() {
		return driver.ErrBadConn
	}
	return nil
}

// Size returns the value's length in bytes (sqlite3_blob_bytes,
// https://sqlite.org/c3ref/blob_bytes.html, read at open and Reopen: no cgo
// call).
func (b *SQLiteBlob) Size() int64 { return int64(b.size) }

// ReadAt reads len(p) bytes from offset off (sqlite3_blob_read,
// https://sqlite.org/c3ref/blob_read.html, straight into p: one cgo call, no
// copy in Go). Fewer bytes come back only at the end of
// the value, with io.EOF.
func (b *SQLiteBlob) ReadAt(p []byte, off int64) (int, error) {
	defer b.c.core.unlock(b.c.core.lock())
	if err := b.usable(); err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, errors.New("sqlite3: blob ReadAt: negative offset")
	}
	if off >= int64(b.size) {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	n := len(p)
	var err error
	if rest := int64(b.size) - off; int64(n) > rest {
		n, err = int(rest), io.EOF
	}
	if n == 0 {
		return 0, err
	}
	if rc := cBlobRead(b.h, p[:n], int(off)); rc != sqliteOK {
		return 0, b.error(rc)
	}
	return n, err
}

// Read reads from the current offset and advances it; see ReadAt (one cgo
// call).
func (b *SQLiteBlob) Read(p []byte) (int, error) {
	n, err := b.ReadAt(p, b.off)
	b.off += int64(n)
	if err == io.EOF && n > 0 {
		err = nil // io.Reader: report EOF on the next call
	}
	return n, err
}

// WriteAt writes p at offset off (sqlite3_blob_write,
// https://sqlite.org/c3ref/blob_write.html, straight from p: one cgo call). The value cannot grow: bytes that would go past its end are not
// written and the error says so (after the part that fits is written).
func (b *SQLiteBlob) WriteAt(p []byte, off int64) (int, error) {
	defer b.c.core.unlock(b.c.core.lock())
	if err := b.usable(); err != nil {
		return 0, err
	}
	if !b.write {
		return 0, errors.New("sqlite3: blob was opened read-only")
	}
	if off < 0 {
		return 0, errors.New("sqlite3: blob WriteAt: negative offset")
	}
	n := len(p)
	var err error
	if rest := int64(b.size) - off; int64(n) > rest {
		n = int(max(rest, 0))
		err = errors.New("sqlite3: write past the end of the blob (" + itoa(b.size) + " bytes); a blob cannot grow")
	}
	if n == 0 {
		return 0, err
	}
	if rc := cBlobWrite(b.h, p[:n], int(off)); rc != sqliteOK {
		return 0, b.error(rc)
	}
	return n, err
}

// Write writes at the current offset and advances it; see WriteAt (one cgo
// call).
func (b *SQLiteBlob) Write(p []byte) (int, error) {
	n, err := b.WriteAt(p, b.off)
	b.off += int64(n)
	return n, err
}

// Seek sets the offset of the next Read or Write (io.Seeker; no cgo call).
// An offset past the end is allowed: reads there return io.EOF, writes fail.
func (b *SQLiteBlob) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += b.off
	case io.SeekEnd:
		offset += int64(b.size)
	default:
		return 0, errors.New("sqlite3: blob Seek: invalid whence")
	}
	if offset < 0 {
		return 0, errors.New("sqlite3: blob Seek: negative position")
	}
	b.off = offset
	return offset, nil
}

// Reopen moves the blob to the same column of the row with rowid
// (sqlite3_blob_reopen, https://sqlite.org/c3ref/blob_reopen.html) and
// rewinds it: two cgo calls, no statement to compile, cheaper than a new
// OpenBlob. If it fails, the blob can only be closed.
func (b *SQLiteBlob) Reopen(rowid int64) error {
	defer b.c.core.unlock(b.c.core.lock())
	if err := b.usable(); err != nil {
		return err
	}
	disarm(b.c.h)
	if rc := cBlobReopen(b.h, rowid); rc != sqliteOK {
		b.size = 0
		return b.error(rc)
	}
	b.size = cBlobBytes(b.h)
	b.off = 0
	return nil
}

// Close releases the blob (sqlite3_blob_close,
// https://sqlite.org/c3ref/blob_close.html; one cgo call). Closing twice, or
// after its connection closed, is harmless.
func (b *SQLiteBlob) Close() error {
	return b.c.core.acked(context.Background(), b.closeBlob()) // replicate.go: a write through the blob commits as it closes
}

// closeBlob is Close.
func (b *SQLiteBlob) closeBlob() error {
	defer b.c.core.unlock(b.c.core.lock())
	if b.h == nil {
		return nil
	}
	if x := b.c.hooks; x != nil {
		x.mu.Lock()
		delete(x.blobs, b)
		x.mu.Unlock()
	}
	h := b.h
	b.h = nil
	if rc := cBlobClose(h); rc != sqliteOK && !b.c.closed.Load() {
		return errorFor(b.c.h, rc, 0)
	}
	return nil
}

// closeForConn closes the blob because its connection closed.
func (b *SQLiteBlob) closeForConn() {
	if b.h != nil {
		cBlobClose(b.h)
		b.h = nil
	}
}

func (b *SQLiteBlob) error(rc int) error {
	if b.c.closed.Load() {
		return Error{Code: ErrNo(rc & ErrNoMask), ExtendedCode: ErrNoExtended(rc), offset: -1}
	}
	return errorFor(b.c.h, rc, 0)
}
