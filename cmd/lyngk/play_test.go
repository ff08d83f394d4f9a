package main

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/mailer"
	"lyngk.example/lyngk/store"
)

// webGame is a `lyngk serve` in local mode with its web listener on a
// free port, and a game of alice and bob, board 101, that alice is to
// start: her new-game mail (the fourth of her INBOX) carries her link.
type webGame struct {
	s          *served
	web        string // the base URL, http://127.0.0.1:PORT
	alice, bob localPlayer
	aliceMail  mailer.Inbound // alice's new-game mail
}

func startWebGame(t *testing.T) *webGame {
	t.Helper()
	return startWebGameOf(t, "lyngk challenge alice bob")
}

// startWebGameOf is startWebGame with the challenge command given.
func startWebGameOf(t *testing.T, challenge string) *webGame {
	t.Helper()
	cfg := defaultConfig()
	cfg.DataDir = filepath.Join(t.TempDir(), "data")
	cfg.WebAddr = anyPort
	s := startServe(t, cfg)
	g := &webGame{s: s, web: s.cfg.WebURL,
		alice: localPlayer{t: t, name: "alice", smtp: s.smtp, imap: s.imap},
		bob:   localPlayer{t: t, name: "bob", smtp: s.smtp, imap: s.imap}}
	waitText(t, s.logs, `msg="web listening"`)
	g.alice.signup("Sesame-8zq", 0)
	g.bob.signup("Sesame-9xy", 0)
	g.alice.send(challenge, "", "")
	g.aliceMail = g.alice.await(3)
	g.bob.await(3)
	return g
}

// playLink is the link of a board mail's "Move on the web:" line.
var playLink = regexp.MustCompile(`\nMove on the web:\n(http://\S+/play/([a-z2-7]{32}))\n`)

// link returns the play link of board mail m, checking that it carries
// the mail's own token and not the mark of its copy.
func (g *webGame) link(t *testing.T, m mailer.Inbound) string {
	t.Helper()
	f := playLink.FindStringSubmatch(m.Body)
	if f == nil || !strings.HasPrefix(f[1], g.web+"/play/") {
		t.Fatalf("mail %q: no link to %s/play/ in:\n%s", m.Subject, g.web, m.Body)
	}
	// The Message-ID is the token and the copy's mark, which the link
	// does not show (a token is no proof in a bounce).
	local, _, _ := strings.Cut(m.MessageID, "@")
	if tok, mark, _ := strings.Cut(strings.TrimPrefix(local, "lyngk."), "."); tok != f[2] || len(mark) != 16 || strings.Contains(m.Body, mark) ||
		!strings.HasSuffix(m.MessageID, "@localhost") {
		t.Fatalf("mail %q: link token %s, Message-ID %s", m.Subject, f[2], m.MessageID)
	}
	return f[1]
}

// TestServeLocalWebPlay: in local mode the board mails link the play page
// (real TCP, the daemon's web listener); a POST from the page moves, both
// players get their board mails by IMAP, and the token is spent: a second
// POST gets 410, and a reply by mail to the same board mail the stale-token
// error.
func TestServeLocalWebPlay(t *testing.T) {
	g := startWebGame(t)
	link := g.link(t, g.aliceMail)
	res, err := http.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(page), "It is your turn, alice.") {
		t.Fatalf("GET %s: %d\n%s", link, res.StatusCode, page)
	}
	pos := lyngk.New(101, lyngk.Standard)
	move := pos.Legal(nil)[5]
	post := func() (*http.Response, string) {
		req, err := http.NewRequest("POST", link, strings.NewReader(url.Values{"move": {move.String()}}.Encode()))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", g.web)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	if res, body := post(); res.StatusCode != 200 || !strings.Contains(body, "was made") {
		t.Fatalf("POST %s: %d\n%s", move, res.StatusCode, body)
	}
	if err := pos.Apply(move); err != nil {
		t.Fatal(err)
	}
	names := [2]string{"alice", "bob"}
	for _, p := range []localPlayer{g.alice, g.bob} {
		m := p.await(4)
		if m.Subject != "Lyngk Board 101 bob" || !strings.Contains(m.Body, pos.Board(names)) {
			t.Errorf("%s's board mail after the web move: %q\n%s", p.name, m.Subject, m.Body)
		}
		if p.name == "bob" {
			g.link(t, m) // bob's next move can be on the web too
		}
	}
	if res, body := post(); res.StatusCode != http.StatusGone || !strings.Contains(body, "the game has moved on since") {
		t.Errorf("second POST: %d\n%s", res.StatusCode, body)
	}
	g.alice.send("Re: "+g.aliceMail.Subject, pos.Legal(nil)[0].String()+"\n", g.aliceMail.MessageID)
	if m := g.alice.await(5); !strings.HasPrefix(m.Body, "Lyngk Board 101 has moved on since the board mail you replied to") {
		t.Errorf("mail reply with the spent token: %q\n%s", m.Subject, m.Body)
	}
	if strings.Contains(g.s.logs.String(), strings.TrimPrefix(link, g.web+"/play/")) {
		t.Errorf("the token reached the daemon's log")
	}
}

// TestWebMoveVERP: with bounce_verp, the board mails of a move made on a
// play page leave as a mail's move's do, one envelope per recipient from
// robot+b-TOKEN@domain, so that a bounce of them is matched too. The web
// move's mails went out from the robot's plain address before.
func TestWebMoveVERP(t *testing.T) {
	a, g, _ := pictureGame(t, true)
	var tok string
	var last uint64
	err := a.db.View(func(tx *store.Tx) error {
		out, err := tx.Outbox()
		for _, m := range out {
			last = max(last, m.ID)
			in, perr := mailer.Parse(bytes.NewReader(m.Data), maxMailSize)
			if perr != nil {
				return perr
			}
			if m.To[0] == "alice@example.com" && strings.HasPrefix(in.Subject, "New Lyngk Board 101") {
				// lyngk.TOKEN.MARK@domain: the token, without the copy's mark.
				tok = strings.Split(strings.TrimPrefix(in.MessageID, "lyngk."), ".")[0]
			}
		}
		return err
	})
	if err != nil || tok == "" {
		t.Fatalf("alice's board mail (token %q): %v", tok, err)
	}
	if _, sent, err := a.daemon().PlayToken(tok, g.Legal(nil)[0].String()); err != nil || sent != 2 {
		t.Fatalf("PlayToken: %d mails, %v", sent, err)
	}
	var got []string
	err = a.db.View(func(tx *store.Tx) error {
		out, err := tx.Outbox()
		for _, m := range out {
			if m.ID > last {
				got = append(got, m.From+" "+strings.Join(m.To, ","))
			}
		}
		return err
	})
	if err != nil || len(got) != 2 {
		t.Fatalf("the web move's mails: %q (%v)", got, err)
	}
	for _, e := range got {
		from, to, _ := strings.Cut(e, " ")
		if !strings.HasPrefix(from, "lyngk+b-") || strings.Contains(to, ",") {
			t.Errorf("envelope %q: want the sender lyngk+b-TOKEN@localhost and one recipient", e)
		}
	}
}
