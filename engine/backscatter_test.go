package engine_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/store"
)

// TestStrangerNoBackscatter is a measured abuse case: a forged mail with
// a phishing subject got an error quoting that subject, its first line and
// its URL; a one-line spam got an error quoting the URL. Now a stranger (no
// account's confirmed address) gets nothing he wrote back: the "not a
// command" hint, once a day; a generic refusal to a bad signup; no answer
// to the other commands; nothing at all when SPF and DKIM both failed.
func TestStrangerNoBackscatter(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	const zoe = "zoe@elsewhere.example"
	chosen := []string{"http://", "spam.example", "Urgent", "verify", "victim", "Buy"}
	answers := func(out []engine.Mail) (n int) {
		t.Helper()
		for _, m := range out {
			if m.To[0] != zoe {
				continue
			}
			n++
			for _, s := range chosen {
				if strings.Contains(m.Subject+m.Body+m.HTML, s) {
					t.Errorf("the answer to the stranger carries %q:\n%s", s, format([]engine.Mail{m}))
				}
			}
		}
		return n
	}
	phish := engine.Inbound{From: zoe, Subject: "Urgent: verify your account at http://spam.example/login",
		Body: "Buy now at http://spam.example/\n"}
	if n := answers(v.mail(phish)); n != 1 {
		t.Fatalf("phishing mail: %d answers, want the hint", n)
	}
	if n := answers(v.mail(engine.Inbound{From: zoe, Subject: "Buy now at http://spam.example/"})); n != 0 {
		t.Fatalf("second mail without a command the same day: %d answers, want none", n)
	}
	if n := answers(v.mail(engine.Inbound{From: zoe, Subject: "signup alice pw victim@elsewhere.example"})); n != 1 {
		t.Fatalf("signup of a taken userid: %d answers, want the generic refusal", n)
	}
	before := v.dump(store.BucketGames)
	out := v.mail(engine.Inbound{From: zoe, Subject: "lyngk move 101 alice pw-alice G,f5-f4"})
	if n := answers(out); n != 0 || len(out) != 2 || v.dump(store.BucketGames) == before {
		t.Fatalf("a move with alice's password from a stranger's address: %d answers, %d mails; want it made, board mails to the players alone", n, len(out))
	}
	if n := answers(v.mail(engine.Inbound{From: zoe, Subject: "vacation alice wrong on"})); n != 0 {
		t.Fatalf("a wrong password from a stranger: %d answers, want none", n)
	}
	if n := answers(v.mail(engine.Inbound{From: zoe, Subject: "help"})); n != 1 {
		t.Fatalf("help: %d answers, want 1", n)
	}
	if n := answers(v.mail(engine.Inbound{From: zoe, Subject: "help", AuthFailed: true})); n != 0 {
		t.Fatalf("help with SPF and DKIM failed: %d answers, want none", n)
	}
	// A player still gets every error about a real command, with its quote.
	for range 2 {
		if out := v.cmd(addr("bob"), "lyngk show 999"); len(out) != 1 || !strings.Contains(out[0].Body, "There is no Lyngk Board 999") ||
			!strings.Contains(out[0].Body, ">Subject: lyngk show 999") {
			t.Fatalf("a player's error:\n%s", format(out))
		}
	}
	// ... and the hint to a mail without any, once a day.
	if out := v.cmd(addr("bob"), "Thank you for your mail"); len(out) != 1 {
		t.Fatalf("a player's mail without a command: %d answers, want the hint", len(out))
	}
	if out := v.cmd(addr("bob"), "Thank you for your mail"); len(out) != 0 {
		t.Fatalf("the second the same day: %d answers, want none", len(out))
	}
	v.now = v.now.Add(24 * time.Hour)
	if out := v.cmd(addr("bob"), "Thank you for your mail"); len(out) != 1 {
		t.Fatalf("a day later: %d answers, want the hint", len(out))
	}
}

// TestResponderLoop: a player's vacation responder answers his board mail
// ("I am away until Monday"): old main took "I" for a move and answered
// with an error carrying a new board mail, to which the responder answered
// again, 60 mails an hour each way. Now the same first word from the same
// address is answered once a day.
func TestResponderLoop(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	out := v.cmd(addr("alice"), "lyngk challenge alice bob")
	board := out[0]
	answered := 0
	for i := range 10 {
		r := v.reply(board, addr("alice"), "I am away until Monday.\n")
		answered += len(r)
		if len(r) > 0 {
			board = r[0]
		}
		if i == 0 && len(r) != 1 {
			t.Fatalf("the first auto-reply: %d answers, want 1", len(r))
		}
	}
	if answered != 1 {
		t.Fatalf("10 auto-replies got %d answers, want 1", answered)
	}
	// A typo of another word is still answered.
	if r := v.reply(board, addr("alice"), "G,f5-f9\n"); len(r) != 1 {
		t.Fatalf("a bad move: %d answers, want 1", len(r))
	}
}

