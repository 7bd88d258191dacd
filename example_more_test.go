//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"time"
)

// withConn runs f on one driver connection of db.
func withConn(db *sql.DB, f func(*SQLiteConn) error) error {
	conn, err := db.Conn(context.Background())
	if err != nil {
		return err
	}
	defer conn.Close()
	return conn.Raw(func(dc any) error { return f(dc.(*SQLiteConn)) })
}

// Serialize copies a database into a []byte; Deserialize turns bytes back
// into a database, here an in-memory copy on another connection.
func ExampleSQLiteConn_Serialize() {
	src, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		panic(err)
	}
	defer src.Close()
	src.SetMaxOpenConns(1)
	if _, err := src.Exec(`CREATE TABLE kv (k TEXT PRIMARY KEY, v); INSERT INTO kv VALUES ('answer', 42)`); err != nil {
		panic(err)
	}
	var image []byte
	if err := withConn(src, func(c *SQLiteConn) error {
		image, err = c.Serialize("main")
		return err
	}); err != nil {
		panic(err)
	}

	dst, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		panic(err)
	}
	defer dst.Close()
	dst.SetMaxOpenConns(1)
	if err := withConn(dst, func(c *SQLiteConn) error { return c.Deserialize(image, "main") }); err != nil {
		panic(err)
	}
	var v int
	if err := dst.QueryRow(`SELECT v FROM kv WHERE k = 'answer'`).Scan(&v); err != nil {
		panic(err)
	}
	fmt.Println(len(image)%4096 == 0, v)
	// Output: true 42
}

// SetLimit lowers a run-time limit for one connection, here the length of a
// string or BLOB, so a runaway query fails instead of using the memory.
func ExampleSQLiteConn_SetLimit() {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if err := withConn(db, func(c *SQLiteConn) error {
		old := c.SetLimit(SQLITE_LIMIT_LENGTH, 1000)
		fmt.Println(old, c.GetLimit(SQLITE_LIMIT_LENGTH))
		return nil
	}); err != nil {
		panic(err)
	}
	_, err = db.Exec(`SELECT zeroblob(2000)`)
	fmt.Println(err)
	// Output:
	// 1000000000 1000
	// string or blob too big
}

// SetTrace reports each statement a connection runs, with its parameters
// when WantExpandedSQL is set.
func ExampleSQLiteConn_SetTrace() {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if err := withConn(db, func(c *SQLiteConn) error {
		return c.SetTrace(&TraceConfig{
			EventMask:       TraceStmt,
			WantExpandedSQL: true,
			Callback: func(info TraceInfo) int {
				fmt.Println(info.ExpandedSQL)
				return 0
			},
		})
	}); err != nil {
		panic(err)
	}
	var n int
	if err := db.QueryRow(`SELECT ? + 1`, 41).Scan(&n); err != nil {
		panic(err)
	}
	fmt.Println(n)
	// Output:
	// SELECT 41 + 1
	// 42
}

// WALCheckpoint copies a WAL database's log back into the database file.
func ExampleSQLiteConn_WALCheckpoint() {
	dir, err := os.MkdirTemp("", "fastsqlite-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	db, err := sql.Open("sqlite3", "file:"+dir+"/wal.db?_journal_mode=WAL")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE t (x); INSERT INTO t VALUES (1), (2), (3)`); err != nil {
		panic(err)
	}
	if err := withConn(db, func(c *SQLiteConn) error {
		logFrames, checkpointed, err := c.WALCheckpoint("main", CheckpointTruncate)
		fmt.Println(logFrames, checkpointed, err)
		return err
	}); err != nil {
		panic(err)
	}
	// Output: 0 0 <nil>
}

// An authorizer sees every action a statement would take while it is
// prepared, and can deny it: here, reading a column of the secrets table.
func ExampleSQLiteConn_RegisterAuthorizer() {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE secrets (k, v); CREATE TABLE public (k, v)`); err != nil {
		panic(err)
	}
	if err := withConn(db, func(c *SQLiteConn) error {
		c.RegisterAuthorizer(func(action int, arg1, arg2, dbName string) int {
			if action == SQLITE_READ && arg1 == "secrets" {
				return SQLITE_DENY
			}
			return SQLITE_OK
		})
		return nil
	}); err != nil {
		panic(err)
	}
	_, err = db.Query(`SELECT v FROM secrets`)
	fmt.Println(err)
	rows, err := db.Query(`SELECT v FROM public`)
	fmt.Println(err)
	rows.Close()
	// Output:
	// access to secrets.v is prohibited
	// <nil>
}

// SetBusyTimeout waits for another connection's lock like _busy_timeout,
// but gives up as soon as the statement's context is done.
func ExampleSQLiteConn_SetBusyTimeout() {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	if err := withConn(db, func(c *SQLiteConn) error {
		return c.SetBusyTimeout(2 * time.Second)
	}); err != nil {
		panic(err)
	}
	fmt.Println("ok")
	// Output: ok
}

// LoadExtension loads a compiled SQLite extension into one connection;
// SQLiteDriver.Extensions loads them into every connection of a pool.
// Loading is enabled only for the duration of the call.
func ExampleSQLiteConn_LoadExtension() {
	sql.Register("sqlite3_with_extensions", &SQLiteDriver{
		Extensions: []string{"./mod_spellfix"}, // sqlite3_extension_init is the entry point
	})
	db, err := sql.Open("sqlite3_with_extensions", "app.db")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	// Or on one connection, reached with sql.Conn.Raw:
	_ = withConn(db, func(c *SQLiteConn) error {
		return c.LoadExtension("./mod_vec", "sqlite3_vec_init")
	})
}
