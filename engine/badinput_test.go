package engine_test

import (
	"cmp"
	"slices"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/lyngk"
)

// world is the state every bad-input case starts from: alice, bob and
// carol signed up; board 101 alice-bob after two moves (alice to move,
// carol subscribed); board 102 carol-bob, resigned by carol.
type world struct {
	*env
	// board mails: alice's and bob's latest, alice's and bob's first,
	// carol's, bob's final
	fresh, freshBob, old, oldBob, carol101, over102 engine.Mail
	bobMove                                         string
	doraConfirm                                     engine.Mail
}

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{env: newEnv(t)}
	w.signup("alice", "bob", "carol")
	first := w.cmd(addr("alice"), "lyngk challenge alice bob")
	w.old, w.oldBob = first[0], first[1]
	w.cmd(addr("alice"), "lyngk move 101 alice pw-alice G,f5-f4")
	pos := lyngk.New(101, lyngk.Standard)
	m, _, _ := lyngk.ParseMove("G,f5-f4")
	if err := pos.Apply(m); err != nil {
		t.Fatal(err)
	}
	legal := pos.LegalPlain(nil)
	slices.SortFunc(legal, func(a, b lyngk.Move) int { return strings.Compare(a.String(), b.String()) })
	w.bobMove = legal[0].String()
	out := w.cmd(addr("bob"), "lyngk move 101 bob pw-bob "+w.bobMove)
	w.fresh, w.freshBob = out[0], out[1]
	w.carol101 = w.cmd(addr("carol"), "lyngk subscribe 101 carol pw-carol")[0]
	w.cmd(addr("carol"), "lyngk challenge carol bob")
	w.over102 = w.cmd(addr("carol"), "lyngk resign 102 carol pw-carol")[1]
	// dora has signed up but not confirmed her address.
	w.doraConfirm = w.cmd(addr("dora"), "signup dora pw-dora")[0]
	return w
}

// confirmCode is the code a confirmation mail gives for the confirm command.
func confirmCode(t *testing.T, m engine.Mail) string {
	t.Helper()
	_, rest, ok := strings.Cut(m.Body, "\n  confirm ")
	f := strings.Fields(rest)
	if !ok || len(f) < 2 {
		t.Fatalf("no confirm command in:\n%s", m.Body)
	}
	return f[1]
}

func replyTo(m engine.Mail, from, body string) engine.Inbound {
	return engine.Inbound{From: from, Subject: "Re: " + m.Subject, Body: body,
		InReplyTo: []string{m.MessageID}, References: []string{m.MessageID}}
}

