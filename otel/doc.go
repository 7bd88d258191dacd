// Package otelsqlite is the OpenTelemetry adapter of the
// github.com/fastsqlite/sqlite3 driver, in a module of its own so that the
// driver itself depends on nothing.
//
// A Tracer (NewTracer), set on a connector with sqlite3.WithTracer, makes a
// client span of each operation of the pool's connections (prepare, exec,
// query until its rows close, begin, commit, rollback), a child of the span
// in the caller's context, and records the operation's duration in the
// stable db.client.operation.duration histogram (seconds, with the semantic
// conventions' buckets). Spans and histogram points carry the stable
// database attributes: db.system.name ("sqlite"), db.query.summary
// ("INSERT orders", also the span's name), db.operation.name and
// db.collection.name when the statement has only one of each, and, for a
// failed operation, error.type and db.response.status_code: SQLite's
// primary result code ("19" for a constraint). Spans also say what the
// driver knows beyond the conventions: the connection, rows changed or
// read, how long the operation waited for its file's write turn, whether
// its write shared a group's COMMIT, SQLite's extended result code.
//
// RegisterFileStats makes a database file's sqlite3.FileStats observable
// metrics under sqlite.*: waits for the write turn (count and seconds),
// busy timeouts, refused upgrades, the WAL's size, use and bound (bytes),
// the bound's checkpoints (count by result, and seconds), the readers they
// held, group commits and the writes they held.
//
// The summary, operation and table are read from the statement's text in
// one pass over its tokens, once per distinct statement (kept for up to 1024
// statements of up to 4 KiB), so an operation pays a map lookup for them.
//
// See docs/tracing.md in the driver's repository for what each attribute
// means, and for the cost per operation measured against no tracer and
// against github.com/XSAM/otelsql.
package otelsqlite
