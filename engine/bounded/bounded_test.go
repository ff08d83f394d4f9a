package bounded

import (
	"fmt"
	"testing"
)

// TestCacheBound: a cache never holds much more than its budget, and
// keeps what is in use.
func TestCacheBound(t *testing.T) {
	c := New(10000, func(v []byte) int { return len(v) })
	made := 0
	mk := func() []byte { made++; return make([]byte, 100) }
	for i := range 1000 {
		c.Get(fmt.Sprint(i), mk)
		c.Get("kept", mk) // in use all along
	}
	if made != 1001 {
		t.Errorf("%d values made, want 1001 (one per key)", made)
	}
	size := 0
	for _, m := range []map[string][]byte{c.cur, c.old} {
		for k, v := range m {
			size += len(k) + len(v)
		}
	}
	if size > 10000+200 || c.Len() > 100 {
		t.Errorf("cache holds %d bytes in %d values, budget 10000", size, c.Len())
	}
	if _, ok := c.Lookup("kept"); !ok {
		t.Error("the value in use was dropped")
	}
	if _, ok := c.Lookup("0"); ok {
		t.Error("the oldest value is still held")
	}
}
