package main

import (
	"bytes"
	netmail "net/mail"
	"path/filepath"
	"strings"
	"testing"

	"lyngk.example/lyngk/mailer"
	"lyngk.example/lyngk/templates"
)

// TestProcessPastedCopy is a pasted copy of the board mail through `lyngk process`: a
// reply that carries the mail it answers without quote marks relays only
// the player's words. alice answers the new-game mail from an HTML mail
// program that pasted the mail's HTML part below her move (the server
// reads the HTML reply as text); bob answers his board mail with the full
// command and a comment above the text part, pasted and re-wrapped at 76
// columns. On the main before this, alice's comment carried the HTML
// part's heading and players, and bob's the whole board mail.
func TestProcessPastedCopy(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	signupConfirmed(t, db, "alice@example.com", "alice", "pw1", "s1@client.example")
	signupConfirmed(t, db, "bob@example.com", "bob", "pw2", "s2@client.example")
	toAlice := mailTo(t, processMails(t, db, rawMail{from: "alice@example.com", subject: "lyngk challenge alice bob", id: "c@client.example"}), "alice@example.com")
	var page string
	for _, p := range leaves(t, toAlice.raw) {
		if strings.HasSuffix(p.path, "text/html") {
			page = string(p.body)
		}
	}
	_, page, _ = strings.Cut(page, "<body")
	page, _, _ = strings.Cut(page, "</body>")
	if !strings.Contains(page, "<img") {
		t.Fatalf("no HTML part with the picture in the new-game mail:\n%s", toAlice.raw)
	}
	html := "<html><body><div>G,c1-d1</div><div>Your move, Bob.</div><br><div" + page + "</body></html>\r\n"
	toBob := mailTo(t, processMails(t, db, rawMail{from: "alice@example.com", subject: "Re: " + toAlice.Subject, body: html,
		contentType: "text/html; charset=utf-8", id: "r1@client.example", inReplyTo: toAlice.MessageID}), "bob@example.com")
	// The comment, then the board mail's last line: how to move.
	if _, c, _ := strings.Cut(toBob.Body, "alice writes:\n"); c != "Your move, Bob.\n\n"+howToMove || toBob.Subject != "Lyngk Board 101 bob **" {
		t.Fatalf("bob got %q with alice's comment %q", toBob.Subject, c)
	}
	body := "lyngk move 101 bob pw2 B,b1-b2\nThanks, and good luck.\n\n" + templates.Wrap(toBob.Body, 76)
	toAlice = mailTo(t, processMails(t, db, rawMail{from: "bob@example.com", subject: "Re: " + toBob.Subject, body: body,
		id: "r2@client.example", inReplyTo: toBob.MessageID}), "alice@example.com")
	if _, c, _ := strings.Cut(toAlice.Body, "bob writes:\n"); c != "Thanks, and good luck.\n\n"+howToMove {
		t.Fatalf("alice got %q with bob's comment %q", toAlice.Subject, c)
	}
}

// sentMail is one mail written by `lyngk process`, raw and parsed.
type sentMail struct {
	mailer.Inbound
	raw []byte
}

// mailTo returns the one mail of raws to addr.
func mailTo(t *testing.T, raws [][]byte, addr string) sentMail {
	t.Helper()
	var found []sentMail
	for _, raw := range raws {
		in, err := mailer.Parse(bytes.NewReader(raw), maxMailSize)
		if err != nil {
			t.Fatal(err)
		}
		h, err := netmail.ReadMessage(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if to, err := h.Header.AddressList("To"); err == nil && len(to) == 1 && to[0].Address == addr {
			found = append(found, sentMail{in, raw})
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d mails to %s among %d", len(found), addr, len(raws))
	}
	return found[0]
}

// howToMove is the last line of a board mail to the player to move.
const howToMove = "To move, reply with your move, like G,c1-d1 (send \"help notation\").\n"
