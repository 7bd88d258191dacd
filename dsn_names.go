//go:build cgo

package sqlite3

import (
	"net/url"
	"strings"
)

// The names a DSN may hold. mattn/go-sqlite3 ignores every name it does not
// know, so a misspelled parameter (_txlok=immediate) opens with the default
// without a word; by default so does this driver, and with _strict=1 (or
// CheckDSN) such a name is an error that names the closest known one.

// driverParams are the driver's own parameters (dsn.go), aliases included.
var driverParams = []string{
	"_loc", "_mutex", "_txlock", "_group_commit", "_busy_timeout", "_timeout", "_stmt_cache_size", "_wal_bound",
	"_replicate_wait", "_replicate_timeout",
	"_defensive", "_auto_vacuum", "_vacuum", "_case_sensitive_like", "_cslike",
	"_defer_foreign_keys", "_defer_fk", "_foreign_keys", "_fk", "_ignore_check_constraints",
	"_journal_mode", "_journal", "_locking_mode", "_locking", "_query_only",
	"_recursive_triggers", "_rt", "_secure_delete", "_synchronous", "_sync",
	"_writable_schema", "_cache_size", "_pragma", "_strict",
}

// mattnOnlyParams are parameters mattn/go-sqlite3 v1.14.53 reads that this
// driver does not implement: its user authentication, an extension SQLite
// itself has since removed. Ignored like any other by default, an error with
// _strict=1, since a program that asks for authentication must not get an
// open database without it.
var mattnOnlyParams = []string{"_auth", "_auth_user", "_auth_pass", "_auth_crypt", "_auth_salt"}

// uriParams are the parameters SQLite reads from a file: URI
// (https://sqlite.org/uri.html). For a plain filename the driver reads mode,
// cache and vfs (plainFileParams); SQLite sees no parameter at all.
var uriParams = []string{"vfs", "mode", "cache", "psow", "nolock", "immutable", "modeof"}

// sqlitePragmas are SQLite 3.54.1's PRAGMA names (aPragmaName in the
// amalgamation; TestDSNPragmaNames keeps the two equal). Given without the
// driver's "_" (journal_mode=WAL), such a name is a mistake: in a file: URI
// SQLite ignores it, in a plain filename nobody reads it.
var sqlitePragmas = []string{
	"activate_extensions", "analysis_limit", "application_id", "auto_vacuum", "automatic_index",
	"busy_timeout", "cache_size", "cache_spill", "case_sensitive_like", "cell_size_check",
	"checkpoint_fullfsync", "collation_list", "compile_options", "count_changes",
	"data_store_directory", "data_version", "database_list", "default_cache_size",
	"defer_foreign_keys", "empty_result_callbacks", "encoding", "foreign_key_check",
	"foreign_key_list", "foreign_keys", "freelist_count", "full_column_names", "fullfsync",
	"function_list", "hard_heap_limit", "ignore_check_constraints", "incremental_vacuum",
	"index_info", "index_list", "index_xinfo", "integrity_check", "journal_mode",
	"journal_size_limit", "legacy_alter_table", "lock_proxy_file", "lock_status", "locking_mode",
	"max_page_count", "mmap_size", "module_list", "optimize", "page_count", "page_size",
	"parser_trace", "pragma_list", "query_only", "quick_check", "read_uncommitted",
	"recursive_triggers", "reverse_unordered_selects", "schema_version", "secure_delete",
	"short_column_names", "shrink_memory", "soft_heap_limit", "sql_trace", "stats", "synchronous",
	"table_info", "table_list", "table_xinfo", "temp_store", "temp_store_directory", "threads",
	"trusted_schema", "user_version", "vdbe_addoptrace", "vdbe_debug", "vdbe_eqp",
	"vdbe_listing", "vdbe_trace", "wal_autocheckpoint", "wal_checkpoint", "writable_schema",
}

