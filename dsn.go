//go:build cgo

package sqlite3

import (
	"net/url"
	"strconv"
	"strings"
	"time"
)

// config is a parsed DSN: what to open and how to set the connection up.
type config struct {
	filename      string // passed to sqlite3_open_v2
	flags         int
	vfs           string
	busyTimeout   int
	loc           *time.Location
	txlock        string // the statement that begins a transaction
	stmtCacheSize int
	walBound      int64         // _wal_bound: bytes, 0 for none (bridge_share_bound.c)
	deferFK       bool          // re-enable defer_foreign_keys in every transaction
	strict        bool          // _strict: refuse what mattn/go-sqlite3 lets through (strict.go)
	defensive     bool          // SQLITE_DBCONFIG_DEFENSIVE
	pragmas       []string      // run in order after open, each one statement
	groupCommit   bool          // _group_commit: writes of the file's connections share transactions (group.go)
	replSocket    string        // _replicate_wait: Litestream's control socket (replicate.go)
	replTimeout   time.Duration // _replicate_timeout: the bound on each wait for it
	dsn           string        // as given: connections with the same one may group their writes
}

// The default prepared-statement cache size per connection (_stmt_cache_size).
const defaultStmtCacheSize = 16

// The default WAL bound (_wal_bound): four times the WAL that SQLite's
// default automatic checkpoint (1000 pages of 4 KiB) leaves.
const defaultWALBound = 16 << 20

