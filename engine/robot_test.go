package engine_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/store"
)

func withRobot(c *engine.Config) { c.RobotPlayer = true }

// robotTurns lists the games waiting for the robot.
func (v *env) robotTurns() []engine.RobotTurn {
	v.t.Helper()
	var ts []engine.RobotTurn
	if err := v.db.View(func(tx *store.Tx) (err error) {
		ts, err = v.e.RobotTurns(tx)
		return err
	}); err != nil {
		v.t.Fatal(err)
	}
	return ts
}

// robotMove plays m for the robot in its own transaction.
func (v *env) robotMove(t engine.RobotTurn, m games.Move) []engine.Mail {
	v.t.Helper()
	var out []engine.Mail
	if err := v.db.Update(func(tx *store.Tx) (err error) {
		out, err = v.e.RobotMove(tx, t, m, v.now)
		return err
	}); err != nil {
		v.t.Fatal(err)
	}
	if !v.hold {
		out = append(out, v.reviews()...)
	}
	v.now = v.now.Add(time.Second)
	return out
}

// TestRobotWholeGame: alice challenges the robot and plays a whole game
// against it. The robot gets no mail; the game waits for it exactly while
// it is its turn; a stale move (the game moved on) is dropped; the game is
// rated and the robot appears in the standings; it never times out.
func TestRobotWholeGame(t *testing.T) {
	v := newEnv(t, withRobot)
	v.signup("alice")
	out := v.cmd(addr("alice"), "lyngk challenge alice robot")
	if len(out) != 1 || out[0].Subject != "New Lyngk Board 101 alice" || !slices.Equal(out[0].To, []string{addr("alice")}) {
		t.Fatalf("new game mails:\n%s", format(out))
	}
	if ts := v.robotTurns(); len(ts) != 0 {
		t.Fatalf("robot to move at alice's turn: %+v", ts)
	}
	pos := lyngk.New(101, lyngk.Standard)
	for moves := 0; pos.Status() == games.Playing; moves++ {
		m := pos.Legal(nil)[0]
		if pos.Turn() == 1 {
			out = v.cmd(addr("alice"), "lyngk move 101 alice pw-alice "+m.String())
			if len(out) != 1 || !slices.Equal(out[0].To, []string{addr("alice")}) {
				t.Fatalf("alice's move %s: mails\n%s", m, format(out))
			}
		} else {
			ts := v.robotTurns()
			if len(ts) != 1 || ts[0].Board != 101 || ts[0].Position.Board([2]string{}) != pos.Board([2]string{}) {
				t.Fatalf("move %d: robot turns %+v", moves, ts)
			}
			if moves == 1 {
				// Thirty days of waiting: neither a reminder nor a forfeit.
				v.now = v.now.Add(30 * day)
				if out := v.tick(); len(out) != 0 {
					t.Fatalf("timer mails for the robot:\n%s", format(out))
				}
			}
			out = v.robotMove(ts[0], m)
			if len(out) != 1 || !slices.Equal(out[0].To, []string{addr("alice")}) || out[0].AutoSubmitted != "auto-generated" {
				t.Fatalf("robot's move %s: mails\n%s", m, format(out))
			}
			if again := v.robotMove(ts[0], m); len(again) != 0 {
				t.Fatalf("the same robot move applied twice:\n%s", format(again))
			}
		}
		if err := pos.Apply(m); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out[0].Body, pos.Board([2]string{"alice", "robot"})) {
			t.Fatalf("board mail after %s:\n%s", m, out[0].Body)
		}
	}
	if ts := v.robotTurns(); len(ts) != 0 {
		t.Fatalf("robot turns after the end: %+v", ts)
	}
	if !strings.Contains(out[0].Body, "robot's rating is") {
		t.Errorf("game-over mail without the robot's rating:\n%s", out[0].Body)
	}
	// A chat in a game against the robot reaches nobody: no mail without
	// a recipient, and the sender is told so in one line, not sent a copy.
	if out := v.mail(engine.Inbound{From: addr("alice"), Subject: "lyngk chat 101 alice pw-alice", Body: "good game\n"}); len(out) != 1 ||
		out[0].Body != "Your chat about Lyngk Board 101 reached nobody: no other player\nor watcher gets mail.\n" {
		t.Errorf("chat to the robot:\n%s", format(out))
	}
	out = v.cmd(addr("alice"), "lyngk standings")
	if len(out) != 1 || !strings.Contains(out[0].Body, "robot") || !strings.Contains(out[0].Body, "alice") {
		t.Fatalf("standings:\n%s", format(out))
	}
}

