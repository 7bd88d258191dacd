//go:build cgo

package sqlite3

import "database/sql/driver"

// LoadExtension loads the SQLite extension in the shared library lib into
// the connection, calling its entry point entry ("" lets SQLite derive the
// name from the file name: sqlite3_X_init for libX.so, or
// sqlite3_extension_init) (sqlite3_load_extension,
// https://sqlite.org/c3ref/load_extension.html).
//
// Extension loading is off on every connection: LoadExtension turns it on
// for the C API only (SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION; the SQL function
// load_extension() stays disabled), loads, and turns it off again, all in one
// cgo call. A failure is an error carrying SQLite's message (for a missing
// file, the dynamic loader's). Only load libraries you trust: an extension
// runs with the process's full rights.
func (c *SQLiteConn) LoadExtension(lib string, entry string) error {
	defer c.core.unlock(c.core.lock())
	if c.closed.Load() {
		return driver.ErrBadConn
	}
	return c.loadExtension(lib, entry)
}

func (c *SQLiteConn) loadExtension(lib, entry string) error {
	rc, msg := cLoadExtension(c.h, lib, entry)
	if rc == sqliteOK {
		return nil
	}
	e := Error{Code: ErrNo(rc & ErrNoMask), ExtendedCode: ErrNoExtended(rc), offset: -1}
	if msg == "" {
		msg = e.Error()
	}
	e.err = "loading extension " + lib + ": " + msg
	return e
}

// loadExtensions loads SQLiteDriver.Extensions into a new connection, each
// with its default entry point.
func (c *SQLiteConn) loadExtensions(libs []string) error {
	if len(libs) == 0 {
		return nil
	}
	defer c.core.unlock(c.core.lock())
	for _, lib := range libs {
		if err := c.loadExtension(lib, ""); err != nil {
			return err
		}
	}
	return nil
}
