package web_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/golden"
	"lyngk.example/lyngk/engine/web"
	"lyngk.example/lyngk/store"
)

// play ends every running game of the tournament name that outcome
// decides, by mail as players do: outcome(white, black) names who
// resigns, "draw" for a draw proposed and accepted, "" to leave the game
// running.
func (s *site) play(name string, outcome func(white, black string) string) {
	s.t.Helper()
	var d *engine.TournamentDetail
	err := s.db.View(func(tx *store.Tx) (err error) {
		d, err = s.e.ReadTournament(tx, name)
		return err
	})
	if err != nil {
		s.t.Fatal(err)
	}
	for _, r := range d.Rounds {
		for _, g := range r.Games {
			if g.Board == 0 || g.Result != "" {
				continue
			}
			switch who := outcome(g.White, g.Black); who {
			case "":
			case "draw":
				s.ok(g.White, fmt.Sprintf("lyngk move %d %s pw-%s propose", g.Board, g.White, g.White))
				s.ok(g.Black, fmt.Sprintf("lyngk move %d %s pw-%s accept", g.Board, g.Black, g.Black))
			default:
				s.ok(who, fmt.Sprintf("lyngk resign %d %s pw-%s", g.Board, who, who))
			}
		}
	}
}

// ok sends a command and fails the test on an error mail.
func (s *site) ok(from, subject string) {
	s.t.Helper()
	out := s.cmd(from, subject)
	if len(out) == 0 || strings.Contains(out[0].Subject, "rror") {
		s.t.Fatalf("%s by %s: %+v", subject, from, out)
	}
}

// tournaments adds to the store of games(), by mail as players do:
// "Spring", a rated round robin of five, its games won, drawn and
// forfeited (erin withdraws) but alice's against dave, still played; "autumn", a double
// round robin of three played to its end; "blitz", an open Swiss; "cup",
// a knockout of four after its first round, whose drawn game is being
// replayed.
func (s *site) tournaments() {
	s.t.Helper()
	for _, n := range []string{"dave", "erin"} {
		out := s.cmd(n, "signup "+n+" pw-"+n)
		s.mail(engine.Inbound{From: out[0].To[0], Subject: "Re: " + out[0].Subject, Body: "yes\n",
			InReplyTo: []string{out[0].MessageID}})
	}
	s.ok("alice", "lyngk tournament create Spring alice pw-alice -players 3-5 -rated")
	for _, n := range []string{"bob", "carol", "dave", "erin"} {
		s.ok(n, "lyngk tournament join spring "+n+" pw-"+n)
	}
	s.play("spring", func(w, b string) string {
		switch {
		case w == "erin" || b == "erin", w+b == "alicedave" || w+b == "davealice":
			return ""
		case w+b == "alicebob" || w+b == "bobalice":
			return "draw"
		case w == "carol" || b == "carol":
			return map[bool]string{true: b, false: w}[w == "carol"] // carol wins
		}
		return max(w, b) // the later in the alphabet resigns
	})
	s.ok("erin", "lyngk tournament withdraw spring erin pw-erin")
	s.ok("bob", "lyngk tournament create autumn bob pw-bob -players 3-3 -double")
	for _, n := range []string{"carol", "dave"} {
		s.ok(n, "lyngk tournament join autumn "+n+" pw-"+n)
	}
	s.play("autumn", func(w, b string) string {
		if w == "dave" || b == "dave" {
			return "draw"
		}
		return "carol" // bob beats carol twice
	})
	s.ok("carol", "lyngk tournament create blitz carol pw-carol -format swiss -rounds 3 -players 4-8")
	s.ok("alice", "lyngk tournament join blitz alice pw-alice")
	s.ok("dave", "lyngk tournament create cup dave pw-dave -format knockout -players 4-4")
	for _, n := range []string{"alice", "bob", "carol"} {
		s.ok(n, "lyngk tournament join cup "+n+" pw-"+n)
	}
	s.play("cup", func(w, b string) string {
		if w == "dave" || b == "dave" {
			return "dave"
		}
		return "draw"
	})
}

