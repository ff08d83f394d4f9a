package main

import (
	"fmt"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/daemon"
	"lyngk.example/lyngk/engine/web"
	"lyngk.example/lyngk/store"
)

// tourneySite is a store holding "winter-championship-2026" (a name of
// the longest a player may give), a round robin of twelve players with
// long userids made by mail (tournament create, eleven joins, the last of
// which starts it), about half its games ended by mail (resigned, drawn
// by proposal), served by the web part on a loopback port. It returns the
// server's URL.
func tourneySite(t *testing.T) string {
	t.Helper()
	e, db, mail := mailSite(t, 7*time.Minute)
	cmd := func(from, subject string) {
		t.Helper()
		out := mail(engine.Inbound{From: from + "@players.example", Subject: subject})
		if len(out) == 0 || strings.Contains(out[0].Subject, "rror") {
			t.Fatalf("%s by %s: %+v", subject, from, out)
		}
	}
	var names []string
	for i := range 12 {
		n := fmt.Sprintf("longplayername%02d", i+1)
		names = append(names, n)
		out := mail(engine.Inbound{From: n + "@players.example", Subject: "signup " + n + " pw-" + n})
		mail(engine.Inbound{From: out[0].To[0], Subject: "Re: " + out[0].Subject, Body: "yes\n", InReplyTo: []string{out[0].MessageID}})
	}
	cmd(names[0], fmt.Sprintf("lyngk tournament create winter-championship-2026 %s pw-%s -players 12-12 -rated", names[0], names[0]))
	for _, n := range names[1:] {
		cmd(n, fmt.Sprintf("lyngk tournament join winter-championship-2026 %s pw-%s", n, n))
	}
	var d *engine.TournamentDetail
	err := db.View(func(tx *store.Tx) (err error) {
		d, err = e.ReadTournament(tx, "winter-championship-2026")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range d.Rounds[:6] {
		for j, g := range r.Games {
			switch (i + j) % 3 {
			case 0:
				cmd(g.Black, fmt.Sprintf("lyngk resign %d %s pw-%s", g.Board, g.Black, g.Black))
			case 1:
				cmd(g.White, fmt.Sprintf("lyngk resign %d %s pw-%s", g.Board, g.White, g.White))
			default:
				cmd(g.White, fmt.Sprintf("lyngk move %d %s pw-%s propose", g.Board, g.White, g.White))
				cmd(g.Black, fmt.Sprintf("lyngk move %d %s pw-%s accept", g.Board, g.Black, g.Black))
			}
		}
	}
	h, err := web.New(web.Config{Store: daemon.New(daemon.Config{DB: db}), Engine: e, Public: true, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

// crossCheck is sidewaysCheck for a tournament page: the document no
// wider than the window, no element scrolling sideways or overflowing its
// box but the boxes of the crosstable and the standings (.crossbox) and
// what is inside them, and whether each of these boxes scrolls (its table
// wider than the window allows).
const crossCheck = `
var vw=document.documentElement.clientWidth, bad=[];
function name(e){var c=typeof e.className==="string"&&e.className?"."+e.className:"";return e.tagName.toLowerCase()+c}
document.querySelectorAll("body *").forEach(function(e){
  if(!(e instanceof HTMLElement)||e.clientWidth===0||e.closest(".crossbox"))return;
  if(getComputedStyle(e).display==="inline")return;
  if(e.scrollWidth>e.clientWidth+1)bad.push(name(e)+" "+e.scrollWidth+">"+e.clientWidth+" "+JSON.stringify(e.innerText.slice(0,40)));
});
var box=document.querySelector("#crosstable"), r=box?box.getBoundingClientRect():{left:0,right:0};
var st=document.querySelector(".crossbox:has(table.standings)");
return {vw:vw, sw:document.documentElement.scrollWidth, bad:bad.slice(0,8),
  scrolls:!!box&&box.scrollWidth>box.clientWidth+1, left:Math.round(r.left), right:Math.round(r.right),
  standings:!!st&&st.scrollWidth>st.clientWidth+1};`

// TestBrowserTournamentPages opens the tournament pages in Chromium at
// 360 px (a phone) and 1280 px: /tournaments and the tournament page of a
// round robin of twelve with long userids, made and half played by mail.
// The page never scrolls sideways; on the phone the crosstable keeps its
// grid and scrolls inside its own box, which stays within the window; at
// 1280 px it fits without scrolling. The standings keep their columns too
// (a phone's stacked list was seven lines a player) and fit: a long name
// wraps. LYNGK_PAGES_SCREENSHOTS=DIR keeps the screenshots
// (WIDTH-tournament.png, WIDTH-tournament-cross.png, scrolled to the
// crosstable). Without the box (.crossbox) the phone's page was 683 px
// wide.
func TestBrowserTournamentPages(t *testing.T) {
	site := tourneySite(t)
	keep := os.Getenv("LYNGK_PAGES_SCREENSHOTS")
	for _, width := range []int{360, 1280} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			var d *webDriver
			if width == 360 {
				d = startPhone(t, width, 1400, 2)
			} else {
				d = startBrowser(t, width, 1400)
			}
			for _, p := range []struct{ name, path, want string }{
				{"tournaments", "/tournaments", "winter-championship-2026"},
				{"tournament", "/tournament/winter-championship-2026", "winter-championship-2026"},
			} {
				d.open(site + p.path)
				var m struct {
					VW, SW      int
					Bad         []string
					Scrolls     bool
					Left, Right int
					Standings   bool
				}
				d.eval(crossCheck, &m)
				if m.VW != width {
					t.Fatalf("%s: viewport %d px, want %d", p.path, m.VW, width)
				}
				if m.SW > m.VW || len(m.Bad) > 0 {
					t.Errorf("%s at %d px: %d px wide; scrolling or overflowing inside: %q", p.path, width, m.SW, m.Bad)
				}
				if !strings.Contains(d.text("main"), p.want) {
					t.Errorf("%s: the page does not say %q", p.path, p.want)
				}
				if p.name == "tournament" {
					if m.Scrolls != (width == 360) {
						t.Errorf("%s at %d px: the crosstable's box scrolls: %v", p.path, width, m.Scrolls)
					}
					if m.Left < 0 || m.Right > m.VW {
						t.Errorf("%s at %d px: the crosstable's box spans %d..%d px of %d", p.path, width, m.Left, m.Right, m.VW)
					}
					if m.Standings {
						t.Errorf("%s at %d px: the standings scroll: a name should wrap", p.path, width)
					}
					if c := d.text("#crosstable tbody tr:first-child"); !strings.Contains(c, "longplayername") {
						t.Errorf("%s: the crosstable's first row is %q", p.path, c)
					}
				}
				if keep == "" {
					continue
				}
				if err := os.WriteFile(filepath.Join(keep, fmt.Sprintf("%d-%s.png", width, p.name)), d.screenshot(), 0o644); err != nil {
					t.Fatal(err)
				}
				if p.name == "tournament" {
					d.eval(`document.querySelector("#crosstable").scrollIntoView({block:"start"}); return true`, new(bool))
					if err := os.WriteFile(filepath.Join(keep, fmt.Sprintf("%d-%s-cross.png", width, p.name)), d.screenshot(), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
		})
	}
}
