package web_test

import (
	"log/slog"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/web"
	"lyngk.example/lyngk/engine/yinsh"
	"lyngk.example/lyngk/engine/yinshsearch"
)

// TestReviewPage: with Config.Review, a finished game's page asks for the
// robot's review and says it is being made; once made (the Reviewed
// hook), the page shows its chart, one point a position, and the loser's
// costliest moves, each linked to its position with the robot's move. A
// running game's page has none.
func TestReviewPage(t *testing.T) {
	gs := append(offered(), games.Game{Rules: yinsh.Rules, Robot: yinshsearch.Robot})
	s := newSiteOf(t, true, gs)
	made := make(chan int, 4)
	h, err := web.New(web.Config{DB: s.db, Engine: s.e, Public: true, Log: slog.New(slog.DiscardHandler), Review: true,
		Reviewed: func(board int) { made <- board }})
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
		s.cmd(names[i%2], "yinsh move 101 "+names[i%2]+" pw-"+names[i%2]+" "+turn)
	}
	if _, body := s.get("GET", "/game/101"); strings.Contains(body, "review") {
		t.Error("a running game's page has a review")
	}
	s.cmd("bob", "yinsh resign 101 bob pw-bob")
	if _, body := s.get("GET", "/game/101"); !strings.Contains(body, "The robot is reviewing this game") {
		t.Fatalf("the page of a game just over:\n%s", body)
	}
	select {
	case b := <-made:
		if b != 101 {
			t.Fatalf("reviewed %d", b)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("no review made")
	}
	_, body := s.get("GET", "/game/101")
	_, svg, _ := strings.Cut(body, `<svg class="chart"`)
	svg, _, _ = strings.Cut(svg, "</svg>")
	_, pts, _ := strings.Cut(svg, `<polyline points="`)
	pts, _, _ = strings.Cut(pts, `"`)
	if n := len(strings.Fields(pts)); n != len(yinshTurns)+1 {
		t.Errorf("the chart has %d points for %d moves:\n%s", n, len(yinshTurns), svg)
	}
	if !strings.Contains(body, "<h2>The robot's review</h2>") || !strings.Contains(body, "bob's costliest moves:") ||
		!strings.Contains(body, `<li><a href="/game/101?after=`) || !strings.Contains(body, "where the robot plays") ||
		strings.Contains(body, "is reviewing") {
		t.Errorf("the reviewed page:\n%s", body)
	}
}
