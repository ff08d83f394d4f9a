package main

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The phone of the phone test: a small Android phone's viewport in CSS px
// and its device pixel ratio.
const (
	phoneWidth, phoneHeight = 360, 740
	phoneRatio              = 3
	// minTap is the least size of a tap target on the play page, in CSS
	// px (platform guidelines say about 44; 40 is our floor).
	minTap = 40
)

// fitCheck is the script that measures a page at the phone's width: the
// viewport's width, the document's scroll width, the device pixel ratio,
// and the elements whose box reaches out of the viewport sideways.
const fitCheck = `
var vw=document.documentElement.clientWidth, bad=[];
document.querySelectorAll("body *").forEach(function(e){
  var r=e.getBoundingClientRect();
  if(r.width>0&&(r.right>vw+0.5||r.left<-0.5)){
    var c=typeof e.className==="string"&&e.className?"."+e.className:"";
    bad.push(e.tagName.toLowerCase()+(e.id?"#"+e.id:"")+c+" "+Math.round(r.left)+".."+Math.round(r.right));
  }
});
return {vw:vw, sw:document.documentElement.scrollWidth, dpr:window.devicePixelRatio, bad:bad.slice(0,8)};`

// fits checks that the page in d fits the phone's width.
func fits(t *testing.T, d *webDriver, name string) {
	t.Helper()
	var m struct {
		VW, SW int
		DPR    float64
		Bad    []string
	}
	d.eval(fitCheck, &m)
	if m.VW != phoneWidth || m.DPR != phoneRatio {
		t.Fatalf("%s: viewport %d px at ratio %v, want %d at %d", name, m.VW, m.DPR, phoneWidth, phoneRatio)
	}
	if m.SW > m.VW || len(m.Bad) > 0 {
		t.Errorf("%s: %d px wide in a %d px viewport; elements out of it: %q", name, m.SW, m.VW, m.Bad)
	}
}

// shoot keeps a screenshot of d as DIR/NAME.png when
// LYNGK_PHONE_SCREENSHOTS=DIR is set (engine/README.md's), after checking it is
// in device pixels.
func shoot(t *testing.T, d *webDriver, name string) {
	t.Helper()
	shot := d.screenshot()
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dx() != phoneWidth*phoneRatio {
		t.Errorf("%s: screenshot %v, want %d device px wide", name, img.Bounds(), phoneWidth*phoneRatio)
	}
	if dir := os.Getenv("LYNGK_PHONE_SCREENSHOTS"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, name+".png"), shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// openMail shows the HTML part of the mail raw in d as a mail program
// does, its picture's cid: resolved to a file, and returns the page.
func openMail(t *testing.T, d *webDriver, raw []byte) string {
	t.Helper()
	parts := leaves(t, raw)
	if len(parts) != 3 {
		t.Fatalf("mail has %d parts, want text, HTML and PNG:\n%s", len(parts), raw)
	}
	dir := t.TempDir()
	cid := strings.Trim(parts[2].header.Get("Content-Id"), "<>")
	page := strings.ReplaceAll(string(parts[1].body), "cid:"+cid, "board.png")
	if err := os.WriteFile(filepath.Join(dir, "board.png"), parts[2].body, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mail.html"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	d.open("file://" + filepath.Join(dir, "mail.html"))
	return page
}

// TestBrowserPhone opens, in Chromium as a 360×740 phone
// at device pixel ratio 3, a board mail's HTML part (with its "Move on the
// web" link, as the player's mail program shows it), an error mail's
// (quoting a command with an 80-letter word), every web page and
// the play page, and checks that none is wider than the screen: no
// element's box reaches out of the viewport. On the play page, the
// neighbouring stacks are at least 40 CSS px apart and a tap 19 px beside a
// stack's centre picks that stack: each stack's tap target is at least 40
// px across. On the main before, the board mail was 469 px wide (its link
// one word), the tables scrolled sideways, and a stack was a 17 px target.
func TestBrowserPhone(t *testing.T) {
	d := startPhone(t, phoneWidth, phoneHeight, phoneRatio)
	g := startWebGame(t)

	// The board mail, from alice's INBOX, as a mail program shows it: the
	// picture by its cid: resolved to a file.
	page := openMail(t, d, g.alice.rawInbox()[2])
	if !strings.Contains(page, "/play/") {
		t.Fatalf("the board mail has no web link:\n%s", page)
	}
	fits(t, d, "board mail")
	shoot(t, d, "phone-mail")
	// An error mail with the game, quoting a command with one long word.
	g.bob.send("lyngk move 101 bob Sesame-9xy e4-e5"+strings.Repeat("x", 80), "", "")
	g.bob.await(4)
	page = openMail(t, d, g.bob.rawInbox()[3])
	if !strings.Contains(page, "It is not your move") || !strings.Contains(page, strings.Repeat("x", 80)) {
		t.Fatalf("bob's error mail:\n%s", page)
	}
	fits(t, d, "error mail")

	for _, p := range []struct{ name, path string }{
		{"phone-home", "/"},
		{"phone-games", "/games?state=running"},
		{"phone-standings", "/standings"},
		{"phone-player", "/player/alice"},
		{"phone-game", "/game/101"},
	} {
		d.open(g.web + p.path)
		fits(t, d, p.path)
		shoot(t, d, p.name)
	}

	// The play page, alice's turn.
	link := g.link(t, g.aliceMail)
	d.open(link)
	fits(t, d, "play page")
	var spots []struct {
		P     string
		X, Y  float64
		Class string
	}
	const locate = `document.querySelector(".pick").scrollIntoView();
return Array.from(document.querySelectorAll("svg.spots circle")).map(function(c){
  var r=c.getBoundingClientRect(); return {p:c.getAttribute("data-p"), x:r.left+r.width/2, y:r.top+r.height/2, class:c.getAttribute("class")||""}})`
	d.eval(locate, &spots)
	if len(spots) < 40 {
		t.Fatalf("%d stacks to tap", len(spots))
	}
	least := math.Inf(1)
	for i, a := range spots {
		for _, b := range spots[i+1:] {
			least = min(least, math.Hypot(a.X-b.X, a.Y-b.Y))
		}
	}
	t.Logf("neighbouring stacks %.1f CSS px apart on a %d px phone", least, phoneWidth)
	if least < minTap {
		t.Errorf("neighbouring stacks %.1f CSS px apart, want at least %d", least, minTap)
	}
	// A stack that may move, tapped beside its disc, 19 px right of its
	// centre (and, for another, 19 px above): it is picked.
	tapped := 0
	for _, s := range spots {
		if s.Class != "from" || tapped == 2 {
			continue
		}
		dx, dy := minTap/2-1, 0
		if tapped == 1 {
			// Afresh, so that the first stack's choice plays no part.
			dx, dy = 0, -(minTap/2 - 1)
			d.open(link)
			d.eval(locate, nil)
		}
		d.tap(int(math.Round(s.X))+dx, int(math.Round(s.Y))+dy)
		if c := d.attr(`circle[data-p="`+s.P+`"]`, "class"); c != "chosen" {
			t.Errorf("a tap %d,%d px from %s's centre: its class %q, want chosen", dx, dy, s.P, c)
		}
		tapped++
	}
	if tapped != 2 {
		t.Fatalf("%d stacks that may move", tapped)
	}
	shoot(t, d, "phone-play")

	// bob's play page: not his turn.
	bobMail := g.bob.await(3)
	d.open(g.link(t, bobMail))
	fits(t, d, "bob's play page")
	if s := d.text("p.status"); !strings.Contains(s, "not yours") {
		t.Errorf("bob's play page status %q", s)
	}
}
