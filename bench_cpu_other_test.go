//go:build !unix

package sqlite3

import "time"

// benchCPUTime is not measured here.
func benchCPUTime() (time.Duration, bool) { return 0, false }
