//go:build unix

package otelsqlite_test

import (
	"syscall"
	"time"
)

// benchCPUTime is the CPU time, user and system, of the whole process so
// far (every thread: the batch span processor's and the garbage
// collector's included): on a shared machine it moves less than the wall
// clock with other people's load.
func benchCPUTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