// championship switches LYNGK's championship on, enrols alice, bob and
// carol by mail and runs the timer past the pause: its first edition,
// one league of three, starts.
func (s *site) championship() {
	s.t.Helper()
	err := s.d.Update(context.Background(), "admin", func(tx *store.Tx) error { return engine.SetChampionship(tx, "lyngk", true) })
	if err != nil {
		s.t.Fatal(err)
	}
	for _, n := range []string{"alice", "bob", "carol"} {
		s.ok(n, "lyngk championship join "+n+" pw-"+n)
	}
	tick := func() {
		s.t.Helper()
		err := s.d.Update(context.Background(), "tick", func(tx *store.Tx) error {
			if err := s.e.Prune(tx, s.now); err != nil {
				return err
			}
			_, failed, err := s.e.Tick(tx, s.now)
			if failed != nil {
				s.t.Errorf("tick: %v", failed)
			}
			return err
		})
		if err != nil {
			s.t.Fatal(err)
		}
	}
	tick()
	s.now = s.now.Add(engine.DefaultChampionshipPause)
	tick()
}

// TestTournamentGolden pins the tournament pages and their JSON
// (rewritten with -update): the lists, a running round robin with its
// crosstable, standings and rounds, a finished double round robin, an
// open Swiss, a knockout with a replayed draw, the player page with his
// tournaments, the championship's first edition (its league a tournament
// like any, made by the timer).
func TestTournamentGolden(t *testing.T) {
	s := newSite(t, true)
	s.games()
	s.tournaments()
	s.championship()
	for _, tc := range []struct{ name, target, ext string }{
		{"tournaments", "/tournaments", "html"},
		{"tournaments", "/tournaments.json", "json"},
		{"tournament-spring", "/tournament/spring", "html"},
		{"tournament-spring", "/tournament/Spring.json", "json"},
		{"tournament-autumn", "/tournament/autumn", "html"},
		{"tournament-blitz", "/tournament/blitz", "html"},
		{"tournament-cup", "/tournament/cup", "html"},
		{"player-dave", "/player/dave", "html"},
		{"game-spring", "/game/104", "html"},
		{"tournament-league", "/tournament/lyngk-championship-1-league-1", "html"},
	} {
		res, body := s.get("GET", tc.target)
		if res.StatusCode != http.StatusOK {
			t.Errorf("%s: %d\n%.400s", tc.target, res.StatusCode, body)
		}
		golden.Check(t, filepath.Join("testdata", tc.name+"."+tc.ext), body, *update)
	}
}

// TestTournamentPaths: the status codes and routes of the tournament
// pages, bad input included.
func TestTournamentPaths(t *testing.T) {
	s := newSite(t, true)
	s.games()
	s.tournaments()
	html, jsn := "text/html; charset=utf-8", "application/json"
	for _, tc := range []struct {
		target string
		status int
		ctype  string
		route  string
	}{
		{"/tournaments", 200, html, "/tournaments"},
		{"/tournaments?game=lyngk", 200, html, "/tournaments"},
		{"/tournaments?game=LYNGK&state=running", 200, html, "/tournaments"},
		{"/tournaments?game=chess", 404, html, "/tournaments"},
		{"/tournaments?state=bogus", 400, html, "/tournaments"},
		{"/tournaments?after=lyngk:cup", 400, html, "/tournaments"},
		{"/tournaments?state=running&after=nocolon", 400, html, "/tournaments"},
		{"/tournaments?state=running&after=chess:x", 400, html, "/tournaments"},
		{"/tournaments?state=running&after=lyngk:" + strings.Repeat("x", 200), 400, html, "/tournaments"},
		{"/tournaments?state=running&after=lyngk:cup", 200, html, "/tournaments"},
		{"/tournaments.json", 200, jsn, "/tournaments.json"},
		{"/tournaments.json?state=open", 200, jsn, "/tournaments.json"},
		{"/tournament/spring", 200, html, "/tournament/{name}"},
		{"/tournament/SPRING", 200, html, "/tournament/{name}"},
		{"/tournament/spring.json", 200, jsn, "/tournament/{name}.json"},
		{"/tournament/nothing", 404, html, "/tournament/{name}"},
		{"/tournament/nothing.json", 404, html, "/tournament/{name}.json"},
		{"/tournament/.json", 404, html, "/tournament/{name}.json"},
		{"/tournament/" + strings.Repeat("a", 300), 404, html, "/tournament/{name}"},
	} {
		res, body := s.get("GET", tc.target)
		if res.StatusCode != tc.status {
			t.Errorf("%s: status %d, want %d\n%.300s", tc.target, res.StatusCode, tc.status, body)
		}
		if got := res.Header.Get("Content-Type"); got != tc.ctype {
			t.Errorf("%s: Content-Type %q, want %q", tc.target, got, tc.ctype)
		}
		calls := s.obs.all()
		if want := fmt.Sprintf("%s %d", tc.route, tc.status); calls[len(calls)-1] != want {
			t.Errorf("%s: observed %q, want %q", tc.target, calls[len(calls)-1], want)
		}
	}
}

