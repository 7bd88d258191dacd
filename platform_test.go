//go:build cgo

package sqlite3

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Tests of what differs between the platforms users deploy to (Windows,
// Linux arm64, musl, macOS): paths, file locks, the local time zone, and the
// helpers that let the suite run under Wine and qemu (scripts/platforms.sh).

// execPrefixEnv names the emulator that runs this test binary, as
// scripts/platforms.sh sets it for qemu-user ("qemu-aarch64-static -L
// /usr/aarch64-linux-gnu"): without binfmt_misc, an emulated process cannot
// execute another binary of its architecture, but it can execute the
// emulator, a binary of the host's.
const execPrefixEnv = "FASTSQLITE_TEST_EXEC_PREFIX"

// testBinaryCommand is exec.Command(os.Args[0], args...) for the tests that
// re-execute their own binary as a child (a crash, a fresh process for
// SQLite's memory statistics).
func testBinaryCommand(args ...string) *exec.Cmd {
	prefix := strings.Fields(os.Getenv(execPrefixEnv))
	if len(prefix) == 0 {
		return exec.Command(os.Args[0], args...)
	}
	return exec.Command(prefix[0], append(append(prefix[1:], os.Args[0]), args...)...)
}

// tempDirKeptOpen is t.TempDir for a test that leaves a connection open on
// purpose (database/sql keeps the connection of a Rows dropped without
// Close in use for ever). Windows cannot delete a file that is open (SQLite
// opens its files without FILE_SHARE_DELETE), so there the files of such a
// connection stay; anything else that keeps the directory from being removed
// fails the test, as t.TempDir's cleanup does.
func tempDirKeptOpen(t *testing.T) string {
	if runtime.GOOS != "windows" {
		return t.TempDir()
	}
	dir, err := os.MkdirTemp("", "fastsqlite-kept-open-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		err := os.RemoveAll(dir)
		if errors.Is(err, syscall.Errno(32)) { // ERROR_SHARING_VIOLATION
			t.Logf("left %s: a connection of the test is open on purpose: %v", dir, err)
		} else if err != nil {
			t.Errorf("TempDir RemoveAll cleanup: %v", err)
		}
	})
	return dir
}

// File names as Windows programs write them: a drive letter and backslashes
// in a plain filename, forward slashes in a file: URI (with and without an
// authority), and a directory name outside ASCII (SQLite's Windows VFS
// converts UTF-8 names to UTF-16). Elsewhere the same DSN forms with the
// platform's absolute paths.
func TestPlatformFilePaths(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "dir é 名")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "a.db")
	if runtime.GOOS == "windows" && (len(path) < 3 || path[1] != ':' || path[2] != '\\') {
		t.Fatalf("temp dir %q has no drive letter", path)
	}

	rw := openTestDB(t, path+"?_busy_timeout=1000&_journal_mode=WAL")
	testMustExec(t, rw, "CREATE TABLE t(x)")
	testMustExec(t, rw, "INSERT INTO t VALUES (42)")
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the database is not where its DSN names it: %v", err)
	}
	var mode string
	if err := rw.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q, %v: the parameters after the path were not applied", mode, err)
	}
	var file string
	if err := rw.QueryRow("SELECT file FROM pragma_database_list WHERE name = 'main'").Scan(&file); err != nil {
		t.Fatal(err)
	}
	if !sameFile(t, file, path) {
		t.Errorf("SQLite has %q open, want %q", file, path)
	}

	uriPath := filepath.ToSlash(path)
	if !strings.HasPrefix(uriPath, "/") {
		uriPath = "/" + uriPath // file:///C:/... ; on Unix the path has its own slash
	}
	uriPath = strings.ReplaceAll(uriPath, " ", "%20")
	for _, dsn := range []string{
		"file:" + strings.TrimPrefix(uriPath, "/") + "?mode=ro", // file:C:/dir/a.db?mode=ro
		"file://" + uriPath + "?mode=ro",                        // file:///C:/dir/a.db?mode=ro
	} {
		if runtime.GOOS != "windows" && !strings.HasPrefix(dsn, "file://") {
			dsn = "file:" + uriPath + "?mode=ro"
		}
		ro := openTestDB(t, dsn)
		if got := testQueryInt(t, ro, "SELECT x FROM t"); got != 42 {
			t.Errorf("%s: read %d, want 42", dsn, got)
		}
		_, err := ro.Exec("INSERT INTO t VALUES (1)")
		var se Error
		if !errors.As(err, &se) || se.Code != ErrReadonly {
			t.Errorf("%s: a write gave %v, want SQLITE_READONLY", dsn, err)
		}
	}
}