// TestConfirmationCannon is a measured abuse case: one forged 849-byte
// mail sent 24 confirmation mails to 24 addresses; 18 +tag spellings of one
// mailbox got 18; each quoted the requester's text; a ticket system's
// automatic answer confirmed an account. Now: at most 2 per mail; a
// mailbox's 3 a day whatever its +tag, case or (gmail.com) dots; the mail
// names no address but its own and nothing the requester chose beyond the
// userid; a reply confirms only when it says yes.
func TestConfirmationCannon(t *testing.T) {
	v := newEnv(t)
	v.signup("bob")
	var body strings.Builder
	for i := range 24 {
		fmt.Fprintf(&body, "signup m%d pw target%d@victims.example\n", i, i)
	}
	out := v.mail(engine.Inbound{From: "mallory@forged.example", Subject: "multiple", Body: body.String()})
	confirms := 0
	for _, m := range out {
		if strings.HasPrefix(m.Subject, "Confirm ") {
			confirms++
		}
	}
	if confirms != engine.MaxConfirmsPerMail {
		t.Fatalf("24 signups in one mail: %d confirmation mails, want %d", confirms, engine.MaxConfirmsPerMail)
	}

	sent := 0
	for i := range 18 {
		to := fmt.Sprintf("Vic.Tim+%d@GMail.com", i)
		if i%2 == 1 {
			to = fmt.Sprintf("victim+tag%d@googlemail.com", i)
		}
		out := v.mail(engine.Inbound{From: fmt.Sprintf("CHEAP-PILLS-at-http-evil.example-click-now-%d@forged.example", i),
			Subject: fmt.Sprintf("signup v%d pw %s", i, to)})
		for _, m := range out {
			if !strings.HasPrefix(m.Subject, "Confirm ") {
				continue
			}
			sent++
			if strings.Contains(m.Body, "forged.example") || strings.Contains(m.Body, "CHEAP") {
				t.Errorf("the confirmation mail carries the requester's text:\n%s", m.Body)
			}
		}
	}
	if sent != 3 {
		t.Fatalf("18 spellings of one gmail mailbox got %d confirmation mails, want 3", sent)
	}

	// A ticket system answers the confirmation mail: no confirmation.
	ask := v.cmd(addr("helpdesk"), "signup eve pw-eve")
	auto := "Thank you for contacting the helpdesk. Your ticket number is 4711.\n"
	for range 3 {
		v.reply(ask[0], addr("helpdesk"), auto)
	}
	if out := v.cmd(addr("bob"), "lyngk challenge eve bob"); len(out) != 1 || !strings.Contains(out[0].Body, "eve cannot play yet") {
		t.Fatalf("eve after the ticket system's answers:\n%s", format(out))
	}
	if out := v.reply(ask[0], addr("helpdesk"), "Yes, that is me.\n"); len(out) != 1 || out[0].Subject != "PBeM Server signup eve" {
		t.Fatalf("a reply saying yes:\n%s", format(out))
	}
}

