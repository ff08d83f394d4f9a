package engine_test

import (
	"strings"
	"testing"
	"time"
)

// TestDelete: delete erases bob's personal data from the store (the
// addresses, the password hash, his choices, a confirmation code still
// pending for a second address; the counts of confirmation mails of his
// addresses once their day is over) and resigns his running game; what stays
// is his record under the userid with his rating and results, which
// nobody can sign up again. The last mail goes to his address.
func TestDelete(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	v.cmd(addr("bob"), "change format bob pw-bob text")
	if out := v.cmd(addr("bob"), "add bob pw-bob bob@second.example"); len(out) != 2 {
		t.Fatalf("add: %d mails", len(out))
	}
	if d := v.dump(); !strings.Contains(d, `"user":"bob","address":"bob@second.example"`) {
		t.Fatalf("no pending confirmation for bob:\n%s", d)
	}
	out := v.cmd(addr("bob"), "delete bob pw-bob")
	var last bool
	for _, m := range out {
		last = last || m.Subject == "PBeM Server account bob deleted" && m.To[0] == addr("bob")
	}
	if !last || len(out) != 3 { // the board mails of the resignation to both, the last mail
		t.Fatalf("delete: %s", format(out))
	}
	d := v.dump()
	if !strings.Contains(d, "addresses/bob@players.example=") {
		t.Errorf("the count of confirmation mails of bob's address went before its day:\n%s", d)
	}
	v.now = v.now.Add(24 * time.Hour)
	v.tick()
	d = v.dump()
	for _, gone := range []string{addr("bob"), "bob@second.example", `"format"`, `"hash":"$2`} {
		if strings.Contains(d, gone) && (gone != `"hash":"$2` || strings.Count(d, gone) != 1) {
			t.Errorf("the store still holds %s:\n%s", gone, d)
		}
	}
	if !strings.Contains(d, `users/bob={"v":1,"id":"bob","hash":"","addresses":null,`) || !strings.Contains(d, `"deleted":`) {
		t.Errorf("bob's record:\n%s", d)
	}
	if !strings.Contains(d, `"status":"cancelled"`) {
		t.Errorf("bob's game is not over:\n%s", d)
	}
	if out := v.cmd("eve@players.example", "signup bob other"); len(out) != 1 || !strings.Contains(out[0].Body, "taken") {
		t.Errorf("signup bob after delete: %s", format(out))
	}
	// bob's address is no account's now: a stranger's, which gets no
	// answer to delete (no backscatter); a player's gets the
	// refusal.
	if out := v.cmd(addr("bob"), "delete bob pw-bob"); len(out) != 0 {
		t.Errorf("second delete from bob's old address: %s", format(out))
	}
	if out := v.cmd(addr("alice"), "delete bob pw-bob"); len(out) != 1 || !strings.Contains(out[0].Body, `no user "bob"`) {
		t.Errorf("second delete: %s", format(out))
	}
}
