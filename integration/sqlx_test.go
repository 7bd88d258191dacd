//go:build cgo

package integration

import (
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	sqlite3 "github.com/mattn/go-sqlite3"
)

type sqlxItem struct {
	ID      int64          `db:"id"`
	Name    string         `db:"name"`
	Price   float64        `db:"price"`
	InStock bool           `db:"in_stock"`
	Added   time.Time      `db:"added"`
	Note    sql.NullString `db:"note"`
}

func openSqlx(t *testing.T) *sqlx.DB {
	t.Helper()
	db, err := sqlx.Connect("sqlite3", dsn(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.MustExec(`CREATE TABLE items (
		id       INTEGER PRIMARY KEY,
		name     TEXT NOT NULL UNIQUE,
		price    REAL NOT NULL,
		in_stock BOOLEAN NOT NULL,
		added    DATETIME NOT NULL,
		note     TEXT
	)`)
	return db
}

func TestSqlxCRUD(t *testing.T) {
	db := openSqlx(t)
	added := time.Date(2026, 11, 29, 12, 30, 0, 0, time.UTC)
	items := []sqlxItem{
		{Name: "apple", Price: 0.5, InStock: true, Added: added},
		{Name: "pear", Price: 0.75, Added: added.Add(time.Hour), Note: sql.NullString{String: "ripe", Valid: true}},
		{Name: "plum", Price: 1.25, InStock: true, Added: added.Add(2 * time.Hour)},
	}
	// NamedExec with a slice is one multi-row INSERT.
	if _, err := db.NamedExec(`INSERT INTO items (name, price, in_stock, added, note)
		VALUES (:name, :price, :in_stock, :added, :note)`, items); err != nil {
		t.Fatalf("NamedExec: %v", err)
	}

	var got []sqlxItem
	if err := db.Select(&got, `SELECT * FROM items ORDER BY id`); err != nil {
		t.Fatalf("Select: %v", err)
	}
	if len(got) != 3 {
		t.Fatalf("Select: %d rows", len(got))
	}
	for i, it := range got {
		want := items[i]
		if it.Name != want.Name || it.Price != want.Price || it.InStock != want.InStock ||
			!it.Added.Equal(want.Added) || it.Note != want.Note {
			t.Errorf("row %d: got %+v, want %+v", i, it, want)
		}
	}

	var pear sqlxItem
	if err := db.Get(&pear, `SELECT * FROM items WHERE name = ?`, "pear"); err != nil {
		t.Fatalf("Get: %v", err)
	}
	if pear.Note.String != "ripe" {
		t.Errorf("Get: %+v", pear)
	}
	if err := db.Get(&pear, `SELECT * FROM items WHERE name = ?`, "kiwi"); !errors.Is(err, sql.ErrNoRows) {
		t.Errorf("Get of a missing row: %v", err)
	}

	// sqlx.In expands a slice argument; Rebind keeps '?' for SQLite.
	q, args, err := sqlx.In(`SELECT name FROM items WHERE name IN (?) ORDER BY name`, []string{"plum", "apple"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	if err := db.Select(&names, db.Rebind(q), args...); err != nil {
		t.Fatalf("Select IN: %v", err)
	}
	if len(names) != 2 || names[0] != "apple" || names[1] != "plum" {
		t.Errorf("IN: %v", names)
	}

	// Named query with a map, and a prepared named statement.
	rows, err := db.NamedQuery(`SELECT id, name FROM items WHERE price > :min ORDER BY id`, map[string]any{"min": 0.6})
	if err != nil {
		t.Fatal(err)
	}
	var n int
	for rows.Next() {
		var it sqlxItem
		if err := rows.StructScan(&it); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if err := rows.Err(); err != nil || n != 2 {
		t.Fatalf("NamedQuery: %d rows, %v", n, err)
	}
	rows.Close()

	stmt, err := db.PrepareNamed(`UPDATE items SET price = :price WHERE name = :name`)
	if err != nil {
		t.Fatal(err)
	}
	defer stmt.Close()
	res, err := stmt.Exec(map[string]any{"price": 2.0, "name": "plum"})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		t.Errorf("RowsAffected = %d", n)
	}

	// The driver's error type comes through sqlx unchanged.
	_, err = db.Exec(`INSERT INTO items (name, price, in_stock, added) VALUES ('apple', 1, 1, ?)`, added)
	var se sqlite3.Error
	if !errors.As(err, &se) || se.ExtendedCode != sqlite3.ErrConstraintUnique {
		t.Fatalf("duplicate name: %v, want sqlite3.ErrConstraintUnique", err)
	}
}

func TestSqlxTransaction(t *testing.T) {
	db := openSqlx(t)
	now := time.Now().UTC()
	tx := db.MustBegin()
	tx.MustExec(`INSERT INTO items (name, price, in_stock, added) VALUES (?, ?, ?, ?)`, "fig", 3.0, true, now)
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	tx = db.MustBegin()
	tx.MustExec(`INSERT INTO items (name, price, in_stock, added) VALUES (?, ?, ?, ?)`, "date", 4.0, false, now)
	var inside int
	if err := tx.Get(&inside, `SELECT count(*) FROM items`); err != nil || inside != 1 {
		t.Fatalf("count inside the transaction: %d, %v", inside, err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var names []string
	if err := db.Select(&names, `SELECT name FROM items`); err != nil {
		t.Fatal(err)
	}
	if len(names) != 1 || names[0] != "date" {
		t.Fatalf("after commit and rollback: %v", names)
	}
}