// TestInternalErrorToStranger: the answer to a mail that failed outside
// the engine (InternalError) quotes the command to a player, as every
// error does, and nothing to a stranger, whose subject may be a phishing
// line.
func TestInternalErrorToStranger(t *testing.T) {
	v := newEnv(t)
	v.signup("alice")
	internal := func(in engine.Inbound) []engine.Mail {
		t.Helper()
		var out []engine.Mail
		if err := v.db.Update(func(tx *store.Tx) error {
			var err error
			out, err = v.e.InternalError(tx, in, v.now)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	const phish = "Urgent: verify your account at http://spam.example/login"
	out := internal(engine.Inbound{From: "zoe@elsewhere.example", Subject: phish})
	if len(out) != 1 {
		t.Fatalf("stranger: %d answers, want 1", len(out))
	}
	for _, s := range []string{"Urgent", "spam.example", "verify"} {
		if strings.Contains(out[0].Subject+out[0].Body+out[0].HTML, s) {
			t.Errorf("the internal-error answer to a stranger carries %q:\n%s", s, out[0].Body)
		}
	}
	if !strings.Contains(out[0].Body, "internal error") {
		t.Errorf("the stranger's answer does not say what happened:\n%s", out[0].Body)
	}
	out = internal(engine.Inbound{From: addr("alice"), Subject: "lyngk games alice"})
	if len(out) != 1 || !strings.Contains(out[0].Body, "lyngk games alice") || !strings.Contains(out[0].Body, "internal error") {
		t.Errorf("player: want one answer quoting the command and saying internal error, got %d:\n%s", len(out), format(out))
	}
}

// TestStrangerNoListings: strangers get an answer only to
// help, list and signup (and confirm USERID CODE, signup's second half).
// Old main also answered their listings, and such an answer names the userid or the
// board the stranger typed: `lyngk games quentin` from a forged From made
// a mail naming quentin to the forged address. Now a stranger, forged or
// signed up but not confirmed, gets no mail at all for a listing (errors
// included), alone or among other commands; his help, list and signup are
// answered as before, and help quotes no topic he typed.
func TestStrangerNoListings(t *testing.T) {
	v := newEnv(t)
	v.signup("quentin", "rosalind")
	v.cmd(addr("quentin"), "lyngk challenge quentin rosalind")
	v.cmd(addr("quentin"), "lyngk move 101 quentin pw-quentin G,f5-f4")
	v.cmd(addr("rosalind"), "lyngk resign 101 rosalind pw-rosalind")
	v.cmd(addr("quentin"), "lyngk challenge quentin rosalind")
	const unconfirmed = "mallory@elsewhere.example"
	if out := v.cmd(unconfirmed, "signup mallory pw-mallory"); len(out) != 1 || !strings.HasPrefix(out[0].Subject, "Confirm ") {
		t.Fatalf("mallory's signup:\n%s", format(out))
	}
	listings := []string{"lyngk games quentin", "lyngk show 101", "lyngk show 102", "lyngk history quentin",
		"lyngk standings", "lyngk ratings", "lyngk games rosalind next", "lyngk show quentin all",
		"lyngk show 999", "lyngk games nobody-typed-this", "LYNGK Games quentin", "all show quentin",
		"all show quentin inactive", "lyngk confirm 102 quentin wrong"}
	typed := []string{"quentin", "rosalind", "Board 101", "Board 102", "999", "nobody-typed-this"}
	carries := func(out []engine.Mail) string {
		for _, m := range out {
			for _, s := range typed {
				if strings.Contains(m.Subject+m.Body+m.HTML, s) {
					return s
				}
			}
		}
		return ""
	}
	for _, from := range []string{"zoe@forged.example", unconfirmed} {
		for _, l := range listings {
			if out := v.cmd(from, l); len(out) != 0 {
				t.Errorf("%s from %s: %d mails, want none:\n%s", l, from, len(out), format(out))
			}
		}
		out := v.mail(engine.Inbound{From: from, Subject: "multiple", Body: strings.Join(listings, "\n") + "\n"})
		if len(out) != 0 {
			t.Errorf("all the listings in one mail from %s: %d mails, want none:\n%s", from, len(out), format(out))
		}
		// help and list among them are answered, and nothing else.
		out = v.mail(engine.Inbound{From: from, Subject: "multiple",
			Body: "lyngk games quentin\nhelp\nlyngk show 101\n"})
		if len(out) != 1 || out[0].Subject != "PBeM Server help" {
			t.Errorf("help among listings from %s: want the help alone, got:\n%s", from, format(out))
		}
		if s := carries(out); s != "" {
			t.Errorf("the answer to %s carries %q:\n%s", from, s, format(out))
		}
		if out := v.cmd(from, "list"); len(out) != 1 || carries(out) != "" {
			t.Errorf("list from %s: want the list, got:\n%s", from, format(out))
		}
		if out := v.cmd(from, "help commands"); len(out) != 1 || !strings.Contains(out[0].Body, "signup USERID PASSWORD") {
			t.Errorf("help commands from %s: want its topic, got:\n%s", from, format(out))
		}
		// help with a topic that is none of ours quotes nothing.
		const phish = "http://phish.example/verify-your-account"
		out = v.cmd(from, "help "+phish)
		if len(out) != 1 {
			t.Errorf("help %s from %s: %d mails, want 1", phish, from, len(out))
		}
		for _, m := range out {
			if strings.Contains(m.Subject+m.Body+m.HTML, "phish") {
				t.Errorf("the answer to help %s quotes it:\n%s", phish, format(out))
			}
		}
	}
	// Without the game word a listing is no command: the fixed hint, once
	// a day, naming nothing.
	hints := 0
	for _, l := range []string{"games quentin", "show 101", "history quentin", "standings", "ratings"} {
		out := v.cmd("eve@forged.example", l)
		hints += len(out)
		if s := carries(out); s != "" {
			t.Errorf("%s from a stranger: the answer carries %q:\n%s", l, s, format(out))
		}
	}
	if hints != 1 {
		t.Errorf("listings without the game word from a stranger: %d mails, want the hint once", hints)
	}
	// The new stranger's signup is answered: the confirmation mail.
	if out := v.cmd("newcomer@elsewhere.example", "signup newcomer pw-newcomer"); len(out) != 1 || out[0].Subject != "Confirm PBeM Server signup newcomer" {
		t.Errorf("a stranger's signup:\n%s", format(out))
	}
	// A player still gets his listings.
	if out := v.cmd(addr("rosalind"), "lyngk games quentin"); len(out) != 1 || !strings.Contains(out[0].Body, "quentin - rosalind") {
		t.Errorf("a player's listing:\n%s", format(out))
	}
}
