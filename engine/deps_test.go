package engine_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoGameInTheCore: the engine and its web part know no game; they
// speak to games through the contract (engine/games) alone, and only
// cmd/lyngk builds the list of games. `go list -deps` of both names none
// of our packages but the contract, the store, the templates and the
// game-blind records, review and tournament pairing (no
// engine/lyngk, its picture or its search).
func TestNoGameInTheCore(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".", "./web").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 || !strings.Contains(string(out), "lyngk.example/lyngk/engine/games") {
		t.Fatalf("go list -deps gave %d packages, without the contract:\n%s", len(deps), out)
	}
	// Of our packages, these alone: no game's rules, picture or robot.
	allowed := map[string]bool{"engine": true, "engine/bounded": true, "engine/record": true, "engine/review": true, "engine/games": true, "engine/tournament": true, "engine/web": true, "store": true, "templates": true}
	for _, d := range deps {
		if ours, ok := strings.CutPrefix(d, "lyngk.example/lyngk/"); ok && !allowed[ours] {
			t.Errorf("the engine depends on %s", d)
		}
	}
}
