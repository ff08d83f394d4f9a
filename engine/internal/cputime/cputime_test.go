package cputime

import (
	"testing"
	"time"
)

// TestNow: the process's CPU time is positive and grows while it works.
func TestNow(t *testing.T) {
	if !supported {
		t.Skip("no CPU time on this system")
	}
	start := Now()
	if start <= 0 {
		t.Fatalf("Now() = %v, want > 0", start)
	}
	deadline := time.Now().Add(10 * time.Second)
	for Now() == start {
		if time.Now().After(deadline) {
			t.Fatalf("Now() still %v after 10 s of work", start)
		}
	}
}