// TestTournamentBase: under a base path (web_url https://example.org/lyngk)
// every link of the tournament pages starts with it.
func TestTournamentBase(t *testing.T) {
	s := newSite(t, true)
	s.games()
	s.tournaments()
	s.championship()
	var err error
	s.h, err = web.New(web.Config{Store: s.d, Engine: s.e, Public: true, Base: "/lyngk", Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []string{"/lyngk/tournaments", "/lyngk/tournament/spring", "/lyngk/tournament/cup",
		"/lyngk/tournament/lyngk-championship-1-league-1", "/lyngk/player/dave", "/lyngk/game/104"} {
		res, body := s.get(http.MethodGet, target)
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d", target, res.StatusCode)
			continue
		}
		links := regexp.MustCompile(`href="([^"]*)"`).FindAllStringSubmatch(body, -1)
		for _, m := range links {
			if link := m[1]; strings.HasPrefix(link, "/") && !strings.HasPrefix(link, "/lyngk/") {
				t.Errorf("GET %s: link %q outside /lyngk/", target, link)
			}
		}
		if !strings.Contains(body, `href="/lyngk/tournament`) {
			t.Errorf("GET %s links no tournament", target)
		}
	}
}

// TestTournamentPaging: a list longer than a page (101 open tournaments:
// "blitz" made by mail and 100 copies of its record under other names)
// shows 100 and links the rest; the link, followed, shows the one left and
// no further link; the JSON's next link is its own.
func TestTournamentPaging(t *testing.T) {
	s := newSite(t, true)
	s.games()
	s.tournaments()
	err := s.db.Update(func(tx *store.Tx) error {
		rec, err := tx.Get(store.BucketTournaments, "blitz")
		if err != nil {
			return err
		}
		for i := range 100 {
			name := fmt.Sprintf("open%03d", i)
			copied := strings.Replace(string(rec), `"name":"blitz"`, `"name":"`+name+`"`, 1)
			if err := tx.Put(store.BucketTournaments, name, []byte(copied)); err != nil {
				return err
			}
			if err := tx.Put(store.BucketTourIndex, "glyngk\x000\x00"+name, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rows := regexp.MustCompile(`<td data-label="Tournament"><a href="/tournament/([^"]+)">`)
	_, body := s.get(http.MethodGet, "/tournaments?state=open")
	first := rows.FindAllStringSubmatch(body, -1)
	next := regexp.MustCompile(`<a href="([^"]+)">next page</a>`).FindStringSubmatch(body)
	if len(first) != 100 || first[0][1] != "blitz" || first[99][1] != "open098" || next == nil {
		t.Fatalf("page 1: %d rows, next %v", len(first), next)
	}
	link := strings.ReplaceAll(next[1], "&amp;", "&")
	if link != "/tournaments?after=lyngk%3Aopen098&state=open" {
		t.Errorf("the next page's link is %q", link)
	}
	_, body = s.get(http.MethodGet, link)
	second := rows.FindAllStringSubmatch(body, -1)
	if len(second) != 1 || second[0][1] != "open099" || strings.Contains(body, "next page") {
		t.Errorf("page 2: %v", second)
	}
	_, body = s.get(http.MethodGet, "/tournaments.json?state=open")
	if !strings.Contains(body, `"next":"/tournaments.json?after=lyngk%3Aopen098&state=open"`) {
		t.Errorf("the JSON's next link: %.300s", body[strings.LastIndex(body, "}]"):])
	}
}
