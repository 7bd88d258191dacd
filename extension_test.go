//go:build cgo

package sqlite3

import (
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A tiny extension: half(x) = x / 2, with the default entry point of a
// library named libhalf.so (sqlite3_half_init) and SQLite's generic one.
const testExtensionC = `
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT1

static void half(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  sqlite3_result_double(ctx, sqlite3_value_double(argv[0]) / 2);
}

int sqlite3_half_init(sqlite3 *db, char **err, const sqlite3_api_routines *api) {
  (void)err;
  SQLITE_EXTENSION_INIT2(api);
  return sqlite3_create_function(db, "half", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, 0, half, 0, 0);
}

int sqlite3_extension_init(sqlite3 *db, char **err, const sqlite3_api_routines *api) {
  return sqlite3_half_init(db, err, api);
}

int failing_init(sqlite3 *db, char **err, const sqlite3_api_routines *api) {
  (void)db;
  SQLITE_EXTENSION_INIT2(api);
  *err = sqlite3_mprintf("refusing to load");
  return SQLITE_ERROR;
}
`

// buildTestExtension compiles testExtensionC into libhalf.so, or skips the
// test when no C compiler is available.
func buildTestExtension(t *testing.T) string {
	t.Helper()
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "cc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		t.Skipf("no C compiler (%s) to build a test extension", cc)
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "half.c")
	if err := os.WriteFile(src, []byte(testExtensionC), 0o644); err != nil {
		t.Fatal(err)
	}
	lib := filepath.Join(dir, "libhalf.so")
	out, err := exec.Command(cc, "-shared", "-fPIC", "-I", wd, "-o", lib, src).CombinedOutput()
	if err != nil {
		t.Skipf("cannot build the test extension: %v\n%s", err, out)
	}
	return lib
}

// skipIfLoadOmitted ends a test of loading on a build with the
// sqlite_omit_load_extension tag, after checking that loading then fails
// with a clear error.
func skipIfLoadOmitted(t *testing.T, c *SQLiteConn) {
	t.Helper()
	if v := hkQuery(t, c, "SELECT sqlite_compileoption_used('OMIT_LOAD_EXTENSION')"); len(v) != 1 || v[0] != int64(1) {
		return
	}
	err := c.LoadExtension("libwhatever.so", "")
	if err == nil || !errors.Is(err, ErrError) || !strings.Contains(err.Error(), "not compiled in") {
		t.Fatalf("LoadExtension without extension loading compiled in: %v", err)
	}
	t.Skip("extension loading is omitted from this build (sqlite_omit_load_extension)")
}

func TestLoadExtensionMissing(t *testing.T) {
	c := hkOpen(t, ":memory:")
	skipIfLoadOmitted(t, c)
	lib := filepath.Join(t.TempDir(), "nosuch.so")
	err := c.LoadExtension(lib, "")
	if err == nil {
		t.Fatal("loading a missing library: no error")
	}
	if !errors.Is(err, ErrError) || !strings.Contains(err.Error(), "nosuch") {
		t.Fatalf("error %q does not name the library", err)
	}
	// Loading stays off, for the C API and for SQL.
	if err := hkExecErr(c, "SELECT load_extension(?)", lib); err == nil || !strings.Contains(err.Error(), "not authorized") {
		t.Fatalf("SQL load_extension after a failed LoadExtension: %v, want not authorized", err)
	}
	c.Close()
	if err := c.LoadExtension(lib, ""); err == nil {
		t.Fatal("LoadExtension on a closed connection: no error")
	}
}

func TestLoadExtension(t *testing.T) {
	skipIfLoadOmitted(t, hkOpen(t, ":memory:"))
	lib := buildTestExtension(t)
	for _, entry := range []string{"", "sqlite3_half_init", "sqlite3_extension_init"} {
		c := hkOpen(t, ":memory:")
		if err := c.LoadExtension(lib, entry); err != nil {
			t.Fatalf("LoadExtension(%q): %v", entry, err)
		}
		if v := hkQuery(t, c, "SELECT half(5)"); len(v) != 1 || v[0] != 2.5 {
			t.Fatalf("half(5) = %v", v)
		}
		// The SQL function stays disabled after a successful load, too.
		if err := hkExecErr(c, "SELECT load_extension(?)", lib); err == nil {
			t.Fatal("SQL load_extension is enabled after LoadExtension")
		}
	}
	c := hkOpen(t, ":memory:")
	if err := c.LoadExtension(lib, "no_such_entry"); err == nil || !strings.Contains(err.Error(), "no_such_entry") {
		t.Fatalf("missing entry point: %v", err)
	}
	if err := c.LoadExtension(lib, "failing_init"); err == nil || !strings.Contains(err.Error(), "refusing to load") {
		t.Fatalf("failing entry point: %v", err)
	}
}

func TestDriverExtensions(t *testing.T) {
	skipIfLoadOmitted(t, hkOpen(t, ":memory:"))
	lib := buildTestExtension(t)
	name := registerTestDriver(&SQLiteDriver{Extensions: []string{lib}})
	db, err := sql.Open(name, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var f float64
	if err := db.QueryRow("SELECT half(9)").Scan(&f); err != nil || f != 4.5 {
		t.Fatalf("half(9) = %v, %v", f, err)
	}
	if _, err := db.Exec("SELECT load_extension(?)", lib); err == nil {
		t.Fatal("SQL load_extension is enabled on a connection with Extensions")
	}

	bad := registerTestDriver(&SQLiteDriver{Extensions: []string{lib, filepath.Join(t.TempDir(), "missing.so")}})
	db2, err := sql.Open(bad, ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	if err := db2.Ping(); err == nil || !strings.Contains(err.Error(), "missing.so") {
		t.Fatalf("open with a missing extension: %v", err)
	}
}
