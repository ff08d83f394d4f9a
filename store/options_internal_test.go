package store

import (
	"testing"
	"time"
)

// An Open without a timeout must not inherit bbolt's "wait forever".
func TestBoltOptionsTimeout(t *testing.T) {
	tests := []struct {
		in, want time.Duration
	}{
		{0, DefaultTimeout},
		{-time.Second, DefaultTimeout},
		{time.Millisecond, time.Millisecond},
		{time.Minute, time.Minute},
	}
	for _, tc := range tests {
		if got := boltOptions(Options{Timeout: tc.in}).Timeout; got != tc.want {
			t.Errorf("Timeout %v gives bbolt %v, want %v", tc.in, got, tc.want)
		}
	}
}
