package engine_test

import (
	"context"
	"fmt"
	"io"
	"mime/quotedprintable"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/store"
)

// snailQuote is s-nail's reply to m with typed written under the quote,
// as s-nail writes it with "set quote": its attribution "NAME <ADDR>
// wrote:", a blank line, the mail indented with a tab (blank lines too),
// and the cursor under the quote.
func snailQuote(m engine.Mail, typed string) string {
	var b strings.Builder
	b.WriteString("PBeM Server <" + robot + "> wrote:\n\n")
	for _, l := range strings.Split(strings.TrimRight(m.Body, "\n"), "\n") {
		b.WriteString("\t" + l + "\n")
	}
	return b.String() + typed
}

// snailReply is the text of the reply that a real s-nail writes to m
// (with "set quote", its default quoting otherwise) when typed is typed
// into it; "" when s-nail is not installed.
func snailReply(t *testing.T, m engine.Mail, typed string) string {
	t.Helper()
	bin, err := exec.LookPath("s-nail")
	if err != nil {
		return ""
	}
	dir := t.TempDir()
	mbox := filepath.Join(dir, "mbox")
	out := filepath.Join(dir, "sent.eml")
	mta := filepath.Join(dir, "mta")
	msg := "From " + robot + " Sat Nov 21 22:52:00 2026\nFrom: PBeM Server <" + robot + ">\nTo: " + m.To[0] +
		"\nSubject: " + m.Subject + "\nDate: Sat, 21 Nov 2026 22:52:00 +0000\nMessage-ID: <" + m.MessageID +
		">\nMIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\n\n" + m.Body + "\n"
	if err := os.WriteFile(mbox, []byte(msg), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(mta, []byte("#!/bin/sh\ncat > '"+out+"'\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-n", "-#", "-S", "mta="+mta, "-S", "quote", "-S", "from="+m.To[0], "-f", mbox)
	cmd.Env = []string{"HOME=" + dir, "MAILRC=/dev/null", "LC_ALL=C.UTF-8", "PATH=/usr/bin:/bin"}
	cmd.Stdin = strings.NewReader("reply 1\n" + typed + "~.\n")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("s-nail: %v\n%s", err, b)
	}
	sent, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("s-nail sent nothing: %v", err)
	}
	head, body, _ := strings.Cut(string(sent), "\n\n")
	if !strings.Contains(head, "In-Reply-To: <"+m.MessageID+">") {
		t.Errorf("s-nail's reply does not answer %s:\n%s", m.MessageID, head)
	}
	if strings.Contains(strings.ToLower(head), "quoted-printable") {
		b, err := readAllQP(body)
		if err != nil {
			t.Fatal(err)
		}
		body = b
	}
	return body
}

func readAllQP(s string) (string, error) {
	b, err := io.ReadAll(quotedprintable.NewReader(strings.NewReader(s)))
	return string(b), err
}

// TestSnailQuote: snailQuote writes what s-nail writes, where s-nail is
// installed.
func TestSnailQuote(t *testing.T) {
	v := newEnv(t)
	out := v.cmd(addr("carol"), "signup carol pw-carol")
	real := snailReply(t, out[0], "yes\n")
	if real == "" {
		t.Skip("s-nail is not installed")
	}
	if sim := snailQuote(out[0], "yes\n"); sim != real {
		t.Errorf("snailQuote:\n%q\ns-nail:\n%q", sim, real)
	}
}

// confirmQuoted is the confirmation mail m quoted "> " under an
// attribution "On DATE, NAME wrote:", as mutt and Thunderbird quote it.
func confirmQuoted(m engine.Mail) string {
	return "On Sat, Nov 21, 2026 at 10:52 PM, PBeM Server wrote:\n" + quoteLines(m.Body, "> ", ">")
}

