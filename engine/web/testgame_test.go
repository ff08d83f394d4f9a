package web_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/games/gamestest"
	"lyngk.example/lyngk/engine/web"
)

// TestTestGameWeb: the web part serves a game that exists only in the
// tests (tic-tac-toe, engine/games/gamestest) beside LYNGK through the
// contract alone: its game page with its picture, JSON with its own field,
// SVG and PNG, its text record (and no SGF), the list of games, its
// standings, and /play/TOKEN (the page
// with its cells to click, a move by POST, a refused one).
func TestTestGameWeb(t *testing.T) {
	s := newSiteOf(t, true, append(offered(), gamestest.TicTacToe))
	for _, n := range []string{"alice", "bob"} {
		out := s.cmd(n, "signup "+n+" pw-"+n)
		s.mail(engine.Inbound{From: out[0].To[0], Subject: "Re: " + out[0].Subject, Body: "yes\n",
			InReplyTo: []string{out[0].MessageID}})
	}
	s.cmd("alice", "tictactoe challenge alice bob")
	s.cmd("alice", "tictactoe move 101 alice pw-alice b2")
	s.cmd("bob", "tictactoe move 101 bob pw-bob a1")
	m := &mover{s: s}
	h, err := web.New(web.Config{DB: s.db, Engine: s.e, Public: true, Mover: m})
	if err != nil {
		t.Fatal(err)
	}
	s.h = h

	for _, tc := range []struct{ path, ctype, has string }{
		{"/game/101", "text/html; charset=utf-8", "Board 101, move 2"},
		{"/game/101/board.svg", "image/svg+xml", ">X</text>"},
		{"/game/101/board.png", "image/png", "PNG"},
		{"/games", "text/html; charset=utf-8", "/game/101"},
		{"/standings?game=tictactoe", "text/html; charset=utf-8", "<h1>TICTACTOE standings</h1>"},
		{"/standings", "text/html; charset=utf-8", `standings?game=tictactoe">TICTACTOE</a>`},
		{"/player/alice", "text/html; charset=utf-8", "<p>TICTACTOE: rating <strong>1600</strong> (provisional) ·"},
	} {
		res, body := s.get("GET", tc.path)
		if res.StatusCode != 200 || res.Header.Get("Content-Type") != tc.ctype || !strings.Contains(body, tc.has) {
			t.Errorf("%s: %d %s, no %q:\n%.600s", tc.path, res.StatusCode, res.Header.Get("Content-Type"), tc.has, body)
		}
	}
	res, body := s.get("GET", "/game/101.json")
	var j engine.GameJSON
	if err := json.Unmarshal([]byte(body), &j); res.StatusCode != 200 || err != nil || j.Turn != 1 ||
		j.Game != "tictactoe" || len(j.Legal) != 7 || j.Field("cells") == nil || !strings.Contains(body, `"winner":0,"cells":`) {
		t.Errorf("/game/101.json: %d %v %+v\n%s", res.StatusCode, err, j, body)
	}
	// Its text record; no SGF, which it does not offer, nor a link to one.
	if res, body := s.get("GET", "/game/101.txt"); res.StatusCode != 200 || !strings.Contains(body, "[Game \"TICTACTOE\"]\n") ||
		!strings.Contains(body, "\n1. b2\n2. a1\n") {
		t.Errorf("/game/101.txt: %d\n%s", res.StatusCode, body)
	}
	if res, body := s.get("GET", "/game/101.sgf"); res.StatusCode != 404 || !strings.Contains(body, "There is no SGF record of") {
		t.Errorf("/game/101.sgf: %d\n%.300s", res.StatusCode, body)
	}
	if _, body := s.get("GET", "/game/101"); strings.Contains(body, ".sgf") || !strings.Contains(body, "/game/101.txt") {
		t.Error("the test game's page links an SGF record, or no text record")
	}
	if res, _ := s.get("GET", "/standings?game=chess"); res.StatusCode != 404 {
		t.Errorf("/standings?game=chess: %d, want 404", res.StatusCode)
	}

	// /play/TOKEN: alice's board mail, her cells to click, a refused and a
	// made move.
	out := s.cmd("alice", "tictactoe show 101")
	local, _, _ := strings.Cut(out[0].MessageID, "@")
	tok := strings.TrimPrefix(local, "lyngk.")
	res, body = s.get("GET", "/play/"+tok)
	if res.StatusCode != 200 || strings.Count(body, "<circle data-p=") != 7 || !strings.Contains(body, "<option>c3</option>") {
		t.Fatalf("play page: %d\n%s", res.StatusCode, body)
	}
	res, body = s.post(tok, url.Values{"move": {"a1"}}, nil)
	if res.StatusCode != 422 || !strings.Contains(body, "a1 is taken") {
		t.Errorf("taken cell: %d\n%s", res.StatusCode, body)
	}
	res, body = s.post(tok, url.Values{"move": {"c3"}}, nil)
	if res.StatusCode != 200 || !strings.Contains(body, "Your move c3 was made.") {
		t.Errorf("move c3: %d\n%s", res.StatusCode, body)
	}
	if _, body := s.get("GET", "/game/101.json"); !strings.Contains(body, `"moves":["b2","a1","c3"]`) {
		t.Errorf("after the move:\n%s", body)
	}
}
