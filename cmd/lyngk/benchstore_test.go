package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBenchStoreRefusesExisting: bench-store never writes into a file that
// exists (a real store, say): exit 1, the file as it was; bad usage exits
// 2; a new file gets its games, and a failed run leaves no file.
func TestBenchStoreRefusesExisting(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "lyngk.db")
	if err := os.WriteFile(existing, []byte("a real store"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	if code := run([]string{"bench-store", "-db", existing, "-games", "10"}, nil, &out, &errs); code != 1 ||
		!strings.Contains(errs.String(), "exists") {
		t.Errorf("existing file: exit %d, stderr %q", code, errs.String())
	}
	if b, _ := os.ReadFile(existing); string(b) != "a real store" {
		t.Errorf("the existing file changed: %q", b)
	}
	for _, args := range [][]string{{"-db", filepath.Join(dir, "x.db")}, {"-games", "10"}, {"-db", filepath.Join(dir, "x.db"), "-games", "10", "-now", "yesterday"}} {
		if code := run(append([]string{"bench-store"}, args...), nil, &out, &errs); code != 2 {
			t.Errorf("%q: exit %d, want 2", args, code)
		}
	}
	bad := filepath.Join(dir, "bad.db")
	if code := run([]string{"bench-store", "-db", bad, "-games", "10", "-running", "11"}, nil, &out, &errs); code != 1 {
		t.Errorf("11 running of 10: exit %d", code)
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("a failed run left %s: %v", bad, err)
	}
	fresh := filepath.Join(dir, "fresh.db")
	out.Reset()
	if code := run([]string{"bench-store", "-db", fresh, "-games", "50", "-now", "2026-11-28T12:00:00Z"}, nil, &out, &errs); code != 0 ||
		!strings.Contains(out.String(), "50 games (running map[lyngk:1], finished map[lyngk:44 yinsh:5]), 5 players") {
		t.Errorf("new store: exit %d, stdout %q, stderr %q", code, out.String(), errs.String())
	}
}