// parseDSN parses a DSN in mattn/go-sqlite3's grammar: a filename, ":memory:"
// or a "file:" URI, optionally followed by "?" and query parameters. SQLite's
// own URI parameters (mode, cache, immutable, vfs, ...) are left in a file: URI
// for SQLite to read; for a plain filename, see plainFileParams.
// Parameters starting with "_" are the driver's. A malformed value is an error
// that names the parameter; an empty one is ignored, as mattn/go-sqlite3 does,
// unless _strict is set.
func parseDSN(dsn string) (*config, error) {
	cfg := &config{
		filename:      dsn,
		flags:         openReadWrite | openCreate | openURI | openNoMutex,
		busyTimeout:   5000,
		txlock:        "BEGIN",
		stmtCacheSize: defaultStmtCacheSize,
		walBound:      defaultWALBound,
		replTimeout:   defaultReplicateTimeout,
		dsn:           dsn,
	}
	if i := strings.IndexByte(dsn, 0); i >= 0 {
		// C strings end at a NUL: the file opened would not be the one named.
		return nil, driverError("DSN contains a NUL byte at offset " + itoa(i))
	}
	pos := strings.IndexByte(dsn, '?')
	if pos < 0 {
		return cfg, nil
	}
	params, err := url.ParseQuery(dsn[pos+1:])
	if err != nil {
		return nil, driverError("invalid DSN parameters: " + err.Error())
	}
	if v := params.Get("_strict"); v != "" {
		b, ok := boolValue(v)
		if !ok {
			return nil, badParam("_strict", v, "want a boolean (1, 0, true, false, yes, no, on, off)")
		}
		cfg.strict = b == "1"
	}
	if cfg.strict {
		if err := checkParamNames(dsn[pos+1:], strings.HasPrefix(dsn, "file:")); err != nil {
			return nil, err
		}
	}
	if !strings.HasPrefix(dsn, "file:") {
		cfg.filename = dsn[:pos]
		if err := plainFileParams(cfg, params); err != nil {
			return nil, err
		}
	} else if cfg.strict && params.Get("mode") == "ro" {
		// SQLite applies a URI's mode=ro to the main file only; ATTACH opens
		// with the connection's open flags. mattn/go-sqlite3's read-write ones
		// let a program write the files it attaches, and by default so do we;
		// strict makes the whole connection read-only.
		cfg.flags = cfg.flags&^(openReadWrite|openCreate) | openReadOnly
	}
	p := dsnParams{values: params, strict: cfg.strict}

	if v, ok := p.get("_loc"); ok {
		switch strings.ToLower(v) {
		case "auto":
			cfg.loc = time.Local
		case "":
		default:
			if cfg.loc, err = time.LoadLocation(v); err != nil {
				return nil, badParam("_loc", v, err.Error())
			}
		}
	}
	if v, ok := p.get("_mutex"); ok {
		switch strings.ToLower(v) {
		case "no":
			cfg.flags = cfg.flags&^openFullMutex | openNoMutex
		case "full":
			cfg.flags = cfg.flags&^openNoMutex | openFullMutex
		default:
			return nil, badParam("_mutex", v, `want "no" or "full"`)
		}
	}
	if v, ok := p.get("_txlock"); ok {
		switch strings.ToLower(v) {
		case "deferred":
			cfg.txlock = "BEGIN"
		case "immediate":
			cfg.txlock = "BEGIN IMMEDIATE"
		case "exclusive":
			cfg.txlock = "BEGIN EXCLUSIVE"
		default:
			return nil, badParam("_txlock", v, `want "deferred", "immediate" or "exclusive"`)
		}
	}
	if name, v, ok := p.alias("_busy_timeout", "_timeout"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 && cfg.strict {
			return nil, badParam(name, v, "want a non-negative number of milliseconds")
		}
		cfg.busyTimeout = max(n, 0) // a negative timeout, as in sqlite3_busy_timeout, waits not at all
	}
	if v, ok := p.get("_stmt_cache_size"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return nil, badParam("_stmt_cache_size", v, "want a non-negative integer")
		}
		cfg.stmtCacheSize = n
	}
	if v, ok := p.get("_wal_bound"); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return nil, badParam("_wal_bound", v, "want a non-negative number of bytes (0: no bound)")
		}
		cfg.walBound = n
	}
	if v, ok := p.get("_group_commit"); ok {
		b, ok := boolValue(v)
		if !ok {
			return nil, badParam("_group_commit", v, "want a boolean (1, 0, true, false, yes, no, on, off)")
		}
		cfg.groupCommit = b == "1"
	}
	if v, ok := p.get("_replicate_wait"); ok {
		if v == "" {
			return nil, badParam("_replicate_wait", v, "want the path of Litestream's control socket")
		}
		cfg.replSocket = v
	}
	if v, ok := p.get("_replicate_timeout"); ok {
		d, err := time.ParseDuration(v)
		if n, nerr := strconv.Atoi(v); nerr == nil {
			d, err = time.Duration(n)*time.Millisecond, nil
		}
		if err != nil || d <= 0 {
			return nil, badParam("_replicate_timeout", v, "want a positive duration (10s, 1500ms) or number of milliseconds")
		}
		cfg.replTimeout = d
	}
	if v, ok := p.get("_defensive"); ok {
		b, ok := boolValue(v)
		if !ok {
			return nil, badParam("_defensive", v, "want a boolean (1, 0, true, false, yes, no, on, off)")
		}
		cfg.defensive = b == "1"
	}
	if v, ok := p.get("vfs"); ok && !strings.HasPrefix(dsn, "file:") {
		cfg.vfs = v
	}

	// The PRAGMAs, in the order mattn/go-sqlite3 runs them.
	if name, v, ok := p.alias("_auto_vacuum", "_vacuum"); ok {
		mode, ok := enumValue(v, map[string]string{"0": "NONE", "none": "NONE", "1": "FULL", "full": "FULL", "2": "INCREMENTAL", "incremental": "INCREMENTAL"})
		if !ok {
			return nil, badParam(name, v, `want "none", "full" or "incremental"`)
		}
		cfg.pragma("auto_vacuum", mode)
	}
	boolPragmas := []struct{ pragma, name, alias string }{
		{"case_sensitive_like", "_case_sensitive_like", "_cslike"},
		{"defer_foreign_keys", "_defer_foreign_keys", "_defer_fk"},
		{"foreign_keys", "_foreign_keys", "_fk"},
		{"ignore_check_constraints", "_ignore_check_constraints", ""},
	}
	for _, bp := range boolPragmas {
		if err := cfg.boolPragma(p, bp.pragma, bp.name, bp.alias); err != nil {
			return nil, err
		}
	}
	if _, v, ok := p.alias("_defer_foreign_keys", "_defer_fk"); ok {
		b, _ := boolValue(v) // validated above
		cfg.deferFK = b == "1"
	}
	if name, v, ok := p.alias("_journal_mode", "_journal"); ok {
		mode, ok := enumValue(v, map[string]string{"delete": "DELETE", "truncate": "TRUNCATE", "persist": "PERSIST", "memory": "MEMORY", "wal": "WAL", "off": "OFF"})
		if !ok {
			return nil, badParam(name, v, "want DELETE, TRUNCATE, PERSIST, MEMORY, WAL or OFF")
		}
		cfg.pragma("journal_mode", mode)
	}
	if name, v, ok := p.alias("_locking_mode", "_locking"); ok {
		mode, ok := enumValue(v, map[string]string{"normal": "NORMAL", "exclusive": "EXCLUSIVE"})
		if !ok {
			return nil, badParam(name, v, "want NORMAL or EXCLUSIVE")
		}
		if mode != "NORMAL" { // NORMAL is SQLite's default: nothing to run
			cfg.pragma("locking_mode", mode)
		}
	}
	if err := cfg.boolPragma(p, "query_only", "_query_only", ""); err != nil {
		return nil, err
	}
	if err := cfg.boolPragma(p, "recursive_triggers", "_recursive_triggers", "_rt"); err != nil {
		return nil, err
	}
	if v, ok := p.get("_secure_delete"); ok {
		if strings.EqualFold(v, "fast") {
			cfg.pragma("secure_delete", "FAST")
		} else if b, ok := boolValue(v); ok {
			cfg.pragma("secure_delete", b)
		} else {
			return nil, badParam("_secure_delete", v, "want a boolean or FAST")
		}
	}
	if name, v, ok := p.alias("_synchronous", "_sync"); ok {
		mode, ok := enumValue(v, map[string]string{"0": "OFF", "off": "OFF", "1": "NORMAL", "normal": "NORMAL", "2": "FULL", "full": "FULL", "3": "EXTRA", "extra": "EXTRA"})
		if !ok {
			return nil, badParam(name, v, "want OFF, NORMAL, FULL or EXTRA")
		}
		if mode != "NORMAL" { // NORMAL is our compiled-in default
			cfg.pragma("synchronous", mode)
		}
	}
	if err := cfg.boolPragma(p, "writable_schema", "_writable_schema", ""); err != nil {
		return nil, err
	}
	if v, ok := p.get("_cache_size"); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, badParam("_cache_size", v, "want an integer")
		}
		cfg.pragma("cache_size", strconv.FormatInt(n, 10))
	}
	for _, v := range params["_pragma"] {
		stmt, err := pragmaParam(v)
		if err != nil {
			return nil, err
		}
		cfg.pragmas = append(cfg.pragmas, stmt)
	}
	return cfg, nil
}

