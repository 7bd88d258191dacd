//go:build cgo

package integration

import (
	"context"
	"database/sql"
	"testing"
	"testing/fstest"
	"time"

	"github.com/pressly/goose/v3"
)

var gooseMigrations = fstest.MapFS{
	"00001_users.sql": {Data: []byte(`-- +goose Up
CREATE TABLE users (
	id    INTEGER PRIMARY KEY,
	email TEXT NOT NULL UNIQUE
);
-- +goose Down
DROP TABLE users;
`)},
	"00002_audit.sql": {Data: []byte(`-- +goose Up
CREATE TABLE audit (user_id INTEGER, at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
-- +goose StatementBegin
CREATE TRIGGER users_audit AFTER INSERT ON users BEGIN
	INSERT INTO audit (user_id) VALUES (NEW.id);
END;
-- +goose StatementEnd
-- +goose Down
DROP TRIGGER users_audit;
DROP TABLE audit;
`)},
}

// goose's Go migration: seeds a row inside goose's transaction.
var gooseSeed = goose.NewGoMigration(3,
	&goose.GoFunc{RunTx: func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO users (email) VALUES (?)`, "root@example.com")
		return err
	}},
	&goose.GoFunc{RunTx: func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM users WHERE email = ?`, "root@example.com")
		return err
	}},
)

func TestGoose(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite3", dsn(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	p, err := goose.NewProvider(goose.DialectSQLite3, db, gooseMigrations,
		goose.WithGoMigrations(gooseSeed), goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}

	results, err := p.Up(ctx)
	if err != nil {
		t.Fatalf("Up: %v", err)
	}
	if len(results) != 3 {
		t.Fatalf("Up applied %d migrations, want 3", len(results))
	}
	if v, err := p.GetDBVersion(ctx); err != nil || v != 3 {
		t.Fatalf("GetDBVersion = %d, %v; want 3", v, err)
	}
	var audited int
	if err := db.QueryRow(`SELECT count(*) FROM audit`).Scan(&audited); err != nil || audited != 1 {
		t.Fatalf("trigger from the StatementBegin block: %d audit rows, %v", audited, err)
	}

	// goose reads its version table's TIMESTAMP column back as time.Time.
	status, err := p.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range status {
		if s.State != goose.StateApplied {
			t.Errorf("migration %d: state %s", s.Source.Version, s.State)
		}
		if since := time.Since(s.AppliedAt); since < -time.Minute || since > time.Hour {
			t.Errorf("migration %d: applied at %v", s.Source.Version, s.AppliedAt)
		}
	}

	if _, err := p.DownTo(ctx, 1); err != nil {
		t.Fatalf("DownTo(1): %v", err)
	}
	if v, _ := p.GetDBVersion(ctx); v != 1 {
		t.Fatalf("version after DownTo(1) = %d", v)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name IN ('audit', 'users_audit')`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("audit table and trigger after down: %d, %v", n, err)
	}
	if pending, err := p.HasPending(ctx); err != nil || !pending {
		t.Fatalf("HasPending = %v, %v", pending, err)
	}
}

// TestGooseFailedMigration: a failing SQL migration rolls back as a whole and
// leaves the version where it was.
func TestGooseFailedMigration(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("sqlite3", dsn(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	fsys := fstest.MapFS{
		"00001_users.sql": gooseMigrations["00001_users.sql"],
		"00002_broken.sql": {Data: []byte(`-- +goose Up
CREATE TABLE half (x INTEGER);
INSERT INTO nowhere VALUES (1);
-- +goose Down
DROP TABLE half;
`)},
	}
	p, err := goose.NewProvider(goose.DialectSQLite3, db, fsys, goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Up(ctx); err == nil {
		t.Fatal("Up with a broken migration succeeded")
	}
	if v, err := p.GetDBVersion(ctx); err != nil || v != 1 {
		t.Fatalf("version after the failure = %d, %v; want 1", v, err)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name = 'half'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("table of the failed migration exists (%d, %v): not rolled back", n, err)
	}
}
