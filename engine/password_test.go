package engine_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/store"
)

// TestLockout: 100 forged senders guess alice's password. The first ten are
// checked and refused; the tenth tells alice, once; the other ninety are
// refused unchecked, and so is alice's right password, until the hour is
// over. A move by reply works throughout.
func TestLockout(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	board := v.cmd(addr("bob"), "lyngk challenge alice bob")[0] // alice's board mail
	v.restart()                                                 // a new process: no password in memory
	checks0 := v.e.InlineChecks()
	notices := 0
	for i := range 100 {
		from := fmt.Sprintf("mallory%d@forged.example", i)
		out := v.cmd(from, fmt.Sprintf("vacation alice guess%d on", i))
		var toSender []engine.Mail
		for _, m := range out {
			switch {
			case m.To[0] == from:
				toSender = append(toSender, m)
			case m.To[0] == addr("alice") && m.Subject == "PBeM Server account alice: password commands locked":
				notices++
				if i != engine.MaxWrongPasswords-1 || !strings.Contains(m.Body, "10 wrong passwords for alice") {
					t.Errorf("attempt %d: notice\n%s", i, format([]engine.Mail{m}))
				}
			default:
				t.Errorf("attempt %d: unexpected mail\n%s", i, format([]engine.Mail{m}))
			}
		}
		// The guessers are strangers: a password command of theirs runs
		// (and counts) but gets no answer (no backscatter).
		if len(toSender) != 0 {
			t.Fatalf("attempt %d: the stranger got an answer:\n%s", i, format(toSender))
		}
		if i == engine.MaxWrongPasswords-1 {
			checkGolden(t, "lockout", format(out))
		}
	}
	if notices != 1 {
		t.Errorf("alice got %d lockout notices, want 1", notices)
	}
	if n := v.e.InlineChecks() - checks0; n != engine.MaxWrongPasswords {
		t.Errorf("%d passwords checked with bcrypt, want %d", n, engine.MaxWrongPasswords)
	}
	// alice's own password is refused too, unchecked, and tells nobody.
	out := v.cmd(addr("alice"), "vacation alice pw-alice on")
	if len(out) != 1 || !strings.HasPrefix(out[0].Body, "Too many wrong passwords for alice: its password commands are refused,\nunchecked, until 23:52 UTC.") {
		t.Errorf("right password during the lockout:\n%s", format(out))
	}
	checkGolden(t, "error-locked-out", format(out))
	// A move by reply needs no password and works.
	if out := v.reply(board, addr("alice"), "G,f5-f4\n"); len(out) != 2 || out[0].Subject != "Lyngk Board 101 bob" {
		t.Fatalf("reply move during the lockout:\n%s", format(out))
	}
	// Nothing Checks would run for alice while she is locked out.
	v.db.View(func(tx *store.Tx) error {
		cs, err := v.e.Checks(tx, engine.Inbound{From: "x@forged.example", Subject: "vacation alice other on"}, v.now)
		if err != nil || len(cs) != 0 {
			t.Errorf("Checks during the lockout: %v %v", cs, err)
		}
		return nil
	})
	// An hour after the first wrong password the window is over.
	v.now = start.Add(time.Hour + time.Minute)
	if out := v.cmd(addr("alice"), "vacation alice pw-alice on"); len(out) != 1 || out[0].Subject != "PBeM Server account alice" {
		t.Errorf("right password after the hour:\n%s", format(out))
	}
}

// TestChecks: Checks lists each password a mail will check with bcrypt,
// once, for existing accounts and boards, and each new password to hash,
// at most MaxChecks in all; after Verify, Handle runs bcrypt not once
// itself, and refuses the commands past MaxChecks unchecked.
func TestChecks(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	v.cmd(addr("bob"), "lyngk challenge alice bob")
	v.restart() // a new process: no password in memory
	checks := func(in engine.Inbound) (cs []engine.Check) {
		t.Helper()
		v.db.View(func(tx *store.Tx) (err error) {
			cs, err = v.e.Checks(tx, in, v.now)
			return err
		})
		return cs
	}
	// 30 wrong passwords for alice in one mail: MaxChecks checks (old
	// main listed 10, the lockout's allowance, and 100 signup lines 100).
	var lines []string
	for i := range 30 {
		lines = append(lines, fmt.Sprintf("vacation alice wrong%d on", i))
	}
	guess := engine.Inbound{From: "y@forged.example", Subject: "multiple", Body: strings.Join(lines, "\n") + "\n"}
	if cs := checks(guess); len(cs) != engine.MaxChecks {
		t.Fatalf("30 passwords for alice: %d checks, want %d", len(cs), engine.MaxChecks)
	}
	before := v.e.InlineChecks()
	out := v.mail(guess)
	if n := v.e.InlineChecks() - before; n != engine.MaxChecks {
		t.Errorf("Handle ran bcrypt %d times without Verify, want %d", n, engine.MaxChecks)
	}
	if len(out) != 0 {
		t.Errorf("the stranger got an answer to a password command (a stranger gets none):\n%s", format(out))
	}
	// The guesses past MaxChecks were not checked, so not counted: alice
	// is not locked out (old main checked 10 and locked her).
	if out := v.cmd(addr("alice"), "vacation alice pw-alice on"); len(out) != 1 || out[0].Subject != "PBeM Server account alice" {
		t.Errorf("alice after the guesses:\n%s", format(out))
	}

	lines = []string{
		"vacation bob wrong0 on", "vacation bob wrong0 on", // the same check once
		"lyngk move 101 bob pw-bob G,f5-f4",  // right, for a board that exists
		"lyngk move 999 bob other G,f5-f4",   // no board 999: no check
		"vacation nobody pw on",              // no account: no check
		"change password bob pw-bob pw-bob2", // the same check, and a new hash
		"signup carol pw-carol",              // a new hash
		"signup carol pw-carol",              // the same userid again: nothing
		"signup dave pw-carol",               // another one
		"signup alice pw",                    // taken: nothing
		"vacation carol pw-carol on",         // the new account's password is known
		"lyngk games", "help"}
	in := engine.Inbound{From: "x@forged.example", Subject: "multiple", Body: strings.Join(lines, "\n") + "\n"}
	cs := checks(in)
	count := map[string]int{}
	for _, c := range cs {
		count[c.User]++
	}
	if count["bob"] != 3 || count["carol"] != 1 || count["dave"] != 1 || len(cs) != engine.MaxChecks {
		t.Fatalf("checks per user: %v (%d in all)", count, len(cs))
	}
	for _, c := range cs {
		v.e.Verify(c)
	}
	before, bobHash := v.e.InlineChecks(), hashOf(t, v, "bob")
	out = v.mail(in)
	if n := v.e.InlineChecks() - before; n != 0 {
		t.Errorf("Handle ran bcrypt %d times after Verify, want 0", n)
	}
	if strings.Contains(format(out), "One mail may check") {
		t.Errorf("a command was refused for the checks:\n%s", format(out))
	}
	// The new accounts and bob's new password are in place (the answers
	// may be summarised: one mail causes at most 25).
	if hashOf(t, v, "bob") == bobHash {
		t.Error("bob's password did not change")
	}
	// A second account with the same password gets a hash of its own.
	if hashOf(t, v, "carol") == hashOf(t, v, "dave") {
		t.Error("carol and dave share a hash")
	}

}

