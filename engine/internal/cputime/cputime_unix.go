//go:build unix

package cputime

import (
	"syscall"
	"time"
)

const supported = true

// Now returns the CPU time the process used so far (user and system).
func Now() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
