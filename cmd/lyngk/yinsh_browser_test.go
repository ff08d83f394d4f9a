package main

import (
	"bytes"
	"fmt"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine/yinsh"
)

// TestBrowserYinshPlay moves YINSH by clicks on the play page, in real
// Chromium (issue 24 item 5): `lyngk serve` in local mode, alice and bob in
// a YINSH game. Alice follows the link of her new-game mail and places her
// first ring by one click on a point (every vacant point is marked); the
// other nine placements go by mail; in the movement position that follows,
// she follows her newest board mail's link and moves a ring by two clicks,
// the ring then its destination (marked once the ring is chosen); twenty
// turns later, by mail, a ring move that makes her a row: the ring, its
// destination, the row by one of its end markers, the ring removed. After
// each, both players' board mails (by IMAP) show the board of the game
// with that turn. LYNGK_YINSH_PLAY_SCREENSHOTS=DIR keeps the play page
// with a ring chosen, 1200 px and 360 px wide (yinsh-play.png,
// yinsh-play-phone.png).
func TestBrowserYinshPlay(t *testing.T) {
	d := startBrowser(t, 1200, 900)
	g := startWebGameOf(t, "yinsh challenge alice bob")
	pos := yinsh.New(yinsh.Normal)
	names := [2]string{"alice", "bob"}
	mails := 3 // each player's mails so far: confirmation, welcome, new game
	apply := func(turn string) {
		t.Helper()
		tn, _, err := yinsh.ParseTurn(turn)
		if err != nil {
			t.Fatal(err)
		}
		if err := pos.Apply(tn); err != nil {
			t.Fatal(err)
		}
	}
	// boardMails waits for both players' board mails of the turn just
	// made and checks that they show pos; it returns alice's.
	boardMails := func(turn string) string {
		t.Helper()
		mails++
		var link string
		for _, p := range []localPlayer{g.alice, g.bob} {
			got := p.await(mails)
			want := "Yinsh Board 101 " + names[pos.Turn()-1]
			if got.Subject != want || !strings.Contains(got.Body, pos.Board(names)) {
				t.Fatalf("%s's mail after %s: %q, want %q with the board\n%s", p.name, turn, got.Subject, want, got.Body)
			}
			if p.name == "alice" {
				link = g.link(t, got)
			}
		}
		return link
	}
	class := func(p string) string { return d.attr(`circle[data-p="`+p+`"]`, "class") }
	typed := func() string {
		var s string
		d.eval(`return document.getElementById("move").value`, &s)
		return s
	}
	send := func(turn string) {
		t.Helper()
		d.click("#send")
		if done := d.text(".done"); !strings.Contains(done, "Your move "+turn+" was made.") {
			t.Fatalf("after sending %s: %q", turn, done)
		}
	}

	// Placement: one click on a point.
	d.open(g.link(t, g.aliceMail))
	if s := d.text("p.status"); s != "It is your turn, alice." {
		t.Fatalf("play page status %q", s)
	}
	if c := class("c5"); c != "from" {
		t.Errorf("vacant point c5 has class %q before the click, want from", c)
	}
	d.click(`circle[data-p="c5"]`)
	if got := typed(); got != "c5" {
		t.Fatalf("a click on c5 made %q", got)
	}
	if c := class("c5"); c != "chosen" {
		t.Errorf("c5 has class %q after the click, want chosen", c)
	}
	send("c5")
	apply("c5")
	link := boardMails("c5")

	// The other placements, by mail.
	pw := map[string]string{"alice": "Sesame-8zq", "bob": "Sesame-9xy"}
	for _, turn := range strings.Fields("e2 i9 j5 d5 g9 g5 i5 d3 f6") {
		u := names[pos.Turn()-1]
		p := map[string]localPlayer{"alice": g.alice, "bob": g.bob}[u]
		p.send(fmt.Sprintf("yinsh move 101 %s %s %s", u, pw[u], turn), "", "")
		apply(turn)
		link = boardMails(turn)
	}

	// A ring move: the ring, then its destination.
	d.open(link)
	if c := class("i9"); c != "from" {
		t.Errorf("alice's ring i9 has class %q before the click, want from", c)
	}
	if c := class("e2"); c != "" {
		t.Errorf("bob's ring e2 has class %q, want none", c)
	}
	d.click(`circle[data-p="i9"]`)
	if got := typed(); got != "" {
		t.Fatalf("a click on the ring i9 alone made %q", got)
	}
	if c, dest := class("i9"), class("i7"); c != "chosen" || dest != "dest" {
		t.Errorf("after a click on i9: i9 %q (want chosen), i7 %q (want dest)", c, dest)
	}
	if keep := os.Getenv("LYNGK_YINSH_PLAY_SCREENSHOTS"); keep != "" {
		shot := d.screenshot()
		d.must(http.MethodPost, "/window/rect", map[string]int{"width": 360, "height": 900}, nil)
		phone := d.screenshot()
		d.must(http.MethodPost, "/window/rect", map[string]int{"width": 1200, "height": 900}, nil)
		for name, b := range map[string][]byte{"yinsh-play.png": shot, "yinsh-play-phone.png": phone} {
			if img, err := png.Decode(bytes.NewReader(b)); err != nil || img.Bounds().Dx() < 300 {
				t.Fatalf("%s: %v", name, err)
			}
			if err := os.WriteFile(filepath.Join(keep, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	d.click(`circle[data-p="i7"]`)
	if got := typed(); got != "i9-i7" {
		t.Fatalf("clicks on i9 and i7 made %q", got)
	}
	send("i9-i7")
	apply("i9-i7")
	boardMails("i9-i7")

	// The game on by mail to alice's turn 31, which makes her row d5-h5:
	// the ring move, then the row by a click on an end (h5), then the
	// ring removed with it.
	turns := strings.Fields(yinshGame)
	for _, turn := range turns[11:30] {
		u := names[pos.Turn()-1]
		p := map[string]localPlayer{"alice": g.alice, "bob": g.bob}[u]
		p.send(fmt.Sprintf("yinsh move 101 %s %s %s", u, pw[u], turn), "", "")
		apply(turn)
		link = boardMails(turn)
	}
	d.open(link)
	for _, p := range []string{"e5", "b2"} {
		d.click(`circle[data-p="` + p + `"]`)
	}
	if got, a, b := typed(), class("d5"), class("h5"); got != "" || a != "dest" || b != "dest" {
		t.Fatalf("after e5, b2: move %q, row ends d5 %q and h5 %q (want dest)", got, a, b)
	}
	d.click(`circle[data-p="h5"]`)
	if got, ring, marker := typed(), class("e4"), class("f5"); got != "" || ring != "dest" || marker != "" {
		t.Fatalf("after the row: move %q, ring e4 %q (want dest), marker f5 %q (want none)", got, ring, marker)
	}
	d.click(`circle[data-p="e4"]`)
	if got := typed(); got != turns[30] {
		t.Fatalf("clicks on e5, b2, h5, e4 made %q, want %s", got, turns[30])
	}
	send(turns[30])
	apply(turns[30])
	boardMails(turns[30])
	if pos.Removed(1) != 1 {
		t.Errorf("alice removed %d rings, want 1", pos.Removed(1))
	}
}
