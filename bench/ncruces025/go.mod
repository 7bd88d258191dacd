module github.com/fastsqlite/sqlite3/bench/ncruces025

go 1.26.0

replace (
	github.com/fastsqlite/sqlite3 => ../../
	github.com/fastsqlite/sqlite3/bench => ../
)

require (
	github.com/fastsqlite/sqlite3/bench v0.0.0-00010101000000-000000000000
	github.com/ncruces/go-sqlite3 v0.37.0
)

require (
	github.com/ncruces/julianday v1.0.0 // indirect
	github.com/tetratelabs/wazero v1.9.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
)

// The bench module requires the newest ncruces; this module measures v0.25.1.
replace github.com/ncruces/go-sqlite3 => github.com/ncruces/go-sqlite3 v0.25.1
