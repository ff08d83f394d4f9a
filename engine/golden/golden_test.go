package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing; a
// fatal one ends the check (check recovers it), as it ends a test.
type recorder struct {
	testing.TB
	errs []string
}

type fatal struct{}

func (r *recorder) Helper()                   {}
func (r *recorder) Errorf(f string, a ...any) { r.errs = append(r.errs, f) }
func (r *recorder) Fatalf(f string, a ...any) { r.errs = append(r.errs, f); panic(fatal{}) }
func (r *recorder) Fatal(a ...any)            { r.errs = append(r.errs, "fatal"); panic(fatal{}) }

func (r *recorder) check(path, got string, update bool) {
	defer func() {
		if p := recover(); p != nil && p != (fatal{}) {
			panic(p)
		}
	}()
	Check(r, path, got, update)
}

// TestCheck: -update writes the file (its directory made), the same text
// passes, another fails, a missing file fails; FirstDiff names the first
// differing line, a missing last line included.
func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "x.golden")
	r := &recorder{TB: t}
	r.check(path, "a\nb\n", true)
	if b, err := os.ReadFile(path); err != nil || string(b) != "a\nb\n" || len(r.errs) != 0 {
		t.Fatalf("update: %q, %v, %q", b, err, r.errs)
	}
	r.check(path, "a\nb\n", false)
	if len(r.errs) != 0 {
		t.Errorf("same text: %q", r.errs)
	}
	r.check(path, "a\nc\n", false)
	r.check(filepath.Join(t.TempDir(), "none"), "a", false)
	if len(r.errs) != 2 || !strings.Contains(r.errs[1], "-update to create it") {
		t.Errorf("a difference and a missing file: %q", r.errs)
	}
	for _, tc := range []struct{ want, got, diff string }{
		{"a\nb\n", "a\nc\n", "line 2:\nwant \"b\"\n got \"c\""},
		{"a\nb", "a", "line 2:\nwant \"b\"\n got \"\""},
		{"a", "a", "(equal)"},
	} {
		if d := FirstDiff(tc.want, tc.got); d != tc.diff {
			t.Errorf("FirstDiff(%q, %q) = %q, want %q", tc.want, tc.got, d, tc.diff)
		}
	}
}
