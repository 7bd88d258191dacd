module github.com/fastsqlite/sqlite3

go 1.26