// plainFileParams turns SQLite's mode and cache parameters into open flags for
// a DSN that is not a file: URI (SQLite reads URI parameters only from URIs).
// mattn/go-sqlite3 drops them; so does this driver, but for mode=ro (a
// program that asks for read-only must not write), unless _strict is set.
func plainFileParams(cfg *config, params url.Values) error {
	if !cfg.strict {
		if params.Get("mode") == "ro" {
			cfg.flags = cfg.flags&^(openReadWrite|openCreate) | openReadOnly
		}
		return nil
	}
	if v := params.Get("mode"); v != "" {
		cfg.flags &^= openReadOnly | openReadWrite | openCreate
		switch v {
		case "ro":
			cfg.flags |= openReadOnly
		case "rw":
			cfg.flags |= openReadWrite
		case "rwc":
			cfg.flags |= openReadWrite | openCreate
		case "memory":
			cfg.flags |= openReadWrite | openCreate | openMemory
		default:
			return badParam("mode", v, `want "ro", "rw", "rwc" or "memory"`)
		}
	}
	switch v := params.Get("cache"); v {
	case "":
	case "shared":
		cfg.flags |= openSharedCache
	case "private":
		cfg.flags |= openPrivateCache
	default:
		return badParam("cache", v, `want "shared" or "private"`)
	}
	return nil
}

// dsnParams reads the DSN's parameters; as in mattn/go-sqlite3 (url.Values.Get),
// the first value of a repeated parameter wins, and an empty value counts as
// not set (with strict, it is set, and then malformed).
type dsnParams struct {
	values url.Values
	strict bool
}

func (p dsnParams) get(name string) (string, bool) {
	v, ok := p.values[name]
	if !ok || len(v) == 0 || v[0] == "" && !p.strict {
		return "", false
	}
	return v[0], true
}

// alias returns the value of name or of its alias, and which one was set. As
// in mattn/go-sqlite3, the alias wins when both are given.
func (p dsnParams) alias(name, alias string) (string, string, bool) {
	if _, ok := p.values[alias]; ok && alias != "" {
		v, ok := p.get(alias)
		return alias, v, ok
	}
	v, ok := p.get(name)
	return name, v, ok
}

func (cfg *config) pragma(name, value string) {
	cfg.pragmas = append(cfg.pragmas, "PRAGMA "+name+" = "+value)
}

func (cfg *config) boolPragma(p dsnParams, pragma, name, alias string) error {
	name, v, ok := p.alias(name, alias)
	if !ok {
		return nil
	}
	b, ok := boolValue(v)
	if !ok {
		return badParam(name, v, "want a boolean (1, 0, true, false, yes, no, on, off)")
	}
	cfg.pragma(pragma, b)
	return nil
}

// boolValue accepts SQLite's boolean spellings and returns "1" or "0".
func boolValue(v string) (string, bool) {
	switch strings.ToLower(v) {
	case "1", "yes", "true", "on":
		return "1", true
	case "0", "no", "false", "off":
		return "0", true
	}
	return "", false
}

func enumValue(v string, values map[string]string) (string, bool) {
	s, ok := values[strings.ToLower(v)]
	return s, ok
}

// pragmaParam checks a _pragma value, "name" or "name(value)" or "name=value",
// and returns the statement. The name must be an identifier (optionally
// schema-qualified) and the value free of ';', so a DSN can run one PRAGMA and
// nothing else.
func pragmaParam(v string) (string, error) {
	name, arg := v, ""
	if i := strings.IndexAny(v, "(="); i >= 0 {
		name, arg = v[:i], v[i:]
		if arg[0] == '(' && !strings.HasSuffix(arg, ")") {
			return "", badParam("_pragma", v, "want name(value)")
		}
	}
	if !isPragmaName(name) || strings.ContainsAny(arg, ";\x00") {
		return "", badParam("_pragma", v, "want name(value)")
	}
	return "PRAGMA " + name + arg, nil
}

func isPragmaName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func badParam(name, value, want string) error {
	return driverError("invalid DSN parameter " + name + "=" + strconv.Quote(value) + ": " + want)
}
