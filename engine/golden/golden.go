// Package golden compares a test's output with its golden file (testdata/,
// rewritten by go test -update), for the packages whose output must be
// exact: the boards, the pages, the mails and transcripts. Only tests
// import it.
package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Check compares got with the file at path, after writing got there (and
// making its directory) when update is set. A difference fails t with the
// first line that differs.
func Check(t testing.TB, path, got string, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update to accept):\n%s", path, FirstDiff(string(want), got))
	}
}

// FirstDiff says where want and got first differ: the line's number and
// both lines (the first 200 characters of each).
func FirstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\nwant %.200q\n got %.200q", i+1, wl, gl)
		}
	}
	return "(equal)"
}