// TestChecksThrottled: a mail past its sender's hourly commands costs no
// check at all; the signups within them, one each per userid.
func TestChecksThrottled(t *testing.T) {
	v := newEnv(t, func(c *engine.Config) { c.RatePerHour = 60 })
	checks := func(in engine.Inbound) (cs []engine.Check) {
		t.Helper()
		v.db.View(func(tx *store.Tx) (err error) {
			cs, err = v.e.Checks(tx, in, v.now)
			return err
		})
		return cs
	}
	same := engine.Inbound{From: "w@forged.example", Subject: "multiple", Body: strings.Repeat("signup a b\n", 60)}
	if cs := checks(same); len(cs) != 1 {
		t.Errorf("60 lines signup a b: %d checks, want 1", len(cs))
	}
	var many []string
	for i := range 61 {
		many = append(many, fmt.Sprintf("signup n%d pw", i))
	}
	flood := engine.Inbound{From: "z@forged.example", Subject: "multiple", Body: strings.Join(many, "\n") + "\n"}
	if cs := checks(flood); len(cs) != 0 {
		t.Errorf("61 signups, over the hourly 60 commands: %d checks, want 0", len(cs))
	}
}

// hashOf reads the stored hash of a user.
func hashOf(t *testing.T, v *env, id string) string {
	t.Helper()
	for line := range strings.SplitSeq(v.dump(store.BucketUsers), "\n") {
		if strings.HasPrefix(line, store.BucketUsers+"/"+id+"=") {
			_, h, _ := strings.Cut(line, `"hash":"`)
			h, _, _ = strings.Cut(h, `"`)
			return h
		}
	}
	t.Fatalf("no user %s", id)
	return ""
}

// TestSignupsPerHour: with SignupsPerHour 3, the 4th new account of the
// hour is refused, unhashed (Checks lists nothing for it), with the time to
// send it again; nothing of it is kept. The next hour takes it.
func TestSignupsPerHour(t *testing.T) {
	v := newEnv(t, func(c *engine.Config) { c.SignupsPerHour = 3 })
	for _, n := range []string{"a1", "a2", "a3"} {
		if out := v.cmd(addr(n), "signup "+n+" pw"); len(out) != 1 || !strings.HasPrefix(out[0].Subject, "Confirm PBeM Server signup") {
			t.Fatalf("signup %s:\n%s", n, format(out))
		}
	}
	fourth := engine.Inbound{From: addr("a4"), Subject: "signup a4 pw"}
	v.db.View(func(tx *store.Tx) error {
		if cs, err := v.e.Checks(tx, fourth, v.now); err != nil || len(cs) != 0 {
			t.Errorf("the 4th signup: checks %v %v, want none", cs, err)
		}
		return nil
	})
	before := v.e.InlineChecks()
	out := v.mail(fourth)
	if len(out) != 1 || !strings.Contains(out[0].Body, "This server takes at most 3 new signups an hour and has had them.") {
		t.Fatalf("the 4th signup:\n%s", format(out))
	}
	if v.e.InlineChecks() != before {
		t.Error("the refused signup was hashed")
	}
	if strings.Contains(v.dump(store.BucketUsers), "/a4=") {
		t.Error("the refused signup made an account")
	}
	v.now = v.now.Add(time.Hour)
	if out := v.mail(fourth); len(out) != 1 || !strings.HasPrefix(out[0].Subject, "Confirm PBeM Server signup") {
		t.Fatalf("the 4th signup an hour later:\n%s", format(out))
	}
}