// TestBadInput: every kind of bad input gets one error mail, to the sender
// only, and changes nothing. The sender (zoe) writes from carol's confirmed
// address: a stranger gets no such text (TestStrangerNoBackscatter).
func TestBadInput(t *testing.T) {
	const zoe = "carol@players.example"
	alice, bob, carol := addr("alice"), addr("bob"), addr("carol")
	tests := []struct {
		name                string
		from, subject, body string
		inReplyTo           string
		replyTo             func(w *world) engine.Mail // answer this board mail instead
		doraCode            bool                       // append the code of dora's confirmation to the subject
		tooBig              bool
		wantSubject         string // "" = "PBeM Server error"
		want                string // the start of the body
	}{
		{name: "unknown-command", from: zoe, subject: "hello", body: "play chess?\n", want: `"play" is not a command.`},
		{name: "unknown-game-command", from: zoe, subject: "lyngk fly 101", want: `"lyngk fly" is not a command.`},
		{name: "no-command", from: zoe, body: "\n> quoted only\n", want: "I found no command in your mail."},
		{name: "usage", from: zoe, subject: "lyngk move 101 alice pw-alice",
			want: "Wrong arguments. Usage: lyngk move BOARD USERID PASSWORD MOVE[#N]"},
		{name: "bad-option", from: zoe, subject: "lyngk challenge -x alice bob", want: `Unknown option "-x".`},
		{name: "wrong-password", from: alice, subject: "lyngk move 101 alice secret e4-e5", want: "Wrong password for alice."},
		{name: "unknown-user", from: zoe, subject: "lyngk move 101 zed pw e4-e5", want: `There is no user "zed".`},
		{name: "unknown-board", from: alice, subject: "lyngk move 999 alice pw-alice e4-e5", want: "There is no Lyngk Board 999."},
		{name: "bad-board", from: alice, subject: "lyngk move #101 alice pw-alice e4-e5", want: `"#101" is not a board number.`},
		{name: "not-player", from: carol, subject: "lyngk move 101 carol pw-carol e4-e5", want: "carol does not play on Lyngk Board 101."},
		{name: "not-your-turn", from: bob, subject: "x", body: "lyngk move 101 bob pw-bob e4-e5\n", wantSubject: "Lyngk Board 101 Error",
			want: "It is not your move\n\nSummary of Lyngk Board 101\n\nIt is alice's turn.\n"},
		{name: "illegal-move", from: alice, subject: "lyngk move 101 alice pw-alice a1-i1", wantSubject: "Lyngk Board 101 Error",
			want: "Illegal move a1-i1: "},
		{name: "illegal-claim", from: alice, subject: "lyngk move 101 alice pw-alice G,a1-b2", wantSubject: "Lyngk Board 101 Error",
			want: "Illegal move G,a1-b2: "},
		{name: "bad-notation", from: alice, subject: "lyngk move 101 alice pw-alice e4e5", wantSubject: "Lyngk Board 101 Error",
			want: "Bad move notation \"e4e5\".\nWrite a move as FROM-TO, like b1-b2"},
		{name: "bad-square", from: alice, subject: "lyngk move 101 alice pw-alice a9-b2", wantSubject: "Lyngk Board 101 Error",
			want: "Bad move notation \"a9-b2\": no point \"a9\" on the board.\nWrite a move as FROM-TO"},
		{name: "move-number", from: alice, subject: "lyngk move 101 alice pw-alice a1-b2#7", wantSubject: "Lyngk Board 101 Error",
			want: "Your move is numbered #7, but this is move 3."},
		{name: "game-over", from: bob, subject: "lyngk move 102 bob pw-bob a1-b2", wantSubject: "Lyngk Board 102 Error",
			want: "Lyngk Board 102 is over: it takes no more moves."},
		{name: "self-challenge", from: zoe, subject: "lyngk challenge alice ALICE", want: "alice cannot play against alice"},
		{name: "challenge-unknown", from: zoe, subject: "lyngk challenge alice zed", want: `There is no user "zed".`},
		{name: "signup-taken", from: zoe, subject: "signup Alice pw", want: "The userid Alice is taken"},
		{name: "signup-colon", from: zoe, subject: "signup zo:e pw", want: `"zo:e" cannot be a userid.`},
		{name: "signup-quote", from: zoe, subject: `signup "zoe" pw`, want: `""zoe"" cannot be a userid.`},
		{name: "signup-digits", from: zoe, subject: "signup 123 pw", want: `"123" cannot be a userid.`},
		{name: "signup-password-colon", from: zoe, subject: "signup zoe pw:1", want: "That password cannot be used"},
		{name: "signup-password-quote", from: zoe, subject: "signup zoe 'pw'", want: "That password cannot be used"},
		{name: "signup-address", from: zoe, subject: "signup zoe pw nowhere", want: `"nowhere" is not a plain mail address.`},
		{name: "signup-quoted-local", from: zoe, subject: `signup ad0 PW "evil@attacker.test"@victim.test`,
			want: `""evil@attacker.test"@victim.test" is not a plain mail address.`},
		{name: "signup-ip-literal", from: zoe, subject: "signup zoe pw zoe@[192.0.2.1]", want: `"zoe@[192.0.2.1]" is not a plain mail address`},
		{name: "signup-ip-address", from: zoe, subject: "signup zoe pw zoe@192.0.2.1", want: `"zoe@192.0.2.1" is not a plain mail address`},
		{name: "signup-no-dot", from: zoe, subject: "signup zoe pw zoe@intranet", want: `"zoe@intranet" is not a plain mail address`},
		{name: "signup-angle", from: zoe, subject: "signup zoe pw <zoe@home.example>", want: `"<zoe@home.example>" is not a plain mail address`},
		{name: "signup-bad-sender", from: `"evil@attacker.test"@victim.test`, subject: "signup zoe pw",
			want: "Your mail to PBeM Server was refused"}, // a stranger: nothing of what he wrote
		{name: "change-address-ip", from: alice, subject: "change address alice pw-alice alice@[::1]", want: `"alice@[::1]" is not a plain mail address`},
		{name: "change-address-dots", from: alice, subject: "change address alice pw-alice al..ice@players.example",
			want: `"al..ice@players.example" is not a plain mail address`},
		{name: "challenge-unconfirmed", from: zoe, subject: "lyngk challenge alice dora", want: "dora cannot play yet: dora has no confirmed mail address."},
		{name: "confirm-unknown", from: zoe, subject: "confirm dora abcdefghijklmnopqrstuvwxyz234567", want: "That confirmation code is unknown"},
		{name: "confirm-other-user", from: zoe, subject: "confirm alice ", want: "That confirmation code is unknown", doraCode: true},
		{name: "confirm-usage", from: zoe, subject: "confirm dora", want: "Wrong arguments. Usage: confirm USERID CODE"},
		{name: "change-password-wrong", from: alice, subject: "change password alice nope new", want: "Wrong password for alice."},
		{name: "signoff-wrong", from: zoe, subject: "signoff alice nope", want: "Wrong password for alice."},
		{name: "reply-without-token", from: alice, subject: "Re: Lyngk Board 101 alice", body: "e4-e5\n", inReplyTo: "abc@mail.example",
			want: "Your reply does not answer a board mail of this server"},
		{name: "reply-forged-token", from: alice, subject: "Re: Lyngk Board 101 alice", body: "e4-e5\n",
			inReplyTo: "lyngk.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa@example.net", want: "Your reply does not answer a board mail of this server"},
		{name: "reply-stale-token", from: alice, body: "e4-e5\n", replyTo: func(w *world) engine.Mail { return w.old },
			wantSubject: "Lyngk Board 101 Error",
			want:        "Lyngk Board 101 has moved on since the board mail you replied to: that\nmail showed the game after move 0, the game is now after move 2."},
		// A stale reply of the player not to move is not told
		// to reply with his move.
		{name: "reply-stale-token-not-your-turn", from: bob, body: "e4-e5\n", replyTo: func(w *world) engine.Mail { return w.oldBob },
			wantSubject: "Lyngk Board 101 Error",
			want:        "Lyngk Board 101 has moved on since the board mail you replied to: that\nmail showed the game after move 0, the game is now after move 2.\nNothing was changed. This mail shows the game as it is now, which\nis alice's turn, not yours.\n"},
		{name: "reply-game-over", from: bob, body: "a1-b2\n", replyTo: func(w *world) engine.Mail { return w.over102 },
			wantSubject: "Lyngk Board 102 Error", want: "Lyngk Board 102 is over"},
		{name: "reply-not-player", from: carol, body: "a1-b2\n", replyTo: func(w *world) engine.Mail { return w.carol101 },
			want: "The board mail you replied to went to carol, who does not play on Lyngk\nBoard 101."},
		{name: "reply-not-your-turn", from: bob, body: "a1-b2\n", replyTo: func(w *world) engine.Mail { return w.freshBob },
			wantSubject: "Lyngk Board 101 Error", want: "It is not your move"},
		{name: "help-topic", from: zoe, subject: "help chess", want: `There is no help topic "chess".`},
		{name: "show-number", from: zoe, subject: "lyngk show 101#3", wantSubject: "Lyngk Board 101 Error",
			want: "Lyngk Board 101 has 2 moves: there is no position after move 3."},
		{name: "too-big", from: zoe, subject: "lyngk move 101 alice pw-alice e4-e5", tooBig: true, want: "Mail refused: over 1 MiB."},
		{name: "subscribe-player", from: zoe, subject: "lyngk subscribe 101 bob pw-bob", want: "bob plays on Lyngk Board 101"},
		{name: "unsubscribe-not", from: zoe, subject: "lyngk unsubscribe 102 alice pw-alice", want: "alice is not subscribed to Lyngk Board 102."},
		{name: "chat-empty", from: zoe, subject: "lyngk chat 101 bob pw-bob", want: "There is no text to send"},
		{name: "chat-outsider", from: zoe, subject: "lyngk chat 102 alice pw-alice", body: "hi", want: "alice does not play on Lyngk Board 102."},
		{name: "accept-nothing", from: zoe, subject: "lyngk move 101 alice pw-alice accept", wantSubject: "Lyngk Board 101 Error",
			want: "There is no pending draw offer or take-back request"},
		{name: "undo-not-yours", from: zoe, subject: "lyngk move 101 alice pw-alice undo", wantSubject: "Lyngk Board 101 Error",
			want: "The last move, 2 ("},
		{name: "vacation-usage", from: zoe, subject: "vacation alice pw-alice maybe", want: "Wrong arguments. Usage: vacation USERID PASSWORD on|off"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t)
			in := engine.Inbound{From: tt.from, Subject: tt.subject, Body: tt.body, TooBig: tt.tooBig}
			if tt.doraCode {
				in.Subject += confirmCode(t, w.doraConfirm)
			}
			if tt.inReplyTo != "" {
				in.InReplyTo = []string{tt.inReplyTo}
			}
			if tt.replyTo != nil {
				in = replyTo(tt.replyTo(w), tt.from, tt.body)
			}
			before := w.dump()
			out := w.mail(in)
			// An error mail that shows the game's current position to one
			// of its players carries a reply token: its record
			// is the only thing the mail may add.
			if after := withoutNewTokens(before, w.dump()); after != before {
				t.Errorf("state changed:\n%s", diff(before, after))
			}
			if len(out) != 1 {
				t.Fatalf("%d mails, want 1 error mail:\n%s", len(out), format(out))
			}
			m := out[0]
			subject := cmp.Or(tt.wantSubject, "PBeM Server error")
			if !slices.Equal(m.To, []string{in.From}) || m.Subject != subject || !strings.HasPrefix(m.Body, tt.want) {
				t.Errorf("got To %q, subject %q, body:\n%s\nwant To %q, subject %q, body starting %q", m.To, m.Subject, m.Body, in.From, subject, tt.want)
			}
			if in.TooBig && strings.Contains(m.Body, "Original message") {
				t.Errorf("a mail over the limit is quoted back:\n%s", m.Body)
			}
			checkGolden(t, "error-"+tt.name, format(out))
		})
	}
}

