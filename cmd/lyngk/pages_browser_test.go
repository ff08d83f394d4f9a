package main

import (
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/daemon"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/engine/web"
	"lyngk.example/lyngk/store"
	"lyngk.example/lyngk/templates"
)

// longTurnGame is 44 turns of a YINSH game (engine/yinsh's RandomTurn,
// seed 289) with a long turn early, 18. e7-d7;xe3-e7;xj7: in the first
// column of the game page's move list.
const longTurnGame = "f7 c8 b5 j11 e6 e4 h8 i5 i10 j7 e6-e5 e4-e1 e5-e3 j11-i11 e3-f4 e1-e7 f4-i4 e7-d7;xe3-e7;xj7 " +
	"h8-h3 i5-c5 f7-e7 i11-h11 b5-b3 c8-b7 i4-j5 c5-a5 e7-d6 h11-h10 i10-e6 d7-c6 j5-h5 c6-c7 e6-g8 h10-h7 " +
	"b3-b1 a5-b6 g8-d8 h7-h9 h3-a3 h9-j9 d8-f8 j9-k10 h5-d5 k10-i8"

// mailSite is an engine with both games and a store on disk, and mail,
// which hands the engine one mail in a transaction of its own and returns
// its answers: each mail with a Message-ID of its own, the clock at 9:00
// on 21 November 2026 for the first and step later for each next.
func mailSite(t *testing.T, step time.Duration) (*engine.Engine, *store.DB, func(engine.Inbound) []engine.Mail) {
	t.Helper()
	set, err := templates.Load("")
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(engine.Config{Games: offered(), Server: "pbem@example.net", Templates: set,
		Rand: rand.NewChaCha8([32]byte{3}), BcryptCost: bcrypt.MinCost})
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(filepath.Join(t.TempDir(), "lyngk.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	now, seq := time.Date(2026, time.November, 21, 9, 0, 0, 0, time.UTC), 0
	mail := func(in engine.Inbound) []engine.Mail {
		t.Helper()
		seq++
		in.MessageID = fmt.Sprintf("m%d@players.example", seq)
		var out []engine.Mail
		err := db.Update(func(tx *store.Tx) error {
			var failed, err error
			out, failed, err = e.Handle(tx, in, now)
			if failed != nil {
				t.Errorf("mail %q: %v", in.Subject, failed)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		now = now.Add(step)
		return out
	}
	return e, db, mail
}

// pagesSite is a store with both games in it, served by the web part on a
// loopback port, the robot's reviews of its finished games made: 101 a
// LYNGK game played out, 102 the YINSH game of
// yinshGame played out (its long turns, a row and a ring removed after a
// move, in the move list), 103 a LYNGK game and 104 a YINSH game (longTurnGame) running,
// between alice, bob and carol. It returns the server's URL.
func pagesSite(t *testing.T) string {
	t.Helper()
	e, db, mail := mailSite(t, 23*time.Minute)
	cmd := func(from, subject string) []engine.Mail {
		t.Helper()
		return mail(engine.Inbound{From: from + "@players.example", Subject: subject})
	}
	for _, n := range []string{"alice", "bob", "carol"} {
		out := cmd(n, "signup "+n+" pw-"+n)
		mail(engine.Inbound{From: out[0].To[0], Subject: "Re: " + out[0].Subject, Body: "yes\n", InReplyTo: []string{out[0].MessageID}})
	}
	move := func(game string, board int, user, m string) {
		t.Helper()
		out := cmd(user, fmt.Sprintf("%s move %d %s pw-%s %s", game, board, user, user, m))
		// The move that ends a game is answered with no mail (not nil):
		// its game-over mails are held for the robot's review.
		if out == nil {
			t.Fatalf("%s on %d by %s: no answer", m, board, user)
		}
		if len(out) > 0 && strings.Contains(out[0].Subject, "rror") {
			t.Fatalf("%s on %d by %s: %d mails, the first: %.500s", m, board, user, len(out), out[0].Body)
		}
	}
	names := [2]string{"alice", "bob"}
	cmd("alice", "lyngk challenge alice bob")
	pos := lyngk.New(101, lyngk.Standard)
	rng := rand.New(rand.NewPCG(5, 0))
	for pos.Status() == games.Playing {
		legal := pos.Legal(nil)
		slices.SortFunc(legal, func(a, b lyngk.Move) int { return strings.Compare(a.String(), b.String()) })
		m := legal[rng.IntN(len(legal))]
		move("lyngk", 101, names[pos.Turn()-1], m.String())
		if err := pos.Apply(m); err != nil {
			t.Fatal(err)
		}
	}
	cmd("alice", "yinsh challenge alice bob")
	for i, turn := range strings.Fields(yinshGame) {
		move("yinsh", 102, names[i%2], turn)
	}
	cmd("carol", "lyngk challenge carol alice")
	first := lyngk.New(103, lyngk.Standard)
	move("lyngk", 103, "carol", first.LegalPlain(nil)[0].String())
	cmd("bob", "yinsh challenge bob carol")
	for i, turn := range strings.Fields(longTurnGame) {
		move("yinsh", 104, [2]string{"bob", "carol"}[i%2], turn)
	}
	made := make(chan int, 2)
	h, err := web.New(web.Config{Store: daemon.New(daemon.Config{DB: db}), Engine: e, Public: true, Log: slog.New(slog.DiscardHandler),
		Review: true, Reviewed: func(board int) { made <- board }})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	// The robot's reviews of the two finished games, made before the
	// pages are looked at, so that their charts are on them.
	for _, board := range []int{101, 102} {
		res, err := http.Get(fmt.Sprintf("%s/game/%d", srv.URL, board))
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	for range 2 {
		select {
		case <-made:
		case <-time.After(patience):
			t.Fatal("the reviews were not made")
		}
	}
	return srv.URL
}

// sidewaysCheck measures the page in the window: its width, the
// document's scroll width, and the elements that scroll sideways inside
// (overflow-x auto or scroll, wider content than box) or whose content
// runs out of their box (a word wider than its table cell, a turn wider
// than its column of the move list). A list item's number drawn outside
// it (an outside marker) in any column of a list but the first hangs in
// the gap and over the column to its left, where a long turn runs into
// it: such an item counts too. Folded parts (details) are opened first.
const sidewaysCheck = `
document.querySelectorAll("details").forEach(function(d){d.open=true});
var vw=document.documentElement.clientWidth, bad=[];
function name(e){var c=typeof e.className==="string"&&e.className?"."+e.className:"";return e.tagName.toLowerCase()+c}
document.querySelectorAll("body *").forEach(function(e){
  if(!(e instanceof HTMLElement)||e.clientWidth===0)return;
  var s=getComputedStyle(e);
  if(s.display==="inline"||e.closest("svg"))return;
  if(e.scrollWidth>e.clientWidth+1){
    bad.push(name(e)+" "+e.scrollWidth+">"+e.clientWidth+" "+JSON.stringify(e.innerText.slice(0,40)));
  }
  if(s.display==="list-item"&&s.listStyleType!=="none"&&s.listStylePosition==="outside"){
    var l=e.parentElement, ls=getComputedStyle(l), left=l.getBoundingClientRect().left+parseFloat(ls.borderLeftWidth)+parseFloat(ls.paddingLeft);
    if(e.getBoundingClientRect().left>left+1)bad.push(name(e)+" numbered outside its column: "+JSON.stringify(e.innerText.slice(0,40)));
  }
});
return {vw:vw, sw:document.documentElement.scrollWidth, bad:bad.slice(0,8)};`

// TestBrowserPagesFit opens every kind of page of the web part in
// Chromium at 360 (a phone), 900 and 1280 px: the front page, the games,
// the finished games, a player, the standings of each game, a LYNGK and a
// YINSH game page (the YINSH one with turns like e6-e8;xc5-g9;xe1), a
// running game and a past position. None scrolls sideways (the document
// no wider than the window), and no element scrolls sideways inside or
// has content running out of its box: long turns wrap inside their
// column, the players table shows whole, the board as in the mails fits
// a phone, the robot's review of a finished game (its chart and the
// loser's costliest moves) fits too. Each page names its game; the header
// names the server.
// LYNGK_PAGES_SCREENSHOTS=DIR keeps the screenshots (WIDTH-NAME.png). On
// the main before, the game page was wider than 900 px (its players
// table cut off), the text board scrolled sideways on a phone, and a
// long turn ran out of its column at 1280 px.
func TestBrowserPagesFit(t *testing.T) {
	site := pagesSite(t)
	pages := []struct{ name, path, want string }{
		{"home", "/", "Games"},
		{"games", "/games?state=all", "YINSH"},
		{"finished", "/games?state=finished", "LYNGK"},
		{"player", "/player/alice", "YINSH"},
		{"standings-lyngk", "/standings?game=lyngk", "LYNGK standings"},
		{"standings-yinsh", "/standings?game=yinsh", "YINSH standings"},
		{"game-lyngk", "/game/101", "LYNGK · Board 101"},
		{"game-lyngk-past", "/game/101?after=9", "LYNGK · Board 101"},
		{"game-yinsh", "/game/102", "YINSH · Board 102"},
		{"game-yinsh-running", "/game/104", "YINSH · Board 104"},
		{"game-lyngk-running", "/game/103", "LYNGK · Board 103"},
	}
	keep := os.Getenv("LYNGK_PAGES_SCREENSHOTS")
	for _, width := range []int{360, 900, 1280} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			var d *webDriver
			if width == 360 {
				d = startPhone(t, width, 1400, 2)
			} else {
				d = startBrowser(t, width, 1400)
			}
			for _, p := range pages {
				d.open(site + p.path)
				var m struct {
					VW, SW int
					Bad    []string
				}
				d.eval(sidewaysCheck, &m)
				if m.VW != width {
					t.Fatalf("%s: viewport %d px, want %d", p.path, m.VW, width)
				}
				if m.SW > m.VW || len(m.Bad) > 0 {
					t.Errorf("%s at %d px: %d px wide; scrolling or overflowing inside: %q", p.path, width, m.SW, m.Bad)
				}
				if h := d.text("h1"); !strings.Contains(h, p.want) && !strings.Contains(d.text("main"), p.want) {
					t.Errorf("%s: heading %q, and the page does not say %q", p.path, h, p.want)
				}
				if b := d.text("header .brand"); b != "PBeM Server" {
					t.Errorf("%s: header %q, want the server's name", p.path, b)
				}
				if keep == "" {
					continue
				}
				if err := os.WriteFile(filepath.Join(keep, fmt.Sprintf("%d-%s.png", width, p.name)), d.screenshot(), 0o644); err != nil {
					t.Fatal(err)
				}
				// A game page's lower part: the moves and the text board.
				var lower bool
				d.eval(`var b=document.querySelector("pre.block"); if(b)b.scrollIntoView({block:"end"}); return !!b`, &lower)
				if lower {
					if err := os.WriteFile(filepath.Join(keep, fmt.Sprintf("%d-%s-text.png", width, p.name)), d.screenshot(), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
		})
	}
}
