package web_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/golden"
	"lyngk.example/lyngk/engine/tournament"
	"lyngk.example/lyngk/store"
)

// tourFixture is a tournament record as the engine writes it (bucket
// tournaments, engine/tournaments.go), made by hand: the web part only
// reads them.
type tourFixture struct {
	name, game, format, state string
	min, max, rounds          int
	double, rated             bool
	creator                   string
	players                   []string
	withdrawn                 []string
	played                    []tournament.Round
	firstBoard                int
}

// putTournament writes f's record and its index keys.
func (s *site) putTournament(f tourFixture) {
	s.t.Helper()
	at := start.Add(-48 * time.Hour)
	var players []map[string]any
	for i, p := range f.players {
		e := map[string]any{"id": p, "joined": at}
		if f.state != "open" {
			e["rating"] = 1700 - 10*i
		}
		for _, w := range f.withdrawn {
			if w == p {
				e["withdrawn"] = at.Add(30 * time.Hour)
			}
		}
		players = append(players, e)
	}
	board := f.firstBoard
	var played []map[string]any
	for r, round := range f.played {
		var gs []map[string]any
		for _, g := range round {
			m := map[string]any{"white": g.White, "black": g.Black, "result": g.Result}
			if !g.IsBye() {
				m["board"] = board
				board++
			}
			gs = append(gs, m)
		}
		played = append(played, map[string]any{"started": at.Add(time.Duration(r) * time.Hour), "games": gs})
	}
	rec := map[string]any{"v": 1, "name": f.name, "game": f.game, "variant": "standard", "format": f.format,
		"swiss_rounds": f.rounds, "min": f.min, "max": f.max, "double": f.double, "rated": f.rated,
		"creator": f.creator, "created": at.Add(-time.Hour), "state": f.state, "players": players, "played": played}
	if f.state != "open" {
		rec["started"] = at
	}
	if f.state == "finished" {
		rec["ended"] = at.Add(40 * time.Hour)
	}
	b, err := json.Marshal(rec)
	if err != nil {
		s.t.Fatal(err)
	}
	key := strings.ToLower(f.name)
	state := map[string]string{"open": "0", "running": "1", "finished": "2"}[f.state]
	err = s.db.Update(func(tx *store.Tx) error {
		if err := tx.Put(store.BucketTournaments, key, b); err != nil {
			return err
		}
		if err := tx.Put(store.BucketTourIndex, "g"+f.game+"\x00"+state+"\x00"+key, nil); err != nil {
			return err
		}
		if f.state == "finished" {
			return nil
		}
		for _, p := range f.players {
			withdrew := false
			for _, w := range f.withdrawn {
				withdrew = withdrew || w == p
			}
			if !withdrew {
				if err := tx.Put(store.BucketTourIndex, "p"+strings.ToLower(p)+"\x00"+key, nil); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		s.t.Fatal(err)
	}
}

// tournaments adds to the store of games(): "spring", a running round
// robin of five (results of every kind: won, drawn, forfeited, a game
// still played, the byes, and erin who withdrew); "autumn", a finished
// double round robin of three; "blitz", an open Swiss; "cup", a knockout
// of four after its first round.
func (s *site) tournaments() {
	s.t.Helper()
	for _, n := range []string{"dave", "erin"} {
		out := s.cmd(n, "signup "+n+" pw-"+n)
		s.mail(engine.Inbound{From: out[0].To[0], Subject: "Re: " + out[0].Subject, Body: "yes\n",
			InReplyTo: []string{out[0].MessageID}})
	}
	rr, err := tournament.RoundRobin(5, false)
	if err != nil {
		s.t.Fatal(err)
	}
	results := []tournament.Result{tournament.WhiteWon, tournament.Draw, tournament.BlackWon, tournament.WhiteForfeited,
		tournament.BlackForfeited, tournament.WhiteWon, tournament.Draw, tournament.BlackWon, tournament.WhiteWon}
	k := 0
	for r := range rr {
		for i := range rr[r] {
			if rr[r][i].IsBye() {
				continue
			}
			if k < len(results) {
				rr[r][i].Result = results[k]
			}
			k++
		}
	}
	s.putTournament(tourFixture{name: "Spring", game: "lyngk", format: "roundrobin", state: "running", min: 3, max: 5, rated: true,
		creator: "alice", players: []string{"alice", "bob", "carol", "dave", "erin"}, withdrawn: []string{"erin"},
		played: rr, firstBoard: 201})
	dbl, err := tournament.RoundRobin(3, true)
	if err != nil {
		s.t.Fatal(err)
	}
	for r := range dbl {
		for i := range dbl[r] {
			if !dbl[r][i].IsBye() {
				dbl[r][i].Result = []tournament.Result{tournament.WhiteWon, tournament.Draw}[(r+i)%2]
			}
		}
	}
	s.putTournament(tourFixture{name: "autumn", game: "lyngk", format: "roundrobin", state: "finished", min: 3, max: 3, double: true,
		creator: "bob", players: []string{"bob", "carol", "dave"}, played: dbl, firstBoard: 301})
	s.putTournament(tourFixture{name: "blitz", game: "lyngk", format: "swiss", state: "open", min: 4, max: 8, rounds: 3,
		creator: "carol", players: []string{"carol", "alice"}})
	s.putTournament(tourFixture{name: "cup", game: "lyngk", format: "knockout", state: "running", min: 4, max: 4,
		creator: "dave", players: []string{"alice", "bob", "carol", "dave"},
		played: []tournament.Round{{{White: 0, Black: 3, Result: tournament.WhiteWon}, {White: 1, Black: 2, Result: tournament.Draw}},
			{{White: 2, Black: 1}}}, firstBoard: 401})
}

// TestTournamentGolden pins the tournament pages and their JSON
// (rewritten with -update): the lists, a running round robin with its
// crosstable, standings and rounds, a finished double round robin, an
// open Swiss, a knockout with a replayed draw, the player page with his
// tournaments.
func TestTournamentGolden(t *testing.T) {
	s := newSite(t, true)
	s.games()
	s.tournaments()
	for _, tc := range []struct{ name, target, ext string }{
		{"tournaments", "/tournaments", "html"},
		{"tournaments", "/tournaments.json", "json"},
		{"tournament-spring", "/tournament/spring", "html"},
		{"tournament-spring", "/tournament/Spring.json", "json"},
		{"tournament-autumn", "/tournament/autumn", "html"},
		{"tournament-blitz", "/tournament/blitz", "html"},
		{"tournament-cup", "/tournament/cup", "html"},
		{"player-dave", "/player/dave", "html"},
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
