package engine_test

import (
	"slices"
	"strings"
	"testing"
)

// TestAccounts: password and address changes take effect; a signed-off
// userid stays taken and can no longer play.
func TestAccounts(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	v.cmd(addr("alice"), "change password alice pw-alice fresh")
	if out := v.cmd(addr("alice"), "lyngk vacation"); len(out) != 1 || out[0].Subject != "PBeM Server error" {
		t.Fatalf("unknown command: %s", format(out))
	}
	if out := v.cmd(addr("alice"), "vacation alice pw-alice on"); !strings.HasPrefix(out[0].Body, "Wrong password for alice.") {
		t.Errorf("old password still works:\n%s", format(out))
	}
	if out := v.cmd(addr("alice"), "vacation alice fresh on"); out[0].Subject != "PBeM Server account alice" {
		t.Errorf("new password refused:\n%s", format(out))
	}
	changed := v.cmd(addr("alice"), "change address alice fresh alice@new.example")
	if len(changed) != 2 || changed[0].To[0] != addr("alice") || changed[1].To[0] != "alice@new.example" {
		t.Fatalf("change address: want the notice to the old address and a confirmation to the new:\n%s", format(changed))
	}
	// Until the new address is confirmed, the mail goes to the old one.
	if out := v.cmd(addr("bob"), "lyngk challenge bob alice"); len(out) != 2 || out[1].To[0] != addr("alice") {
		t.Errorf("board mail not to the old address before confirmation:\n%s", format(out))
	}
	if out := v.confirm(changed[1]); len(out) != 1 || !strings.Contains(out[0].Body, "alice@new.example is confirmed") ||
		!slices.Equal(out[0].To, []string{addr("alice"), "alice@new.example"}) {
		t.Fatalf("confirmation of the new address:\n%s", format(out))
	}
	v.cmd(addr("alice"), "lyngk resign 101 alice fresh")
	out := v.cmd(addr("bob"), "lyngk challenge bob alice")
	if len(out) != 2 || out[1].To[0] != "alice@new.example" {
		t.Errorf("board mail not to the new address:\n%s", format(out))
	}
	v.cmd(addr("alice"), "signoff alice fresh")
	// Neither game counts: alice resigned one, and signoff the other,
	// before anybody moved.
	if out := v.cmd(addr("bob"), "lyngk challenge bob alice"); !strings.HasPrefix(out[0].Body, "alice has signed off.") {
		t.Errorf("challenge of a signed-off user:\n%s", format(out))
	}
	// zoe is a stranger: her answer names nothing she typed.
	if out := v.cmd(addr("zoe"), "signup ALICE pw"); !strings.HasPrefix(out[0].Body, "Your mail to PBeM Server was refused") {
		t.Errorf("signed-off userid taken again:\n%s", format(out))
	}
	if out := v.cmd(addr("bob"), "lyngk games"); strings.Count(out[0].Body, "bob - alice: cancelled (resign)") != 2 {
		t.Errorf("games after signoff:\n%s", format(out))
	}
}

// TestShowReply: a board asked for by one of its players can be answered
// with a move; a resigned player stays subscribed.
func TestShowReply(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	v.cmd(addr("bob"), "lyngk challenge alice bob")
	shown := v.cmd(addr("alice"), "lyngk show 101")
	if len(shown) != 1 || shown[0].MessageID == "" {
		t.Fatalf("show to a player carries no token:\n%s", format(shown))
	}
	if out := v.reply(shown[0], addr("alice"), "G,f5-f4\n"); len(out) != 2 || out[0].Subject != "Lyngk Board 101 bob" {
		t.Fatalf("reply to the shown board:\n%s", format(out))
	}
	v.cmd(addr("bob"), "lyngk resign 101 bob pw-bob")
	if out := v.cmd(addr("bob"), "lyngk unsubscribe 101 bob pw-bob"); out[0].Subject != "PBeM Server account bob" {
		t.Errorf("the resigned player is no subscriber:\n%s", format(out))
	}
}
