package engine_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/store"
)

func (v *env) bounce(b engine.Bounce) engine.BounceOutcome {
	v.t.Helper()
	var out engine.BounceOutcome
	err := v.db.Update(func(tx *store.Tx) (err error) {
		out, err = v.e.Bounce(tx, b, v.now)
		return err
	})
	if err != nil {
		v.t.Fatal(err)
	}
	v.now = v.now.Add(time.Second)
	return out
}

func (v *env) bounceToken(a string) string {
	v.t.Helper()
	var tok string
	err := v.db.Update(func(tx *store.Tx) (err error) {
		tok, err = v.e.BounceToken(tx, a)
		return err
	})
	if err != nil {
		v.t.Fatal(err)
	}
	return tok
}

func (v *env) bounceList() []engine.BounceInfo {
	v.t.Helper()
	var l []engine.BounceInfo
	if err := v.db.View(func(tx *store.Tx) (err error) { l, err = engine.Bounces(tx); return err }); err != nil {
		v.t.Fatal(err)
	}
	return l
}

func sentTo(ms []engine.Mail, a string) bool {
	return slices.ContainsFunc(ms, func(m engine.Mail) bool { return slices.Contains(m.To, a) })
}

// TestBounceVERP: the VERP token of a confirmed address (none for a
// stranger); soft bounces are only counted; hard bounces of 3 different
// mails within 14 days mark the address bouncing, the same mail twice or
// a bounce older than 14 days does not count; a bounce to an unknown
// token is nobody's.
func TestBounceVERP(t *testing.T) {
	v := newEnv(t)
	v.signup("alice")
	if tok := v.bounceToken("stranger@else.example"); tok != "" {
		t.Errorf("a stranger got the token %q", tok)
	}
	tok := v.bounceToken(addr("alice"))
	if len(tok) != 16 || v.bounceToken(strings.ToUpper(addr("alice"))) != tok {
		t.Fatalf("token %q: want 16 characters, the same for the address in any case", tok)
	}
	verp := engine.VERP(robot, tok)
	if verp != "lyngk+b-"+tok+"@example.net" {
		t.Fatalf("VERP %q", verp)
	}
	hard := func(mail string) engine.Bounce {
		return engine.Bounce{To: []string{verp}, MessageIDs: []string{mail}, Recipients: []engine.BounceRecipient{{Addr: "fwd@other.example", Hard: true}}}
	}
	if out := v.bounce(engine.Bounce{To: []string{verp}, Recipients: []engine.BounceRecipient{{Addr: addr("alice")}}}); out != (engine.BounceOutcome{Address: addr("alice")}) {
		t.Errorf("soft bounce: %+v", out)
	}
	steps := []struct {
		after  time.Duration
		mail   string
		marked bool
	}{
		{0, "m1@example.net", false},
		{15 * day, "m2@example.net", false}, // m1 is out of the window
		{day, "m2@example.net", false},      // the same mail again
		{day, "m3@example.net", false},
		{11 * day, "m4@example.net", true}, // m2, m3, m4 within 14 days
		{day, "m5@example.net", false},     // marked already
	}
	for i, s := range steps {
		v.now = v.now.Add(s.after)
		out := v.bounce(hard(s.mail))
		if out.Address != addr("alice") || !out.Hard || out.Marked != s.marked {
			t.Errorf("step %d (%s): %+v, want marked %v", i, s.mail, out, s.marked)
		}
	}
	if l := v.bounceList(); len(l) != 1 || l[0].Address != addr("alice") || l[0].Bouncing.IsZero() || l[0].Hard != 3 || l[0].Soft != 1 {
		t.Errorf("list: %+v", l)
	}
	if out := v.bounce(engine.Bounce{To: []string{"lyngk+b-unknowntoken@example.net"}, Recipients: []engine.BounceRecipient{{Addr: addr("alice"), Hard: true}}}); out.Address != "" {
		t.Errorf("unknown token matched %+v", out)
	}
}

