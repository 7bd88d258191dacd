//go:build !unix

package workload

import "time"

// cpuTime is not measured on this system: no cpu-ns/op metric is reported.
func cpuTime() (time.Duration, bool) { return 0, false }
