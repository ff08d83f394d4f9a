package web_test

import (
	"log/slog"
	"slices"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/record"
	"lyngk.example/lyngk/engine/web"
	"lyngk.example/lyngk/engine/yinsh"
)

// TestRecords: a YINSH game's records on the web. /game/N.txt and
// /game/N.sgf serve the whole game, which reads back and replays to the
// moves the game page lists; after=K is refused, an unknown board is 404.
// Once alice resigns, /player/alice/games.sgf holds the game with its
// Resign node; an unknown player is 404.
func TestRecords(t *testing.T) {
	gs := append(offered(), games.Game{Rules: yinsh.Rules})
	s := newSiteOf(t, true, gs)
	h, err := web.New(web.Config{DB: s.db, Engine: s.e, Public: true, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	s.h = h
	for _, n := range []string{"alice", "bob"} {
		out := s.cmd(n, "signup "+n+" pw-"+n)
		s.mail(engine.Inbound{From: out[0].To[0], Subject: "Re: " + out[0].Subject, Body: "yes\n", InReplyTo: []string{out[0].MessageID}})
	}
	s.cmd("alice", "yinsh challenge alice bob")
	names := [2]string{"alice", "bob"}
	for i, turn := range yinshTurns {
		user := names[i%2]
		if out := s.cmd(user, "yinsh move 101 "+user+" pw-"+user+" "+turn); len(out) != 2 {
			t.Fatalf("%s: %+v", turn, out)
		}
	}
	readBack := func(body string, sgf bool) record.Record {
		t.Helper()
		var r record.Record
		if sgf {
			rs, err := record.ReadSGF([]byte(body), gs)
			if err != nil || len(rs) != 1 {
				t.Fatalf("%v, %d games\n%s", err, len(rs), body)
			}
			r = rs[0]
		} else if r, err = record.ReadText([]byte(body), gs); err != nil {
			t.Fatalf("%v\n%s", err, body)
		}
		_, moves, err := record.Replay(yinsh.Rules, r)
		if err != nil {
			t.Fatal(err)
		}
		if r.Players != names || r.Board != 101 || !slices.Equal(moves, yinshTurns) {
			t.Errorf("read back %v board %d, moves %v", r.Players, r.Board, moves)
		}
		return r
	}
	res, body := s.get("GET", "/game/101.txt")
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/plain; charset=utf-8" ||
		!strings.HasPrefix(body, "[Game \"YINSH\"]\n[Board \"101\"]\n[White \"alice\"]\n[Black \"bob\"]\n") ||
		!strings.Contains(body, "\n31. e5-b2;xd5-h5;xe4\n") {
		t.Fatalf("/game/101.txt: %d %v\n%s", res.StatusCode, res.Header, body)
	}
	if r := readBack(body, false); r.Result != record.Unknown {
		t.Errorf("a running game's result %q", r.Result)
	}
	res, body = s.get("GET", "/game/101.sgf")
	if res.StatusCode != 200 || res.Header.Get("Content-Disposition") != `inline; filename="yinsh-101.sgf"` ||
		!strings.Contains(body, "GM[24]\nSU[Yinsh]\n") || !strings.Contains(body, "P0[id \"alice\"]") {
		t.Fatalf("/game/101.sgf: %d %v\n%s", res.StatusCode, res.Header, body)
	}
	readBack(body, true)
	for target, status := range map[string]int{"/game/101.sgf?after=3": 400, "/game/999.txt": 404, "/game/x.sgf": 400,
		"/player/nobody/games.sgf": 404} {
		if res, body := s.get("GET", target); res.StatusCode != status {
			t.Errorf("%s: %d, want %d\n%s", target, res.StatusCode, status, body)
		}
	}
	if _, body := s.get("GET", "/player/alice/games.sgf"); body != "" {
		t.Errorf("a collection of no finished game: %q", body)
	}
	s.cmd("alice", "yinsh resign 101 alice pw-alice")
	res, body = s.get("GET", "/player/alice/games.sgf")
	if res.StatusCode != 200 || !strings.Contains(body, "Resign ]") || !strings.Contains(body, "RE[Game won by bob]") {
		t.Fatalf("/player/alice/games.sgf: %d\n%s", res.StatusCode, body)
	}
	if r := readBack(strings.Replace(body, "; P0[67 Resign ]\n; P0[68 Done ]\n", "", 1), true); r.Result != record.BlackWon {
		t.Errorf("result %q", r.Result)
	}
	if _, page := s.get("GET", "/game/101"); !strings.Contains(page, `Record: <a href="/game/101.txt">text</a> · <a href="/game/101.sgf">SGF</a>`) {
		t.Error("the game page does not link its records")
	}
}
