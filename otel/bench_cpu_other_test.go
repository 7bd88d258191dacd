//go:build !unix

package otelsqlite_test

import "time"

// benchCPUTime is not measured here.
func benchCPUTime() (time.Duration, bool) { return 0, false }