// checkParamNames returns an error naming every parameter of the DSN that
// nobody will read, each with the closest known name, or nil. rawQuery is the
// part after "?", read in order so the error lists names as written.
func checkParamNames(rawQuery string, uri bool) error {
	var problems []string
	seen := map[string]bool{}
	for _, kv := range strings.Split(rawQuery, "&") {
		if kv == "" {
			continue
		}
		k, _, _ := strings.Cut(kv, "=")
		name, err := url.QueryUnescape(k)
		if err != nil || seen[name] {
			continue // url.ParseQuery has reported a bad escape already
		}
		seen[name] = true
		if p := paramNameProblem(name, uri); p != "" {
			problems = append(problems, p)
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return driverError(strings.Join(problems, "; "))
}

// paramNameProblem says what is wrong with one parameter name, or "".
func paramNameProblem(name string, uri bool) string {
	if contains(driverParams, name) {
		return ""
	}
	if contains(mattnOnlyParams, name) {
		return "DSN parameter " + name + " (mattn/go-sqlite3's user authentication) is not supported: SQLite no longer has the extension"
	}
	if contains(uriParams, name) {
		switch {
		case uri, name == "mode", name == "cache", name == "vfs":
			return ""
		}
		return "DSN parameter " + name + " is read by SQLite only in a file: URI (file:" + "name.db?" + name + "=...), not after a plain filename"
	}
	if strings.HasPrefix(name, "_") {
		msg := "unknown DSN parameter " + name
		if s := closest(name, driverParams); s != "" {
			msg += " (did you mean " + s + "?)"
		} else {
			msg += " (docs/dsn.md lists the parameters)"
		}
		return msg
	}
	lower := strings.ToLower(name)
	if contains(driverParams, "_"+lower) {
		return "unknown DSN parameter " + name + " (did you mean _" + lower + "? the driver's parameters start with \"_\")"
	}
	if contains(sqlitePragmas, lower) {
		return "unknown DSN parameter " + name + " (a PRAGMA: did you mean _pragma=" + lower + "(...)?)"
	}
	if !uri {
		return "unknown DSN parameter " + name + " (after a plain filename nobody reads it)"
	}
	// In a file: URI a VFS may read parameters of its own
	// (sqlite3_uri_parameter): leave them to it.
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// closest returns the name in list nearest to name by edit distance, ignoring
// case, if it is near enough to be what was meant (at most a third of name's
// length away, and at least one edit), else "".
func closest(name string, list []string) string {
	best, bestD := "", max(1, len(name)/3)+1
	lower := strings.ToLower(name)
	for _, x := range list {
		if d := editDistance(lower, x); d < bestD {
			best, bestD = x, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and transpositions of adjacent bytes,
// each one edit, so "_txlcok" is one edit from "_txlock".
func editDistance(a, b string) int {
	// Three rows of the dynamic-programming table: i-2, i-1 and i.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// CheckDSN reports what is wrong with a DSN without opening anything: what
// opening it with _strict=1 would refuse, whether or not the DSN says
// _strict. That is every parameter nobody would read (a misspelled one such
// as _txlok or _busy_timout, a SQLite PRAGMA without the driver's "_" such as
// journal_mode, SQLite URI parameters after a plain filename), each named with
// the closest known name, and every malformed or empty value.
//
// By default, as with mattn/go-sqlite3, the driver ignores the parameters it
// does not know, so a typo silently opens with the default; call CheckDSN in
// a test or at start-up to hear about it without turning on the rest of
// _strict. In a file: URI, parameters that are neither the driver's nor
// SQLite's nor a PRAGMA's are left alone: a VFS may read them.
func CheckDSN(dsn string) error {
	pos := strings.IndexByte(dsn, '?')
	if pos < 0 {
		_, err := parseDSN(dsn)
		return err
	}
	params, err := url.ParseQuery(dsn[pos+1:])
	if err != nil {
		return driverError("invalid DSN parameters: " + err.Error())
	}
	if v := params.Get("_strict"); v != "" {
		if _, ok := boolValue(v); !ok {
			return badParam("_strict", v, "want a boolean (1, 0, true, false, yes, no, on, off)")
		}
	}
	// Check it as _strict=1 would: the first value of a repeated parameter
	// wins, so a _strict=1 put first decides.
	_, err = parseDSN(dsn[:pos+1] + "_strict=1&" + dsn[pos+1:])
	return err
}
