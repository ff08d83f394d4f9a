package engine_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/store"
	"lyngk.example/lyngk/templates"
)

// withLevels turns the robot players on with the levels named, from
// engine.RobotLevels.
func withLevels(ids ...string) func(*engine.Config) {
	return func(c *engine.Config) {
		c.RobotPlayer, c.RobotLevels = true, nil
		for _, l := range engine.RobotLevels {
			for _, id := range ids {
				if l.ID == id {
					c.RobotLevels = append(c.RobotLevels, l)
				}
			}
		}
	}
}

// readPlayer is the read API's player id in LYNGK.
func (v *env) readPlayer(id string) engine.Player {
	v.t.Helper()
	var p engine.Player
	if err := v.db.View(func(tx *store.Tx) (err error) {
		p, err = v.e.ReadPlayer(tx, id, "lyngk")
		return err
	}); err != nil {
		v.t.Fatal(err)
	}
	return p
}

// TestRobotLevelsPlay: each level on is a player of its own. alice
// challenges it, moves by mail, the game waits for that level with its
// own budget, the level answers, alice resigns, and the level's rating
// (and only its) changes; the player page tells its level.
func TestRobotLevelsPlay(t *testing.T) {
	v := newEnv(t, withLevels("robot-novice", "robot", "robot-max"))
	v.signup("alice")
	for i, id := range []string{"robot-novice", "robot", "robot-max"} {
		board := 101 + i
		out := v.cmd(addr("alice"), "lyngk challenge alice "+id)
		if len(out) != 1 || !strings.HasPrefix(out[0].Subject, "New Lyngk Board") {
			t.Fatalf("challenge %s:\n%s", id, format(out))
		}
		pos := lyngk.New(board, lyngk.Standard)
		m := pos.Legal(nil)[0]
		out = v.reply(out[0], addr("alice"), m.String())
		if len(out) != 1 {
			t.Fatalf("alice's move against %s:\n%s", id, format(out))
		}
		if err := pos.Apply(m); err != nil {
			t.Fatal(err)
		}
		ts := v.robotTurns()
		if len(ts) != 1 || ts[0].Board != board || ts[0].Level.ID != id {
			t.Fatalf("robot turns after alice's move against %s: %+v", id, ts)
		}
		var want engine.RobotLevel
		for _, l := range engine.RobotLevels {
			if l.ID == id {
				want = l
			}
		}
		if ts[0].Level.Think != want.Think || ts[0].Level.CPU != want.CPU {
			t.Errorf("%s thinks %+v (at most %v), want %+v (%v)", id, ts[0].Level.Think, ts[0].Level.CPU, want.Think, want.CPU)
		}
		before := v.readPlayer(id)
		out = v.robotMove(ts[0], pos.Legal(nil)[0])
		if len(out) != 1 || !strings.Contains(out[0].Body, id) {
			t.Fatalf("%s's move:\n%s", id, format(out))
		}
		out = v.cmd(addr("alice"), "lyngk resign "+strconv.Itoa(board)+" alice pw-alice")
		if len(out) != 1 || !strings.Contains(out[0].Body, id+"'s rating is") {
			t.Fatalf("alice resigns to %s:\n%s", id, format(out))
		}
		after := v.readPlayer(id)
		if !after.Robot || after.Won != 1 || after.Rating <= before.Rating {
			t.Errorf("%s after its win: %+v (before %+v)", id, after, before)
		}
		if after.About != want.About || after.Budget != want.Budget() {
			t.Errorf("%s's page: about %q, budget %q", id, after.About, after.Budget)
		}
	}
	for _, id := range []string{"robot-novice", "robot", "robot-max"} {
		if p := v.readPlayer(id); p.Won != 1 || p.Games() != 1 {
			t.Errorf("%s: %d games, %d won: each level is rated on its own", id, p.Games(), p.Won)
		}
	}
}

