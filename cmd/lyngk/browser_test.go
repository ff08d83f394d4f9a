package main

import (
	"bytes"
	"image/png"
	"os"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine/lyngk"
)

// TestBrowserPlay is the end-to-end test of the web part in a real
// browser (Debian's chromium, driven through chromedriver): `lyngk serve`
// in local mode, alice and bob in a game. One tab shows the game page
// /game/101; in a second tab alice follows the link of her board mail
// (read by IMAP) and moves by clicking: a stack, its destination, then a
// colour to claim, then the send button. The first tab updates itself,
// without reload, within 2 s of the move; both players' board mails
// arrive by IMAP. LYNGK_WEB_SCREENSHOT=FILE keeps a screenshot of the game
// page (engine/README.md's, testdata/web-game.png), LYNGK_PLAY_SCREENSHOT=FILE
// one of the play page as it offers the claims (testdata/web-play.png).
func TestBrowserPlay(t *testing.T) {
	d := startBrowser(t, 1200, 900)
	g := startWebGame(t)
	link := g.link(t, g.aliceMail)

	gameTab := d.window()
	d.open(g.web + "/game/101")
	if title := d.text("h1"); !strings.HasPrefix(title, "LYNGK · Board 101") {
		t.Fatalf("game page heading %q", title)
	}
	// A mark in the page's JavaScript state: a reload would lose it.
	d.eval(`window.lyngkNoReload = true; return true`, nil)

	d.newTab()
	d.open(link)
	if s := d.text("p.status"); s != "It is your turn, alice." {
		t.Fatalf("play page status %q", s)
	}
	var moves []struct{ M, F, T, C string }
	d.eval(`return JSON.parse(document.getElementById("play").getAttribute("data-moves"))`, &moves)
	// The first move whose stack and destination also allow a move
	// without a claim and a claim of Red: the claim chooser shows.
	var move, from, to string
	for _, m := range moves {
		if m.C == "Red" {
			move, from, to = m.M, m.F, m.T
			break
		}
	}
	if move == "" {
		t.Fatalf("no move claiming Red among %d legal moves", len(moves))
	}
	d.click(`circle[data-p="` + from + `"]`)
	if c := d.attr(`circle[data-p="`+from+`"]`, "class"); c != "chosen" {
		t.Errorf("clicked stack %s has class %q, want chosen", from, c)
	}
	if c := d.attr(`circle[data-p="`+to+`"]`, "class"); c != "dest" {
		t.Errorf("destination %s has class %q, want dest", to, c)
	}
	d.click(`circle[data-p="` + to + `"]`)
	if got := d.text("#claims"); !strings.Contains(got, "No claim") || !strings.Contains(got, "Claim Red") {
		t.Errorf("claim chooser shows %q", got)
	}
	if keep := os.Getenv("LYNGK_PLAY_SCREENSHOT"); keep != "" {
		if err := os.WriteFile(keep, d.screenshot(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d.click(`#claims button[data-m="` + move + `"]`)
	var typed string
	d.eval(`return document.getElementById("move").value`, &typed)
	if typed != move {
		t.Fatalf("the clicks made %q, want %q", typed, move)
	}
	d.click("#send")
	done := d.text(".done")
	moved := time.Now()
	if !strings.Contains(done, "Your move "+move+" was made.") {
		t.Fatalf("after sending: %q", done)
	}

	// The game page, in the first tab, shows the move without a reload.
	d.switchTo(gameTab)
	var waited time.Duration
	for deadline := moved.Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var st struct {
			Stayed bool   `json:"stayed"`
			Title  string `json:"title"`
			Text   string `json:"text"`
		}
		d.eval(`return {stayed: window.lyngkNoReload === true, title: document.title, text: document.querySelector("main").innerText}`, &st)
		if strings.Contains(st.Title, "move 1") && strings.Contains(st.Text, move) {
			waited = time.Since(moved)
			if !st.Stayed {
				t.Errorf("the game page was reloaded, not updated")
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the game page did not update: title %q", st.Title)
		}
	}
	t.Logf("game page updated %v after the move", waited.Round(time.Millisecond))
	if waited > 2*time.Second {
		t.Errorf("the game page updated %v after the move, want within 2 s", waited)
	}

	// Both players' board mails, by IMAP.
	pos := lyngk.New(101, lyngk.Standard)
	m, _, err := lyngk.ParseMove(move)
	if err != nil {
		t.Fatal(err)
	}
	if err := pos.Apply(m); err != nil {
		t.Fatal(err)
	}
	for _, p := range []localPlayer{g.alice, g.bob} {
		got := p.await(4)
		if got.Subject != "Lyngk Board 101 bob" || !strings.Contains(got.Body, pos.Board([2]string{"alice", "bob"})) {
			t.Errorf("%s's board mail: %q\n%s", p.name, got.Subject, got.Body)
		}
	}

	shot := d.screenshot()
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dx() != 1200 {
		t.Errorf("screenshot %v, want 1200 wide", img.Bounds())
	}
	if keep := os.Getenv("LYNGK_WEB_SCREENSHOT"); keep != "" {
		if err := os.WriteFile(keep, shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
