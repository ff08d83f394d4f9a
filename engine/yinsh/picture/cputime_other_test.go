//go:build !unix

package picture

import (
	"testing"
	"time"
)

// cpuNow has no portable source outside unix; the cpu-ns/op metric is left
// out there.
func cpuNow() time.Duration { return 0 }

func reportCPU(*testing.B, time.Duration) {}
