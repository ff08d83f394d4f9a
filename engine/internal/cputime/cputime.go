// Package cputime is the CPU time the games' benchmarks report per
// operation ("cpu-ns/op") beside the wall time, which means little on a
// busy shared machine, and that the robots' strength benchmark
// (engine/robotmatch) measures each move by. It is for tests and
// benchmarks only.
package cputime

import (
	"testing"
	"time"
)

// Report reports the CPU time used since start (a Now) per operation of b,
// as the metric cpu-ns/op; nothing where Now has no source.
func Report(b *testing.B, start time.Duration) {
	if supported {
		b.ReportMetric(float64(Now()-start)/float64(b.N), "cpu-ns/op")
	}
}
