package engine_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/store"
)

// msg sends "message" from alice with text below it.
func (v *env) msg(line string) []engine.Mail {
	v.t.Helper()
	return v.mail(engine.Inbound{From: addr("alice"), Subject: line, Body: "Hello there.\n"})
}

// TestMessageBounds: the figures of message and broadcast. One message command names at most 10 recipients (11 is a usage
// error), one mail reaches at most 10 (a second command past that is
// refused), one userid sends at most 20 message mails a day (the 21st
// refused, the day after allowed again); a recipient who refused messages,
// has no confirmed address, or had MaxUnasked (10) unasked mails today is
// skipped and the sender told so. broadcast: refused unless the operator
// allows the userid, then to every player who takes messages (30, beyond
// the 25 mails of one incoming mail), once a day.
func TestMessageBounds(t *testing.T) {
	v := newEnv(t)
	var names []string
	for i := 1; i <= 30; i++ {
		names = append(names, fmt.Sprintf("p%02d", i))
	}
	v.signup(append([]string{"alice"}, names...)...)
	if out := v.cmd(addr("nobody"), "signup lurker pw-lurker"); len(out) != 1 {
		t.Fatalf("lurker's signup: %s", format(out))
	}
	ten := strings.Join(names[:10], " ")

	if out := v.msg("message alice pw-alice " + ten + " p11"); len(out) != 1 || !strings.Contains(out[0].Body, "Wrong arguments") {
		t.Errorf("11 recipients: %s", format(out))
	}
	out := v.msg("message alice pw-alice " + ten)
	if len(out) != 11 || !strings.Contains(out[10].Body, "went to: p01, p02") {
		t.Fatalf("10 recipients: %d mails\n%s", len(out), format(out[len(out)-1:]))
	}
	m := out[0]
	if m.To[0] != addr("p01") || m.Subject != "PBeM Server message from alice" || !strings.Contains(m.Body, "alice, a player on this server, sends you this message:\n\nHello there.\n") {
		t.Errorf("the message mail:\n%s", format(out[:1]))
	}
	// A second command in the same mail would make 11 recipients.
	out = v.mail(engine.Inbound{From: addr("alice"), Subject: "multiple",
		Body: "message alice pw-alice " + strings.Join(names[10:16], " ") + "\nmessage alice pw-alice " + strings.Join(names[16:21], " ") + "\n\nHi.\n"})
	if len(out) != 8 || !strings.Contains(out[7].Body, "at most 10 players") {
		t.Errorf("a mail past 10 recipients: %d mails\n%s", len(out), format(out[len(out)-1:]))
	}
	// 16 sent today: 4 left.
	if out := v.msg("message alice pw-alice " + strings.Join(names[16:21], " ")); len(out) != 1 || !strings.Contains(out[0].Body, "you have 4 left") {
		t.Errorf("5 more than the day's 20: %s", format(out))
	}
	if out := v.msg("message alice pw-alice " + strings.Join(names[16:20], " ")); len(out) != 5 {
		t.Errorf("the day's last 4: %d mails", len(out))
	}
	if out := v.msg("message alice pw-alice p21"); len(out) != 1 || !strings.Contains(out[0].Body, "you have 0 left") {
		t.Errorf("the 21st of the day: %s", format(out))
	}
	v.now = v.now.Add(24 * time.Hour)

	// Skipped: messages off, no confirmed address, the day's unasked mails.
	v.cmd(addr("p02"), "change messages p02 pw-p02 off")
	for i := 0; i < engine.MaxUnasked; i++ {
		v.mail(engine.Inbound{From: addr("p04"), Subject: "message p04 pw-p04 p03", Body: "Spam.\n"})
	}
	out = v.msg("message alice pw-alice p01 p02 p03 lurker")
	if len(out) != 2 || out[0].To[0] != addr("p01") {
		t.Fatalf("skipped recipients: %s", format(out))
	}
	if want := "Your message went to: p01\nNot to p02, lurker: no messages taken.\nNot to p03: 10 mails today they did not ask for.\n"; out[1].Body != want {
		t.Errorf("report %q, want %q", out[1].Body, want)
	}

	// broadcast
	if out := v.msg("broadcast alice pw-alice"); len(out) != 1 || !strings.Contains(out[0].Body, "may not broadcast") {
		t.Errorf("broadcast not allowed: %s", format(out))
	}
	if err := v.db.Update(func(tx *store.Tx) error { return engine.SetBroadcaster(tx, "alice", true) }); err != nil {
		t.Fatal(err)
	}
	v.now = v.now.Add(24 * time.Hour)
	out = v.msg("broadcast alice pw-alice")
	// 30 players, less p02 (off): 29 mails and the report, which names
	// nobody who takes no messages (the broadcast does not read them).
	if len(out) != 30 || out[0].Subject != "PBeM Server broadcast from alice" || !strings.Contains(out[29].Body, "p01, p03, p04") ||
		strings.Contains(out[29].Body, "lurker") || strings.Contains(out[29].Body, "p02") {
		t.Errorf("broadcast: %d mails, report:\n%s", len(out), format(out[len(out)-1:]))
	}
	if out := v.msg("broadcast alice pw-alice"); len(out) != 1 || !strings.Contains(out[0].Body, "at most once a day") {
		t.Errorf("second broadcast of the day: %s", format(out))
	}
	for _, m := range out {
		for _, a := range m.To {
			if a == addr("nobody") {
				t.Errorf("a mail to the unconfirmed address: %s", format([]engine.Mail{m}))
			}
		}
	}
}

