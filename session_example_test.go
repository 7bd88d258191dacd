//go:build cgo && !libsqlite3

// Not built with the libsqlite3 tag: a system SQLite may be too old for
// sessions (3.44 or later).

package sqlite3

import (
	"context"
	"database/sql"
	"fmt"
)

// A session records the changes made to a database; its changeset replays
// them on a copy (a replica, a device that was offline), with a Go function
// deciding each conflict. Here the copy already has the changes the second
// time round, so every change conflicts and is left out. (SQLite does not
// define the order of the changes to one table.)
func ExampleSQLiteConn_CreateSession() {
	ctx := context.Background()
	db, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		panic(err)
	}
	defer db.Close()
	// Each connection to ":memory:" has a database of its own: two
	// connections make a primary and its replica.
	primary, err := db.Conn(ctx)
	if err != nil {
		panic(err)
	}
	defer primary.Close()
	replica, err := db.Conn(ctx)
	if err != nil {
		panic(err)
	}
	defer replica.Close()
	for _, c := range []*sql.Conn{primary, replica} {
		if _, err := c.ExecContext(ctx, `CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT);
			INSERT INTO notes VALUES (1, 'buy milk'), (2, 'call mom'), (3, 'fix bike')`); err != nil {
			panic(err)
		}
	}

	// Record what happens to table notes on the primary.
	var s *Session
	if err := primary.Raw(func(dc any) (err error) {
		if s, err = dc.(*SQLiteConn).CreateSession("main"); err != nil {
			return err
		}
		return s.Attach("notes")
	}); err != nil {
		panic(err)
	}
	if _, err := primary.ExecContext(ctx, `UPDATE notes SET body = 'buy oat milk' WHERE id = 1;
		DELETE FROM notes WHERE id = 2;
		INSERT INTO notes VALUES (4, 'water plants')`); err != nil {
		panic(err)
	}
	var changeset []byte
	if err := primary.Raw(func(any) (err error) {
		defer s.Close()
		changeset, err = s.Changeset()
		return err
	}); err != nil {
		panic(err)
	}

	ops := map[int]string{SQLITE_INSERT: "INSERT", SQLITE_UPDATE: "UPDATE", SQLITE_DELETE: "DELETE"}
	for ch, err := range Changes(changeset) {
		if err != nil {
			panic(err)
		}
		fmt.Println(ops[ch.Op], ch.Table, "old", ch.Old, "new", ch.New)
	}

	apply := func() {
		err := replica.Raw(func(dc any) error {
			return dc.(*SQLiteConn).ApplyChangeset(changeset, nil, func(c *Conflict) ConflictAction {
				fmt.Println("conflict:", c.Type, ops[c.Op], "row in the replica", c.Conflicting)
				return ConflictOmit
			})
		})
		if err != nil {
			panic(err)
		}
	}
	apply() // no conflict
	apply() // each change is there already

	rows, err := replica.QueryContext(ctx, "SELECT id, body FROM notes ORDER BY id")
	if err != nil {
		panic(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int
		var body string
		if err := rows.Scan(&id, &body); err != nil {
			panic(err)
		}
		fmt.Println("replica:", id, body)
	}
	// Unordered output:
	// UPDATE notes old [1 buy milk] new [undefined buy oat milk]
	// DELETE notes old [2 call mom] new []
	// INSERT notes old [] new [4 water plants]
	// conflict: Data UPDATE row in the replica [1 buy oat milk]
	// conflict: NotFound DELETE row in the replica []
	// conflict: Conflict INSERT row in the replica [4 water plants]
	// replica: 1 buy oat milk
	// replica: 3 fix bike
	// replica: 4 water plants
}