// TestRobotFirst: `lyngk challenge robot alice` has the robot move first;
// stack6 too.
func TestRobotFirst(t *testing.T) {
	v := newEnv(t, withRobot)
	v.signup("alice")
	out := v.cmd(addr("alice"), "lyngk challenge -stack6 robot alice")
	if len(out) != 1 || out[0].Subject != "New Lyngk Board 101 robot" {
		t.Fatalf("new game mails:\n%s", format(out))
	}
	ts := v.robotTurns()
	want := lyngk.New(101, lyngk.Stack6)
	if len(ts) != 1 || ts[0].Position.Board([2]string{}) != want.Board([2]string{}) {
		t.Fatalf("robot turns: %+v", ts)
	}
	m := want.Legal(nil)[0]
	out = v.robotMove(ts[0], m)
	if len(out) != 1 || out[0].Subject != "Lyngk Board 101 alice" {
		t.Fatalf("after the robot's move:\n%s", format(out))
	}
	// The robot cannot be logged into, nor signed up for.
	if out := v.cmd(addr("alice"), "lyngk move 101 robot x "+m.String()); len(out) != 1 || !strings.HasPrefix(out[0].Body, "Wrong password for robot.") {
		t.Errorf("move as the robot:\n%s", format(out))
	}
	if out := v.cmd(addr("mallory"), "signup robot secret"); len(out) != 1 || !strings.Contains(out[0].Body, "taken") {
		t.Errorf("signup robot:\n%s", format(out))
	}
}

// TestRobotOff: with the robot off, "robot" is an unknown userid, and free
// to sign up; that human account never counts as the robot.
func TestRobotOff(t *testing.T) {
	v := newEnv(t)
	v.signup("alice")
	if out := v.cmd(addr("alice"), "lyngk challenge alice robot"); len(out) != 1 || !strings.Contains(out[0].Body, "robot") ||
		!strings.Contains(out[0].Subject, "rror") {
		t.Fatalf("challenge with the robot off:\n%s", format(out))
	}
	v.signup("robot")
	v.cmd(addr("alice"), "lyngk challenge robot alice")
	if ts := v.robotTurns(); len(ts) != 0 {
		t.Fatalf("a human called robot is waited for: %+v", ts)
	}
}

// TestRobotTakeBackAndDraw: the robot takes back its opponent's move at
// once, which makes the move it was thinking about stale, even when the
// game comes back to the same length; it accepts a draw at an even count.
func TestRobotTakeBackAndDraw(t *testing.T) {
	v := newEnv(t, withRobot)
	v.signup("alice")
	v.cmd(addr("alice"), "lyngk challenge alice robot")
	pos := lyngk.New(101, lyngk.Standard)
	legal := pos.Legal(nil)
	v.cmd(addr("alice"), "lyngk move 101 alice pw-alice "+legal[0].String())
	stale := v.robotTurns()
	out := v.cmd(addr("alice"), "lyngk move 101 alice pw-alice undo")
	if len(out) != 1 || !strings.Contains(out[0].Body, "robot accepted: move 1") || !strings.Contains(out[0].Body, "Please start the game alice.") {
		t.Fatalf("take-back:\n%s", format(out))
	}
	v.cmd(addr("alice"), "lyngk move 101 alice pw-alice "+legal[1].String())
	h := pos
	if err := h.Apply(legal[1]); err != nil {
		t.Fatal(err)
	}
	if out := v.robotMove(stale[0], h.Legal(nil)[0]); len(out) != 0 {
		t.Fatalf("a move thought before the take-back was played:\n%s", format(out))
	}
	// The robot has not moved yet: the agreed draw cancels the game.
	out = v.cmd(addr("alice"), "lyngk move 101 alice pw-alice propose")
	if len(out) != 1 || !strings.Contains(out[0].Body, "robot accepted the draw offered by alice") || !strings.Contains(out[0].Body, "Game cancelled.") {
		t.Fatalf("draw offer:\n%s", format(out))
	}
	if ts := v.robotTurns(); len(ts) != 0 {
		t.Fatalf("robot turns after the draw: %+v", ts)
	}
}
