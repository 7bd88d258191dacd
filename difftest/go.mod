module github.com/fastsqlite/sqlite3/difftest

go 1.26.0

require (
	github.com/fastsqlite/sqlite3 v0.0.0-00010101000000-000000000000
	github.com/mattn/go-sqlite3 v1.14.53
)

replace github.com/fastsqlite/sqlite3 => ../
