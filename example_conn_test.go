//go:build cgo

package sqlite3

import (
	"context"
	"database/sql"
	"fmt"
	"io"
)

// An update hook sees every row a connection inserts, updates or deletes.
// sql.Conn.Raw reaches the driver's connection; the hook stays on that
// connection, so the example keeps using it.
func ExampleSQLiteConn_RegisterUpdateHook() {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		panic(err)
	}
	defer conn.Close()

	ops := map[int]string{SQLITE_INSERT: "insert", SQLITE_UPDATE: "update", SQLITE_DELETE: "delete"}
	err = conn.Raw(func(dc any) error {
		dc.(*SQLiteConn).RegisterUpdateHook(func(op int, db, table string, rowid int64) {
			fmt.Printf("%s %s.%s rowid %d\n", ops[op], db, table, rowid)
		})
		return nil
	})
	if err != nil {
		panic(err)
	}
	for _, q := range []string{
		"CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT)",
		"INSERT INTO users(name) VALUES('ada'), ('linus')",
		"UPDATE users SET name = 'grace' WHERE id = 2",
		"DELETE FROM users WHERE id = 1",
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			panic(err)
		}
	}
	// Output:
	// insert main.users rowid 1
	// insert main.users rowid 2
	// update main.users rowid 2
	// delete main.users rowid 1
}

// Backup copies a live database into another one, here a few pages at a
// time with a progress report (the source could keep serving writes between
// steps).
func ExampleSQLiteConn_Backup() {
	ctx := context.Background()
	src, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		panic(err)
	}
	defer src.Close()
	src.SetMaxOpenConns(1) // one in-memory database
	if _, err := src.Exec(`CREATE TABLE notes(body TEXT);
		WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 100)
		INSERT INTO notes SELECT printf('note %d %.2000c', i, '.') FROM s`); err != nil {
		panic(err)
	}
	dst, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		panic(err)
	}
	defer dst.Close()
	dst.SetMaxOpenConns(1)

	srcConn, err := src.Conn(ctx)
	if err != nil {
		panic(err)
	}
	defer srcConn.Close()
	dstConn, err := dst.Conn(ctx)
	if err != nil {
		panic(err)
	}
	defer dstConn.Close()

	err = dstConn.Raw(func(d any) error {
		return srcConn.Raw(func(s any) error {
			b, err := d.(*SQLiteConn).Backup("main", s.(*SQLiteConn), "main")
			if err != nil {
				return err
			}
			steps := 0
			err = b.Run(ctx, 20, 0, func(remaining, total int) { steps++ })
			if err != nil {
				b.Finish()
				return err
			}
			fmt.Println("copied in more than one step:", steps > 1)
			return b.Finish()
		})
	})
	if err != nil {
		panic(err)
	}
	var n int
	if err := dstConn.QueryRowContext(ctx, "SELECT count(*) FROM notes").Scan(&n); err != nil {
		panic(err)
	}
	fmt.Println("notes in the copy:", n)
	// Output:
	// copied in more than one step: true
	// notes in the copy: 100
}

// ZeroBlob reserves room for a value that OpenBlob then writes and reads in
// pieces, without holding all of it in memory.
func ExampleSQLiteConn_OpenBlob() {
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	res, err := db.Exec(`CREATE TABLE files(name TEXT, data BLOB);
		INSERT INTO files VALUES('greeting', ?)`, ZeroBlob(11))
	if err != nil {
		panic(err)
	}
	rowid, err := res.LastInsertId()
	if err != nil {
		panic(err)
	}
	conn, err := db.Conn(context.Background())
	if err != nil {
		panic(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		c := dc.(*SQLiteConn)
		w, err := c.OpenBlob("main", "files", "data", rowid, true)
		if err != nil {
			return err
		}
		if _, err := io.WriteString(w, "hello"); err != nil {
			return err
		}
		if _, err := w.WriteAt([]byte(" world"), 5); err != nil {
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}

		r, err := c.OpenBlob("main", "files", "data", rowid, false)
		if err != nil {
			return err
		}
		defer r.Close()
		if _, err := r.Seek(6, io.SeekStart); err != nil {
			return err
		}
		rest, err := io.ReadAll(r)
		fmt.Printf("%d bytes, from offset 6: %s\n", r.Size(), rest)
		return err
	})
	if err != nil {
		panic(err)
	}
	// Output:
	// 11 bytes, from offset 6: world
}
