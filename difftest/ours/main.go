// Command ours runs difftest's programs on this driver (the parent
// directory, through go.mod's replace directive). The difftest command (the module root) builds it.
package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	sqlite3 "github.com/fastsqlite/sqlite3"

	"github.com/fastsqlite/sqlite3/difftest/harness"
)

func main() {
	harness.Main(harness.Driver{Label: "ours", Stats: func(db *sql.DB) string {
		st, _ := sqlite3.Stats(context.Background(), db)
		return fmt.Sprintf("grouped %d %d", st.GroupCommits, st.GroupedWrites)
	}, Code: func(err error) (int, int, bool) {
		var e sqlite3.Error
		if errors.As(err, &e) {
			return int(e.Code), int(e.ExtendedCode), true
		}
		var p *sqlite3.Error
		if errors.As(err, &p) {
			return int(p.Code), int(p.ExtendedCode), true
		}
		return 0, 0, false
	}})
}
