package engine_test

import (
	"strings"
	"testing"
)

// TestConfirmStale: a submitted move is voided by any change of the game
// (here bob's draw offer); confirming it then is refused and changes
// nothing in the store, and a new submit and confirm play.
func TestConfirmStale(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	if out := v.cmd(addr("alice"), "lyngk submit 101 alice pw-alice G,c1-d1"); len(out) != 1 || !strings.Contains(out[0].Body, "You submitted G,c1-d1") {
		t.Fatalf("submit: %s", format(out))
	}
	v.cmd(addr("bob"), "lyngk move 101 bob pw-bob propose")
	before := v.dump()
	if out := v.cmd(addr("alice"), "lyngk confirm 101 alice pw-alice"); len(out) != 1 || !strings.Contains(out[0].Body, "has changed since you submitted G,c1-d1") {
		t.Fatalf("stale confirm: %s", format(out))
	}
	if after := v.dump("users", "games"); !strings.Contains(before, after) {
		t.Errorf("a refused confirm changed the store:\nbefore %s\nafter %s", before, after)
	}
	v.cmd(addr("alice"), "lyngk submit 101 alice pw-alice G,c1-d1")
	if out := v.cmd(addr("alice"), "lyngk confirm 101 alice pw-alice"); len(out) != 2 || !strings.Contains(out[0].Body, "   1 G,c1-d1") {
		t.Errorf("confirm: %s", format(out))
	}
}