// TestRobotLevelsRefused: a level the operator did not choose is refused
// by name, with the levels on; an unknown userid that looks like one is
// an unknown userid; with the robots off every level is unknown; two
// robots may not play each other.
func TestRobotLevelsRefused(t *testing.T) {
	v := newEnv(t, withLevels("robot-novice", "robot"))
	v.signup("alice")
	tests := []struct{ cmd, want string }{
		{"lyngk challenge alice robot-max", "robot-max is a robot this server does not offer: challenge robot-novice or\nrobot instead (\"help robot\" tells them apart)."},
		{"lyngk challenge ROBOT-CLUB alice", "ROBOT-CLUB is a robot this server does not offer"},
		{"lyngk challenge alice robot-foo", `There is no user "robot-foo".`},
		{"lyngk challenge robot-novice robot", "robot-novice and robot are both robots, and a robot plays only people:\nchallenge one of them yourself."},
	}
	for _, tt := range tests {
		out := v.cmd(addr("alice"), tt.cmd)
		if len(out) != 1 || !strings.Contains(out[0].Body, tt.want) || !strings.Contains(out[0].Subject, "rror") {
			t.Errorf("%s:\n%s\nwant %q", tt.cmd, format(out), tt.want)
		}
	}
	if d := v.dump("games", "robot"); strings.Contains(d, "games/") || strings.Contains(d, "robot/") {
		t.Errorf("a refused challenge left a game:\n%s", d)
	}
	off := newEnv(t)
	off.signup("alice")
	if out := off.cmd(addr("alice"), "lyngk challenge alice robot-max"); len(out) != 1 || !strings.Contains(out[0].Body, `There is no user "robot-max".`) {
		t.Errorf("a level with the robots off:\n%s", format(out))
	}
}

// TestRobotLevelHumanKeeps: a human who signed up as robot-club before the
// operator turned that level on keeps the userid: a challenge of it is a
// game against him, no robot is waited for, help robot leaves the level
// out, and nobody may sign up as a level that is on.
func TestRobotLevelHumanKeeps(t *testing.T) {
	v := newEnv(t, withLevels("robot"))
	v.signup("alice", "robot-club")
	v.cfg = newEnv(t, withLevels("robot-novice", "robot-club", "robot")).cfg
	v.restart()
	out := v.cmd(addr("alice"), "lyngk challenge robot-club alice")
	if len(out) != 2 || out[0].To[0] != addr("robot-club") && out[1].To[0] != addr("robot-club") {
		t.Fatalf("challenge of the human robot-club: mails\n%s", format(out))
	}
	if ts := v.robotTurns(); len(ts) != 0 {
		t.Errorf("a human's game waits for a robot: %+v", ts)
	}
	if p := v.readPlayer("robot-club"); p.Robot || p.About != "" {
		t.Errorf("the human robot-club reads as a robot: %+v", p)
	}
	out = v.cmd(addr("alice"), "help robot")
	if len(out) != 1 || strings.Contains(out[0].Body, "robot-club") || !strings.Contains(out[0].Body, "robot-novice") {
		t.Errorf("help robot with robot-club a human:\n%s", format(out))
	}
	out = v.cmd(addr("mallory"), "signup robot-novice secret mallory@players.example")
	if len(out) != 1 || !strings.Contains(out[0].Body, "taken") {
		t.Errorf("signup as a level on:\n%s", format(out))
	}
}

// TestHelpRobot: help robot names every level on with its thinking and its
// challenge, and the help and welcome mails point to it; with the robots
// off it says there are none.
func TestHelpRobot(t *testing.T) {
	v := newEnv(t, withLevels(ids(engine.RobotLevels)...))
	out := v.cmd(addr("zed"), "help robot")
	out = append(out, v.cmd(addr("zed"), "help")...)
	signup := v.cmd(addr("carol"), "signup carol pw-carol")
	if len(signup) != 1 {
		t.Fatalf("signup: %s", format(signup))
	}
	out = append(out, v.confirm(signup[0])...)
	off := newEnv(t)
	out = append(out, off.cmd(addr("zed"), "help robot")...)
	checkGolden(t, "help-robot", format(out))
}

// ids are the userids of levels.
func ids(ls []engine.RobotLevel) []string {
	var out []string
	for _, l := range ls {
		out = append(out, l.ID)
	}
	return out
}

// TestOverrideOldRobotField: a template override of old that still names
// the server's address {{.Robot}} fails to render the welcome mail, with
// the levels on as before them, rather than showing a robot's userid (the
// suggested robot is Suggested).
func TestOverrideOldRobotField(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("..", "templates", "account.tmpl"))
	if err != nil {
		t.Fatal(err)
	}
	old := strings.Replace(string(src), "You are signed up at {{server}}, {{.Server}}.", "You are signed up at {{server}}, {{.Robot}}.", 1)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "account.tmpl"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := templates.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	v := newEnv(t, withLevels(ids(engine.RobotLevels)...), func(c *engine.Config) { c.Templates = set })
	ask := v.cmd(addr("alice"), "signup alice pw-alice")
	if len(ask) != 1 {
		t.Fatalf("signup: %s", format(ask))
	}
	_, failed := v.mailFailing(engine.Inbound{From: addr("alice"), Subject: "Re: " + ask[0].Subject, Body: "yes\n",
		InReplyTo: []string{ask[0].MessageID}, MessageID: "confirm@players.example"})
	if failed == nil || !strings.Contains(failed.Error(), "Robot") {
		t.Errorf("the welcome mail of an override naming {{.Robot}}: %v", failed)
	}
}
