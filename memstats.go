//go:build cgo

package sqlite3

// SQLite's memory statistics, for the leak tests (leak_test.go). The build
// sets SQLITE_DEFAULT_MEMSTATUS=0, so SQLite keeps no count of its heap unless
// a process asks for it with sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 1) before
// SQLite initializes, that is before the first connection of the process
// opens. Only a fresh process can do that: the leak test re-executes its own
// binary to get one.
//
// sqlite3_config is variadic, which cgo cannot call, hence the small static
// wrapper below. (It belongs in bridge.c/bridge.h, the driver's only C; it
// lives here until it moves there.)

/*
#include "bridge.h"

static int fastsqlite_enable_memstatus(void) {
  return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 1);
}
*/
import "C"

// enableMemStats turns SQLite's memory statistics on
// (https://sqlite.org/c3ref/c_config_covering_index_scan.html#sqliteconfigmemstatus),
// so that memoryUsed counts. It fails with SQLITE_MISUSE once SQLite has
// initialized, i.e. after any connection of the process has been opened.
func enableMemStats() error {
	if rc := int(C.fastsqlite_enable_memstatus()); rc != sqliteOK {
		return Error{Code: ErrNo(rc & ErrNoMask), ExtendedCode: ErrNoExtended(rc), offset: -1,
			err: "sqlite3_config(SQLITE_CONFIG_MEMSTATUS) must run before SQLite initializes (before the first connection opens): " + cErrstr(rc)}
	}
	return nil
}

// memoryUsed returns the bytes SQLite has allocated and not freed
// (sqlite3_memory_used, https://sqlite.org/c3ref/memory_highwater.html). It
// counts only after enableMemStats; the bridge's own buffers (malloc'd
// directly) are not included.
func memoryUsed() int64 { return int64(C.sqlite3_memory_used()) }
