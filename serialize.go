//go:build cgo

package sqlite3

import "database/sql/driver"

// Serialize returns a copy of database schema ("main", "temp" or an attached
// name; "" is "main") as the bytes of a database file
// (sqlite3_serialize, https://sqlite.org/c3ref/serialize.html). The copy is
// consistent only if no other connection writes meanwhile: run it inside a
// read transaction for a live file database.
//
// Cost: one cgo call and one Go allocation of the database's size. An
// in-memory database made by Deserialize is copied straight from SQLite's
// memory; any other is first copied page by page into a C buffer.
func (c *SQLiteConn) Serialize(schema string) ([]byte, error) {
	defer c.core.unlock(c.core.lock())
	if c.closed.Load() {
		return nil, driver.ErrBadConn
	}
	schema = schemaOrMain(schema)
	disarm(c.h)
	b, rc := cSerialize(c.h, schema)
	switch rc {
	case sqliteOK:
		return b, nil
	case sqliteTooBig:
		return nil, driverError("database " + schema + " is too large to serialize")
	case sqliteNomem:
		return nil, Error{Code: ErrNomem, ExtendedCode: ErrNoExtended(ErrNomem), offset: -1}
	}
	return nil, driverError("cannot serialize database " + schema + ": no such database, or it has no storage yet")
}

// Deserialize replaces database schema ("" is "main") with an in-memory
// database holding a copy of b, a database file image such as Serialize
// returns (sqlite3_deserialize, https://sqlite.org/c3ref/deserialize.html).
// The database can then be read and written, and grows as needed; it lives
// until the connection closes or schema is detached.
//
// b is copied into memory that SQLite owns and frees (FREEONCLOSE |
// RESIZEABLE): nothing of b is kept, and b may be reused at once. Cost: one
// cgo call and one C allocation of len(b). It fails with ErrBusy while the
// database is in a transaction or a backup, and for "temp". The image must
// not be in WAL mode (set bytes 18 and 19 to 1 to convert it).
func (c *SQLiteConn) Deserialize(b []byte, schema string) error {
	defer c.core.unlock(c.core.lock())
	if c.closed.Load() {
		return driver.ErrBadConn
	}
	disarm(c.h)
	rc := cDeserialize(c.h, schemaOrMain(schema), b)
	c.core.sharedFileChanged()
	if rc != sqliteOK {
		return errorFor(c.h, rc, 0)
	}
	return nil
}
