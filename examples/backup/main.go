// Command backup copies a live SQLite database into another file with
// SQLite's online backup API (https://sqlite.org/backup.html), a few pages
// at a time, printing its progress. Between steps the source stays usable by
// other connections, which is what makes the backup "online".
//
//	go run ./examples/backup                                  # back up a generated sample database
//	go run ./examples/backup -src app.db -dest app-backup.db -pages 256 -pause 10ms
//
// The backup API is reached through database/sql's escape hatch, sql.Conn.Raw,
// which hands over the driver's *sqlite3.SQLiteConn; the calls are the same as
// in github.com/mattn/go-sqlite3.
package main

import (
	"context"
	"log"
	"os"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		log.Fatal(err)
	}
}