// TestNoAnswer: automatic mail and our own get no answer and change nothing,
// not even the rate counters.
func TestNoAnswer(t *testing.T) {
	for _, in := range []engine.Inbound{
		{From: addr("alice"), Subject: "lyngk games", Auto: "auto-submitted"},
		{From: "MAILER-DAEMON@players.example", Subject: "Undelivered", Auto: "mailer-daemon"},
		{From: "Lyngk@Example.net", Subject: "lyngk games"},
		{From: "", Subject: "lyngk games"},
	} {
		w := newWorld(t)
		all := []string{"users", "games", "tokens", "meta", "rate"}
		before := w.dump(all...)
		if out := w.mail(in); len(out) != 0 {
			t.Errorf("%+v got an answer:\n%s", in, format(out))
		}
		if after := w.dump(all...); after != before {
			t.Errorf("%+v changed the state:\n%s", in, diff(before, after))
		}
	}
}

// TestRateLimit: over the limit, one notice, then silence until the hour
// is over. The sender is a stranger: his help is answered (a listing would
// not be: backscatter.go).
func TestRateLimit(t *testing.T) {
	v := newEnv(t, func(c *engine.Config) { c.RatePerHour = 3 })
	from := "zoe@elsewhere.example"
	for i := range 3 {
		if out := v.cmd(from, "help"); len(out) != 1 || out[0].Subject != "PBeM Server help" {
			t.Fatalf("command %d: %s", i+1, format(out))
		}
	}
	before := v.dump()
	out := v.cmd(from, "signup zoe pw")
	if len(out) != 1 || !strings.HasPrefix(out[0].Body, "You sent more than 3 commands in an hour.") {
		t.Fatalf("4th command: want the notice, got:\n%s", format(out))
	}
	checkGolden(t, "error-throttled", format(out))
	if out := v.cmd(from, "signup zoe pw"); len(out) != 0 {
		t.Fatalf("5th command: want silence, got:\n%s", format(out))
	}
	if after := v.dump(); after != before {
		t.Errorf("throttled commands changed the state:\n%s", diff(before, after))
	}
	if out := v.cmd("other@elsewhere.example", "help"); len(out) != 1 {
		t.Errorf("another sender is throttled too:\n%s", format(out))
	}
	v.now = v.now.Add(time.Hour)
	v.restart()
	if out := v.cmd(from, "signup zoe pw"); len(out) != 1 || out[0].Subject != "Confirm PBeM Server signup zoe" {
		t.Errorf("after the hour: %s", format(out))
	}
	// A player's flood of listings is bounded the same way.
	v.signup("alice")
	v.now = v.now.Add(time.Hour) // the signup's own commands are another hour's
	for i := range 3 {
		if out := v.cmd(addr("alice"), "lyngk games alice"); len(out) != 1 || out[0].Subject != "Lyngk games" {
			t.Fatalf("alice's listing %d: %s", i+1, format(out))
		}
	}
	if out := v.cmd(addr("alice"), "lyngk games alice"); len(out) != 1 || !strings.HasPrefix(out[0].Body, "You sent more than 3 commands in an hour.") {
		t.Fatalf("alice's 4th listing: want the notice, got:\n%s", format(out))
	}
	for range 10 {
		if out := v.cmd(addr("alice"), "lyngk games alice"); len(out) != 0 {
			t.Fatalf("alice's listings past the notice: want silence, got:\n%s", format(out))
		}
	}
}

// withoutNewTokens drops from the dump after the token records that are
// not in before.
func withoutNewTokens(before, after string) string {
	var keep []string
	for _, l := range strings.SplitAfter(after, "\n") {
		if strings.HasPrefix(l, "tokens/") && !strings.Contains(before, l) {
			continue
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "")
}