// TestBouncing: matched by the returned Message-ID (only to an address of
// the mail's own user), a bouncing address gets no mail but confirmations;
// the account whose last address bounces has its games paused as on
// vacation; change address lifts the mark and restarts the clock; a
// confirmation of a bouncing address lifts its mark too.
func TestBouncing(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob", "carol")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	v.firstMoves(101, [2]string{"alice", "bob"})
	// alice is to move; the board mails of the game carry reply tokens.
	var ids []string
	for range 3 {
		out := v.cmd(addr("alice"), "lyngk show 101")
		if len(out) != 1 || out[0].MessageID == "" || !strings.HasPrefix(out[0].MessageID, "lyngk.") {
			t.Fatalf("show: %s", format(out))
		}
		ids = append(ids, out[0].MessageID)
	}
	// A forged bounce naming bob's address with alice's mail is nobody's.
	if out := v.bounce(engine.Bounce{MessageIDs: ids[:1], Recipients: []engine.BounceRecipient{{Addr: addr("bob"), Hard: true}}}); out.Address != "" {
		t.Fatalf("bob matched through alice's mail: %+v", out)
	}
	if out := v.bounce(engine.Bounce{MessageIDs: []string{"other@example.net"}, Recipients: []engine.BounceRecipient{{Addr: addr("alice"), Hard: true}}}); out.Address != "" {
		t.Fatalf("a mail without reply token matched: %+v", out)
	}
	for i, id := range ids {
		out := v.bounce(engine.Bounce{MessageIDs: []string{id}, Recipients: []engine.BounceRecipient{{Addr: strings.ToUpper(addr("alice")), Hard: true}}})
		if out.Address != addr("alice") || out.Marked != (i == 2) {
			t.Fatalf("bounce %d: %+v", i, out)
		}
	}
	// No mail to alice now: not bob's move's board mail, not an answer.
	if out := v.cmd(addr("alice"), "lyngk show 101"); len(out) != 0 {
		t.Errorf("a mail to a bouncing address:\n%s", format(out))
	}
	if out := v.cmd(addr("bob"), "lyngk show 101"); len(out) != 1 || !sentTo(out, addr("bob")) {
		t.Errorf("bob's mail:\n%s", format(out))
	}
	// Her only address bounces: her game is paused as on vacation.
	v.now = v.now.Add(30 * day)
	if out := v.tick(); len(out) != 0 {
		t.Fatalf("timers ran for a player whose every address bounces:\n%s", format(out))
	}
	// change address lifts the mark; the clock restarts then.
	back := v.now
	if out := v.cmd(addr("alice"), "change address alice pw-alice "+addr("alice")); !sentTo(out, addr("alice")) {
		t.Fatalf("change address:\n%s", format(out))
	}
	if l := v.bounceList(); len(l) != 0 {
		t.Errorf("after change address: %+v", l)
	}
	v.now = back.Add(7*day - time.Minute)
	if out := v.tick(); len(out) != 0 {
		t.Fatalf("reminder within 7 days of the mark's end:\n%s", format(out))
	}
	v.now = back.Add(7 * day)
	if out := v.tick(); !sentTo(out, addr("alice")) {
		t.Fatalf("no reminder 7 days after the mark's end:\n%s", format(out))
	}

	// carol's address bounces; a confirmation mail still reaches it, and
	// its confirmation lifts the mark.
	ctok := engine.VERP(robot, v.bounceToken(addr("carol")))
	for _, id := range []string{"a@x", "b@x", "c@x"} {
		v.bounce(engine.Bounce{To: []string{ctok}, MessageIDs: []string{id}, Recipients: []engine.BounceRecipient{{Addr: addr("carol"), Hard: true}}})
	}
	ask := v.cmd(addr("bob"), "change address bob pw-bob "+addr("bob")+" "+addr("carol"))
	if !slices.ContainsFunc(ask, func(m engine.Mail) bool {
		return strings.HasPrefix(m.Subject, "Confirm ") && slices.Equal(m.To, []string{addr("carol")})
	}) {
		t.Fatalf("no confirmation to the bouncing address:\n%s", format(ask))
	}
	for _, m := range ask {
		if strings.HasPrefix(m.Subject, "Confirm ") {
			v.confirm(m)
		}
	}
	if l := v.bounceList(); len(l) != 0 {
		t.Errorf("after the confirmation: %+v", l)
	}
}
