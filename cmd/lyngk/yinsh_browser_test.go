package main

import (
	"bytes"
	"errors"
	"fmt"
	"image/png"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/daemon"
	"lyngk.example/lyngk/engine/web"
	"lyngk.example/lyngk/engine/yinsh"
	"lyngk.example/lyngk/store"
)

// TestBrowserYinshPlay moves YINSH by clicks on the play page, in real
// Chromium: `lyngk serve` in local mode, alice and bob in
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
	byMail := func(turns []string) {
		for _, turn := range turns {
			u := names[pos.Turn()-1]
			p := map[string]localPlayer{"alice": g.alice, "bob": g.bob}[u]
			p.send(fmt.Sprintf("yinsh move 101 %s %s %s", u, pw[u], turn), "", "")
			apply(turn)
			link = boardMails(turn)
		}
	}
	byMail(strings.Fields("e2 i9 j5 d5 g9 g5 i5 d3 f6"))

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
	byMail(turns[11:30])
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

// tokenOf is a web.Mover that shows one position on every play page and
// takes no move.
type tokenOf struct{ v *engine.TokenView }

func (m tokenOf) TokenGame(string) (*engine.TokenView, error) { return m.v, nil }
func (m tokenOf) PlayToken(string, string) (*engine.TokenView, int, error) {
	return nil, 0, errors.New("tokenOf takes no moves")
}

// rowChoiceGame is a YINSH game (engine/yinsh's RandomTurn, seed 0) to a
// position where alice's move g8-j8 makes three rows: c8-g8 and g4-g8,
// which share the end g8, and h4-h8, so that the taps g8 j8, g8 c4, h8 f3
// make two turns that differ in their first row alone.
const rowChoiceGame = "c6 h5 a4 c7 c3 e10 e9 k7 j10 e1 c3-a3 e1-e3 a3-e7 c7-b7 a4-a2 h5-b5 a2-a5 e3-g5 " +
	"e7-e4 g5-d2 e4-g6 d2-d1 j10-k10 k7-k8 e9-e8 k8-i6 g6-h6 b5-d5 k10-h7 d5-d3 e8-d8 e10-i10 h7-g7 " +
	"d3-d6 h6-h8 b7-d9 d8-f8 d1-b1 c6-f9 b1-b3 f9-h11 i6-f6 h8-i8 i10-i9 a5-c5 d6-d4 h11-h4 b3-b4 " +
	"g7-g4 i9-h9 f8-g8 d4-b2;xd1-d5;xb2 c5-c8 d9-g9 g4-f3 h9-j11 h4-i5 f6-f7 i8-j9 f7-f5 c8-c4 b4-b2"

// TestBrowserYinshRowChoice: in real Chromium, taps that make two turns
// (rows with a common end) end at a button for each, and the button
// chosen is the move (the play page of a fixed position, served by
// engine/web with a Mover that shows it).
func TestBrowserYinshRowChoice(t *testing.T) {
	d := startBrowser(t, 1200, 900)
	pos, err := yinsh.Rules.New(0, "normal")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range strings.Fields(rowChoiceGame) {
		m, _, err := pos.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := pos.Play(m); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	sdb, err := store.Open(filepath.Join(t.TempDir(), "lyngk.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	v := &engine.TokenView{Board: 101, Game: offered()[1], User: "alice", Players: [2]string{"alice", "bob"},
		Position: pos, YourTurn: true, Legal: pos.Legal()}
	h, err := web.New(web.Config{Store: daemon.New(daemon.Config{DB: sdb}), Engine: reader(t), Mover: tokenOf{v}, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	defer srv.Close()
	d.open(srv.URL + "/play/" + strings.Repeat("a", 32))
	for _, p := range strings.Fields("g8 j8 g8 c4 h8 f3") {
		d.click(`circle[data-p="` + p + `"]`)
	}
	want := []string{"g8-j8;xc8-g8;xc4;xh4-h8;xf3", "g8-j8;xg4-g8;xc4;xh4-h8;xf3"}
	var got []string
	d.eval(`return Array.from(document.querySelectorAll("#claims:not([hidden]) button")).map(function(b){return b.getAttribute("data-m")})`, &got)
	if !slices.Equal(got, want) {
		t.Fatalf("after the taps g8 j8 g8 c4 h8 f3: buttons %q, want %q", got, want)
	}
	if keep := os.Getenv("LYNGK_YINSH_PLAY_SCREENSHOTS"); keep != "" {
		if err := os.WriteFile(filepath.Join(keep, "yinsh-play-rows.png"), d.screenshot(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d.click(`#claims button[data-m="` + want[1] + `"]`)
	var typed string
	d.eval(`return document.getElementById("move").value`, &typed)
	if typed != want[1] {
		t.Errorf("the button made %q, want %q", typed, want[1])
	}
}