// TestBroadcastReadsRecipients: a broadcast reads the players who take
// messages and no other account: with the record of a player who turned
// messages off made undecodable, the broadcast goes to the others, where
// the old broadcast, which read every account, failed on it; a player
// who turns messages on again, confirms an address or signs off is in or
// out of the next day's broadcast, and admin check agrees.
func TestBroadcastReadsRecipients(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob", "carol", "dave")
	if err := v.db.Update(func(tx *store.Tx) error { return engine.SetBroadcaster(tx, "alice", true) }); err != nil {
		t.Fatal(err)
	}
	v.cmd(addr("carol"), "change messages carol pw-carol off")
	v.cmd(addr("dave"), "change messages dave pw-dave off")
	if got := v.dump(store.BucketRecipients); got != "recipients/alice=\nrecipients/bob=\n" {
		t.Fatalf("recipients:\n%s", got)
	}
	v.checkIndexes()
	err := v.db.Update(func(tx *store.Tx) error { return tx.Put(store.BucketUsers, "dave", []byte("{")) })
	if err != nil {
		t.Fatal(err)
	}
	out, failed := v.mailFailing(engine.Inbound{From: addr("alice"), Subject: "broadcast alice pw-alice", Body: "Hi all.\n"})
	if failed != nil || len(out) != 2 || out[0].To[0] != addr("bob") || !strings.Contains(out[1].Body, "went to: bob\n") {
		t.Fatalf("broadcast: failed %v\n%s", failed, format(out))
	}
	v.cmd(addr("carol"), "change messages carol pw-carol on")
	v.cmd(addr("bob"), "signoff bob pw-bob")
	if got := v.dump(store.BucketRecipients); got != "recipients/alice=\nrecipients/carol=\n" {
		t.Errorf("recipients after carol's messages on and bob's signoff:\n%s", got)
	}
	v.now = v.now.Add(25 * time.Hour)
	out, failed = v.mailFailing(engine.Inbound{From: addr("alice"), Subject: "broadcast alice pw-alice", Body: "Hi again.\n"})
	if failed != nil || len(out) != 2 || out[0].To[0] != addr("carol") {
		t.Errorf("the next day's broadcast: failed %v\n%s", failed, format(out))
	}
}
