package web_test

import (
	"strings"
	"testing"

	"lyngk.example/lyngk/engine"
)

// TestRobotPlayerPage: a robot level's player page says what it is like to
// play and how long it thinks; a human's says nothing of the kind.
func TestRobotPlayerPage(t *testing.T) {
	s := newSiteWith(t, true, offered(), func(c *engine.Config) {
		c.RobotPlayer, c.RobotLevels = true, engine.RobotLevels
	})
	s.games()
	if out := s.cmd("alice", "lyngk challenge alice robot-novice"); len(out) != 1 || !strings.HasPrefix(out[0].Subject, "New Lyngk Board") {
		t.Fatalf("challenge robot-novice: %+v", out)
	}
	_, body := s.get("GET", "/player/robot-novice")
	want := "<p>A beginner: it sees the obvious and misses the rest. It thinks 100 playouts a move (at most 100ms); challenge it by mail like anybody.</p>"
	if !strings.Contains(body, want) || !strings.Contains(body, "robot-novice <span class=\"muted\">(a robot)</span>") {
		t.Errorf("robot-novice's page without %q:\n%s", want, body)
	}
	if _, body := s.get("GET", "/player/alice"); strings.Contains(body, "It thinks") || strings.Contains(body, "(a robot)") {
		t.Errorf("alice's page reads as a robot's:\n%s", body)
	}
}