// TestConfirmYesAnywhere: a reply to a confirmation mail (signup or change
// address) confirms with "yes" on the first line its sender wrote, above
// or below the quote, in any case, with or without words after it, as
// s-nail writes it by default (yes under the quote) and as other clients
// do. "yesterday" is no yes. On the main before, a yes under the quote was
// refused with the general "I found no command" hint, and "yesterday ..."
// confirmed.
func TestConfirmYesAnywhere(t *testing.T) {
	for _, tt := range []struct {
		name    string
		body    func(t *testing.T, m engine.Mail) string
		confirm bool
	}{
		{"s-nail, yes under the quote", func(t *testing.T, m engine.Mail) string {
			if real := snailReply(t, m, "yes\n"); real != "" {
				return real
			}
			return snailQuote(m, "yes\n")
		}, true},
		{"s-nail, Yes please under the quote", func(t *testing.T, m engine.Mail) string {
			if real := snailReply(t, m, "Yes please\n"); real != "" {
				return real
			}
			return snailQuote(m, "Yes please\n")
		}, true},
		{"mutt, YES. under the quote", func(_ *testing.T, m engine.Mail) string {
			return confirmQuoted(m) + "\nYES.\n"
		}, true},
		{"Gmail, yes above the quote", func(_ *testing.T, m engine.Mail) string {
			return "Yes, that is me!\n\nOn Sat, Nov 21, 2026 at 10:52\u202fPM PBeM Server <\n" + robot + "> wrote:\n\n" + quoted76(m.Body)
		}, true},
		{"Claws Mail, yes under its two-line attribution", func(_ *testing.T, m engine.Mail) string {
			return "On Sat, 21 Nov 2026 22:52:00 +0000\nPBeM Server <" + robot + "> wrote:\n\n" + quoted76(m.Body) + "\nyes\n"
		}, true},
		{"Gmail (Portuguese), yes under the quote", func(_ *testing.T, m engine.Mail) string {
			return "Em sáb., 21 de nov. de 2026 às 22:52, PBeM Server <" + robot + ">\nescreveu:\n\n" + quoted76(m.Body) + "\nyes\n"
		}, true},
		{"yesterday is no yes", func(_ *testing.T, m engine.Mail) string {
			return "yesterday somebody wrote to me\n\n" + confirmQuoted(m)
		}, false},
		{"nothing written", func(_ *testing.T, m engine.Mail) string {
			return confirmQuoted(m)
		}, false},
	} {
		for _, change := range []bool{false, true} {
			name := tt.name + ", signup"
			if change {
				name = tt.name + ", change address"
			}
			t.Run(name, func(t *testing.T) {
				v := newEnv(t)
				to, out := addr("carol"), v.cmd(addr("carol"), "signup carol pw-carol")
				if change {
					v.confirm(out[0])
					to, out = "carol@elsewhere.example", v.cmd(addr("carol"), "change address carol pw-carol carol@elsewhere.example")
				}
				var asked engine.Mail
				for _, m := range out {
					if strings.HasPrefix(m.Subject, "Confirm ") && m.To[0] == to {
						asked = m
					}
				}
				if asked.MessageID == "" {
					t.Fatalf("no confirmation mail to %s:\n%s", to, format(out))
				}
				body := tt.body(t, asked)
				got := v.reply(asked, to, body)
				var confirmed bool
				err := v.db.View(func(tx *store.Tx) error {
					var err error
					confirmed, err = engine.ConfirmedAddress(tx, to)
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				if confirmed != tt.confirm {
					t.Fatalf("confirmed %v, want %v; the reply:\n%s\nthe answer:\n%s", confirmed, tt.confirm, body, format(got))
				}
				if tt.confirm {
					return
				}
				if len(got) != 1 || !strings.Contains(got[0].Body, `To confirm, reply to
that mail with "yes" on the first line, above or below the quoted text.`) || !strings.Contains(got[0].Body, "for\ncarol,") {
					t.Errorf("the answer does not say what the confirmation mail expects:\n%s", format(got))
				}
			})
		}
	}
}

// TestReplyEmptyExpectsMove: a reply to a board mail with nothing written
// in it is told what that mail expects, the move on the first line (the
// player to move) or whose turn it is (the other), not the general "I found
// no command" hint; a reply to a mail that is none of ours gets the
// general hint. On the main before, every one got the general hint.
func TestReplyEmptyExpectsMove(t *testing.T) {
	v, sent := boardToBob(t)
	out := v.reply(sent, addr("bob"), quoted76(sent.Body))
	if len(out) != 1 || !strings.Contains(out[0].Body, "Your mail answers a board mail of Lyngk Board 101, but I found nothing you\n"+
		"wrote above or below the quoted text. To move, reply to it with your move on\nthe first line, like G,c1-d1. Nothing was changed.\n") {
		t.Errorf("bob's empty reply got:\n%s", format(out))
	}
	var alices engine.Mail
	for _, m := range v.mail(engine.Inbound{From: addr("bob"), Subject: "lyngk move 101 bob pw-bob B,b1-b2"}) {
		if m.To[0] == addr("bob") {
			alices = m
		}
	}
	v.now = v.now.Add(25 * time.Hour) // past the day's hint
	out = v.reply(alices, addr("bob"), quoted76(alices.Body))
	if len(out) != 1 || !strings.Contains(out[0].Body, "It is alice's turn.") {
		t.Errorf("bob's empty reply to the board mail after his move got:\n%s", format(out))
	}
	v.now = v.now.Add(25 * time.Hour) // past the day's hint
	out = v.mail(engine.Inbound{From: addr("bob"), Subject: "Re: hello", Body: "> hello\n", InReplyTo: []string{"x@elsewhere.example"}})
	if len(out) != 1 || !strings.Contains(out[0].Body, "I found no command in your mail") {
		t.Errorf("an empty reply to another mail got:\n%s", format(out))
	}
}

// TestConfirmExpectedBound: replies to confirmation mails whose codes are
// forged get one answer a day between them, as any mail without a command
// does; a real code's is given besides.
func TestConfirmExpectedBound(t *testing.T) {
	v := newEnv(t)
	out := v.cmd(addr("carol"), "signup carol pw-carol")
	n := 0
	for i := range 3 {
		forged := out[0]
		forged.MessageID = fmt.Sprintf("lyngk-confirm.forged%d@example.net", i)
		n += len(v.reply(forged, addr("carol"), "what is this?\n"))
	}
	if n != 1 {
		t.Errorf("%d answers to 3 replies to forged confirmation mails, want 1", n)
	}
	if got := v.reply(out[0], addr("carol"), "what is this?\n"); len(got) != 1 || !strings.Contains(got[0].Body, `with "yes"`) {
		t.Errorf("the reply to the real confirmation mail got:\n%s", format(got))
	}
}