func sameFile(t *testing.T, a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		t.Errorf("stat %q: %v", a, err)
		return false
	}
	fb, err := os.Stat(b)
	if err != nil {
		t.Errorf("stat %q: %v", b, err)
		return false
	}
	return os.SameFile(fa, fb)
}

// Two connections of one process lock one file through the platform's file
// locks (fcntl on Unix, LockFileEx on Windows; the -shm's in WAL mode): the
// second writer waits out its busy timeout and fails with SQLITE_BUSY while
// the first holds the write lock, reads meanwhile, and writes once it is
// released.
func TestPlatformTwoConnectionsLockOneFile(t *testing.T) {
	for _, journal := range []string{"DELETE", "WAL"} {
		t.Run(journal, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "lock.db")
			ctx := context.Background()
			dsn := path + "?_journal_mode=" + journal + "&_busy_timeout=200"
			a, b := openTestDB(t, dsn), openTestDB(t, dsn)
			testMustExec(t, a, "CREATE TABLE t(x)")
			testMustExec(t, a, "INSERT INTO t VALUES (1)")

			ca, err := a.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer ca.Close()
			testMustExec(t, ca, "BEGIN IMMEDIATE")
			testMustExec(t, ca, "INSERT INTO t VALUES (2)")

			start := time.Now()
			_, err = b.Exec("INSERT INTO t VALUES (3)")
			waited := time.Since(start)
			var se Error
			if !errors.As(err, &se) || se.Code != ErrBusy {
				t.Fatalf("second writer: %v, want SQLITE_BUSY", err)
			}
			if waited < 150*time.Millisecond {
				t.Errorf("second writer failed after %v, before its busy timeout of 200ms", waited)
			}
			if n := testQueryInt(t, b, "SELECT count(*) FROM t"); n != 1 {
				t.Errorf("reader sees %d rows during the other's transaction, want 1", n)
			}
			testMustExec(t, ca, "COMMIT")
			testMustExec(t, b, "INSERT INTO t VALUES (3)")
			if n := testQueryInt(t, a, "SELECT count(*) FROM t"); n != 3 {
				t.Errorf("%d rows after both wrote, want 3", n)
			}
		})
	}
}

// localOffsetsEnv lets scripts/platforms.sh say which UTC offsets (seconds,
// January then July 2024) the local zone it set up has, so that a run under
// another time zone (Wine maps the Unix TZ to a Windows zone, which Go's
// runtime reads from the registry) shows it really ran in that zone.
const localOffsetsEnv = "FASTSQLITE_TEST_LOCAL_OFFSETS"

// _loc=auto shows times in time.Local: on Windows, the zone Go builds from
// the system's time zone settings (no tz database), with its daylight saving
// rules. Times written in the local zone in winter and summer come back as
// the same instants, with the same wall clock and offset.
func TestPlatformLocAuto(t *testing.T) {
	jan := time.Date(2024, 1, 15, 10, 30, 0, 0, time.Local)
	jul := time.Date(2024, 7, 15, 10, 30, 0, 0, time.Local)
	janName, janOff := jan.Zone()
	julName, julOff := jul.Zone()
	t.Logf("local zone %q: %s %+d s in January, %s %+d s in July", time.Local, janName, janOff, julName, julOff)
	if want := os.Getenv(localOffsetsEnv); want != "" {
		if got := strconv.Itoa(janOff) + "," + strconv.Itoa(julOff); got != want {
			t.Fatalf("local offsets %s, want %s (%s): the time zone was not set up", got, want, localOffsetsEnv)
		}
	}

	db := testMemDB(t, "_loc=auto")
	testMustExec(t, db, "CREATE TABLE tm(id INTEGER PRIMARY KEY, dt DATETIME)")
	for i, in := range []time.Time{jan, jul} {
		testMustExec(t, db, "INSERT INTO tm VALUES (?, ?)", i, in)
		var got time.Time
		if err := db.QueryRow("SELECT dt FROM tm WHERE id = ?", i).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if !got.Equal(in) || got.Location() != time.Local {
			t.Errorf("wrote %v, read %v (location %q)", in, got, got.Location())
		}
		_, gotOff := got.Zone()
		_, inOff := in.Zone()
		if got.Hour() != in.Hour() || gotOff != inOff {
			t.Errorf("wrote %v, read %v: another wall clock or offset", in, got)
		}
	}
	// Text without a zone is UTC, shown in the local zone.
	testMustExec(t, db, "INSERT INTO tm VALUES (9, '2024-07-15 10:30:00')")
	var got time.Time
	if err := db.QueryRow("SELECT dt FROM tm WHERE id = 9").Scan(&got); err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2024, 7, 15, 10, 30, 0, 0, time.UTC); !got.Equal(want) || got.Location() != time.Local {
		t.Errorf("'2024-07-15 10:30:00' read as %v, want %v in the local zone", got, want)
	}
}
