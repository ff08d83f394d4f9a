package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/templates"
)

// transcriptStep is one mail a player sends; replyTo names a player whose
// latest board mail this one answers (a plain reply carries its token);
// confirm makes it a reply to the latest confirmation mail to the sender.
type transcriptStep struct {
	from, subject, body, replyTo string
	confirm                      bool
	// admin, when set, is a `lyngk admin -db DB` command line the
	// operator runs instead of a mail; its output goes in the transcript.
	admin string
}

// TestProcessTranscript plays the whole pbmserv command set through
// `lyngk process`, mail in and mails out, and compares every reply — who
// gets it, its subject and its text — with testdata/transcript.golden
// (go test -update rewrites it). Dates and the random reply tokens are
// masked; everything else must match to the byte.
func TestProcessTranscript(t *testing.T) {
	addr := map[string]string{"alice": "alice@example.com", "bob": "bob@example.org", "carol": "carol@example.net"}
	steps := []transcriptStep{
		{from: "alice", subject: "help"},
		{from: "alice", subject: "help notation"},
		{from: "alice", subject: "signup alice pw1"},
		{from: "alice", subject: "Re: Confirm PBeM Server signup alice", body: "Yes.\n", confirm: true},
		{from: "bob", subject: "signup bob pw2"},
		{from: "bob", subject: "lyngk challenge alice bob"}, // bob is not confirmed yet
		{from: "bob", subject: "Re: Confirm PBeM Server signup bob", body: "yes, ok\n", confirm: true},
		{from: "carol", subject: "signup carol pw3 carol@example.net"},
		{from: "carol", subject: "confirm carol CODE"},             // the code of the latest confirmation mail to carol
		{from: "carol", subject: "signup carol other"},             // taken
		{from: "carol", subject: "signup da:ve pw"},                // bad userid
		{from: "alice", subject: "lyngk challenge alice alice"},    // oneself
		{from: "alice", subject: "lyngk challenge alice nobody"},   // unknown user
		{from: "alice", subject: "lyngk challenge bob alice"},      // board 101, bob first
		{from: "alice", subject: "lyngk challenge -s alice carol"}, // board 102, stack6
		{from: "carol", subject: "lyngk subscribe 101 carol pw3"},
		{from: "alice", subject: "lyngk move 101 alice pw1 G,c1-d1"}, // not her turn
		{from: "bob", subject: "lyngk move 101 bob wrong G,c1-d1"},   // wrong password
		{from: "bob", subject: "lyngk move 101 bob pw2 c1d1"},        // bad notation
		{from: "bob", subject: "lyngk move 101 bob pw2 G,c1-d1#2"},   // wrong #n
		{from: "bob", subject: "lyngk move 101 bob pw2 a1-i1"},       // illegal
		{from: "bob", subject: "lyngk move 101 bob pw2 G,c1-d1#1", body: "Good luck!\n\n-- \nBob\n"},
		{from: "alice", subject: "Re: Lyngk Board 101 alice **", replyTo: "alice",
			body: "B,b1-b2\nYour turn.\n\nOn Sat, Nov 21, 2026, PBeM Server wrote:\n> Summary of Lyngk Board 101\n"},
		{from: "alice", subject: "Re: Lyngk Board 101 alice", replyTo: "alice", body: "c2-c3\n"}, // by reply, out of turn
		{from: "bob", subject: "lyngk chat 101 bob pw2", body: "Nice opening.\n"},
		{from: "bob", subject: "lyngk move 101 bob pw2 propose"},
		{from: "alice", subject: "lyngk move 101 alice pw1 reject"},
		{from: "alice", subject: "lyngk move 101 alice pw1 undo"},
		{from: "bob", subject: "lyngk move 101 bob pw2 accept"},
		{from: "bob", subject: "multiple", body: "lyngk games bob active\nlyngk show 101#1\n"},
		{from: "carol", subject: "lyngk games all"},
		{from: "carol", subject: "lyngk show alice next"},
		{from: "carol", subject: "lyngk unsubscribe 101 carol pw3"},
		{from: "bob", subject: "lyngk resign 101 bob pw2"},
		{from: "bob", subject: "lyngk move 101 bob pw2 c2-c3"}, // game over
		{from: "alice", subject: "lyngk standings"},
		{from: "alice", subject: "lyngk history"},
		{from: "carol", subject: "vacation carol pw3 on"},
		{from: "alice", subject: "change password alice pw1 pw9"},
		{from: "alice", subject: "change address alice pw9 alice@work.example"},
		{from: "carol", subject: "signoff carol pw3"},
		{from: "alice", subject: "lyngk challenge alice bob"},                                            // board 103
		{from: "bob", subject: "Re: Lyngk Board 103 alice", replyTo: "bob", body: "decline\nNo time.\n"}, // cancelled
		{from: "alice", subject: "lyngk frobnicate"},                                                     // unknown command
		{from: "bob", subject: "lyngk show 999"},                                                         // unknown board
	}
	goldenFile(t, filepath.Join("testdata", "transcript.golden"), playTranscript(t, addr, steps))
}

