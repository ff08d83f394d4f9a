//go:build unix

package picture

import (
	"syscall"
	"testing"
	"time"
)

// cpuNow returns the CPU time the process used so far. The benchmarks
// report it per operation as well ("cpu-ns/op"), because wall time is
// meaningless on a busy shared machine.
func cpuNow() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuNow()-start)/float64(b.N), "cpu-ns/op")
}
