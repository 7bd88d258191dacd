//go:build cgo

package integration

import (
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/golang-migrate/migrate/v4"
	migratesqlite3 "github.com/golang-migrate/migrate/v4/database/sqlite3"
	"github.com/golang-migrate/migrate/v4/source/iofs"
)

var migrateFiles = fstest.MapFS{
	"m/1_users.up.sql":     {Data: []byte(`CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE);`)},
	"m/1_users.down.sql":   {Data: []byte(`DROP TABLE users;`)},
	"m/2_posts.up.sql":     {Data: []byte("CREATE TABLE posts (id INTEGER PRIMARY KEY, user_id INTEGER REFERENCES users(id), body TEXT);\nCREATE INDEX posts_user ON posts(user_id);")},
	"m/2_posts.down.sql":   {Data: []byte(`DROP INDEX posts_user; DROP TABLE posts;`)},
	"m/3_seed.up.sql":      {Data: []byte(`INSERT INTO users (email) VALUES ('a@example.com'), ('b@example.com');`)},
	"m/3_seed.down.sql":    {Data: []byte(`DELETE FROM users;`)},
	"m/4_broken.up.sql":    {Data: []byte(`CREATE TABLE half (x INTEGER); INSERT INTO nowhere VALUES (1);`)},
	"m/4_broken.down.sql":  {Data: []byte(`DROP TABLE IF EXISTS half;`)},
	"m/5_unreached.up.sql": {Data: []byte(`CREATE TABLE never (x INTEGER);`)},
}

func newMigrate(t *testing.T, fsys fstest.MapFS, url string) *migrate.Migrate {
	t.Helper()
	src, err := iofs.New(fsys, "m")
	if err != nil {
		t.Fatal(err)
	}
	m, err := migrate.NewWithSourceInstance("iofs", src, url)
	if err != nil {
		t.Fatalf("migrate: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func TestMigrate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "migrate.db")
	// golang-migrate's sqlite3 database driver strips "sqlite3://" and hands
	// the rest, DSN parameters included, to sql.Open("sqlite3", ...).
	m := newMigrate(t, migrateFiles, "sqlite3://"+path+"?_fk=1&_busy_timeout=5000&x-migrations-table=versions")

	if err := m.Migrate(3); err != nil {
		t.Fatalf("Migrate(3): %v", err)
	}
	if v, dirty, err := m.Version(); err != nil || v != 3 || dirty {
		t.Fatalf("Version = %d, %v, %v; want 3, clean", v, dirty, err)
	}
	if err := m.Migrate(3); !errors.Is(err, migrate.ErrNoChange) {
		t.Fatalf("Migrate(3) again: %v, want ErrNoChange", err)
	}

	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var users int
	if err := db.QueryRow(`SELECT count(*) FROM users`).Scan(&users); err != nil || users != 2 {
		t.Fatalf("users after the seed migration: %d, %v", users, err)
	}

	// Migration 4 fails half way: its transaction rolls back, and migrate
	// records version 4 as dirty.
	err = m.Up()
	if err == nil {
		t.Fatal("Up through a broken migration succeeded")
	}
	if v, dirty, _ := m.Version(); v != 4 || !dirty {
		t.Fatalf("after the failure: version %d dirty %v; want 4, dirty", v, dirty)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name = 'half'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("table of the failed migration exists (%d, %v): not rolled back", n, err)
	}

	if err := m.Force(3); err != nil {
		t.Fatal(err)
	}
	if err := m.Steps(-1); err != nil {
		t.Fatalf("Steps(-1): %v", err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM users`).Scan(&users); err != nil || users != 0 {
		t.Fatalf("users after the seed's down migration: %d, %v", users, err)
	}
	if err := m.Down(); err != nil {
		t.Fatalf("Down: %v", err)
	}
	if _, _, err := m.Version(); !errors.Is(err, migrate.ErrNilVersion) {
		t.Fatalf("Version after Down: %v, want ErrNilVersion", err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('users', 'posts')`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("tables after Down: %d, %v", n, err)
	}
}

// TestMigrateWithInstance drives migrate through a *sql.DB the program opened
// itself, and drops everything at the end (DROP TABLE ...; VACUUM).
func TestMigrateWithInstance(t *testing.T) {
	path := filepath.Join(t.TempDir(), "instance.db")
	db, err := sql.Open("sqlite3", path+"?_journal_mode=WAL&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	driver, err := migratesqlite3.WithInstance(db, &migratesqlite3.Config{})
	if err != nil {
		t.Fatal(err)
	}
	src, err := iofs.New(migrateFiles, "m")
	if err != nil {
		t.Fatal(err)
	}
	m, err := migrate.NewWithInstance("iofs", src, "sqlite3", driver)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Migrate(2); err != nil {
		t.Fatalf("Migrate(2): %v", err)
	}
	if err := m.Drop(); err != nil {
		t.Fatalf("Drop: %v", err)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_schema`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("schema objects after Drop: %d, %v", n, err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Fatalf("database file: %v", err)
	}
}