// playTranscript sends the steps through `lyngk process` on a new store
// and returns every reply (who gets it, its subject and its text), masked.
func playTranscript(t *testing.T, addr map[string]string, steps []transcriptStep) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "lyngk.db")
	lastBoard := map[string]string{}  // player -> Message-ID of the latest board mail to them
	lastConfirm := map[string]reply{} // player -> the latest confirmation mail to them
	var out strings.Builder
	for i, s := range steps {
		if s.admin != "" {
			var o, e strings.Builder
			if code := run(append([]string{"admin", "-db", db}, strings.Fields(s.admin)...), nil, &o, &e); code != 0 {
				t.Fatalf("admin %s: exit %d: %s", s.admin, code, e.String())
			}
			fmt.Fprintf(&out, "=== the operator runs \"lyngk admin %s\"\n%s", s.admin, o.String())
			continue
		}
		m := rawMail{from: addr[s.from], subject: s.subject, body: s.body, id: fmt.Sprintf("t%d@client.example", i+1)}
		if s.replyTo != "" {
			m.inReplyTo = lastBoard[s.replyTo]
		}
		if s.confirm {
			m.inReplyTo = lastConfirm[s.from].MessageID
		}
		if c, ok := lastConfirm[s.from]; ok && strings.HasSuffix(s.subject, " CODE") {
			m.subject = strings.TrimSuffix(s.subject, "CODE") + strings.Fields(c.Body[strings.Index(c.Body, "  confirm "):])[2]
		}
		fmt.Fprintf(&out, "=== %s sends %q\n", s.from, s.subject)
		for _, r := range process(t, db, m) {
			for name, a := range addr {
				if r.to == a && strings.HasPrefix(r.MessageID, "lyngk.") {
					lastBoard[name] = r.MessageID
				}
				if r.to == a && strings.HasPrefix(r.Subject, "Confirm ") {
					lastConfirm[name] = r
				}
			}
			fmt.Fprintf(&out, "--- to %s: %s\n%s", r.to, r.Subject, r.Body)
			for _, l := range engine.LongLines(r.Body) {
				t.Errorf("%q to %s: line over %d columns: %q", r.Subject, r.to, templates.Width, l)
			}
		}
	}
	return mask(out.String())
}

// mask hides what changes from run to run: clock times and dates in the
// texts, and the random codes of the confirmation mails.
var (
	clockTimes   = regexp.MustCompile(`(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) [ 0-9]\d (\d\d:\d\d|\d{4})|\d{4}-\d\d-\d\d( \d\d:\d\d(:\d\d)?( UTC)?)?|\d+ days, \d\d:\d\d:\d\d`)
	confirmCodes = regexp.MustCompile(`\b[a-z2-7]{32}\b`)
)

func mask(s string) string {
	return confirmCodes.ReplaceAllString(clockTimes.ReplaceAllString(s, "<time>"), "<code>")
}
