package engine_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
)

// reference returns the body of a gamerz reference mail in
// testdata/reference/ (the text after the header block) and its subject.
func reference(t *testing.T, name string) (subject, body string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "reference", name))
	if err != nil {
		t.Fatalf("reference mail: %v", err)
	}
	head, body, _ := strings.Cut(string(b), "\n\n")
	for _, l := range strings.Split(head, "\n") {
		if s, ok := strings.CutPrefix(l, "Subject: "); ok {
			subject = s
		}
	}
	return subject, body
}

// Our own last lines of a board mail to a player: how to move,
// or whose turn it is.
const (
	howToMove = "To move, reply with your move, like G,c1-d1 (send \"help notation\").\n"
	notYours  = "It is alice's turn, not yours: you get a mail when alice has moved.\n"
)

// TestReferenceMails reproduces the gamerz mails of board 148 byte for byte,
// but for the line a mail to a player ends its game with: how to move, or
// whose turn it is, which gamerz had not.
func TestReferenceMails(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob", "carol", "dave")
	for range 148 - 101 {
		v.cmd(addr("carol"), "lyngk challenge carol dave")
		v.now = v.now.Add(24 * 60 * 60e9) // within dave's mails a day he did not ask for
	}
	out := v.cmd(addr("alice"), "lyngk challenge alice bob")
	subject, body := reference(t, "new-game.txt")
	if body += howToMove; out[0].Subject != subject || out[0].Body != body {
		t.Errorf("new game mail differs from new-game.txt: subject %q, want %q\n%s", out[0].Subject, subject, diff(body, out[0].Body))
	}
	out = v.mail(engine.Inbound{From: addr("bob"), Subject: "x", Body: "lyngk move 148 bob pw-bob e4-e5\n"})
	subject, body = reference(t, "error-not-your-move.txt")
	// gamerz quoted no command line; we quote the command after the subject.
	game, quote, _ := strings.Cut(body, "\n\n\nOriginal message follows:")
	body = game + "\n" + notYours + "\n\nOriginal message follows:" + quote
	if len(out) != 1 || out[0].Subject != subject || out[0].Body != body+">lyngk move 148 bob pw-bob e4-e5\n" {
		t.Errorf("error mail differs from error-not-your-move.txt:\n%s", diff(body, out[0].Body))
	}
}

// playOut plays board on with seeded random moves by full commands until the
// game ends, and returns the last mails.
func (v *env) playOut(board int, names [2]string, seed uint64) []engine.Mail {
	v.t.Helper()
	pos := lyngk.New(board, lyngk.Standard)
	rng := rand.New(rand.NewPCG(seed, 0))
	var out []engine.Mail
	for pos.Status() == games.Playing {
		name := names[pos.Turn()-1]
		m := pick(rng, &pos)
		out = v.cmd(addr(name), fmt.Sprintf("lyngk move %d %s pw-%s %s", board, name, name, m))
		if err := pos.Apply(m); err != nil {
			v.t.Fatal(err)
		}
		v.now = v.now.Add(37 * 60e9)
	}
	return out
}

// TestMails pins every kind of mail in a golden file.
func TestMails(t *testing.T) {
	type step struct {
		from, subject, body string
	}
	tests := []struct {
		name  string
		setup []string // commands from alice before the step, in the subject
		step  step
		tie   bool
	}{
		{name: "help", step: step{"zoe@elsewhere.example", "help", ""}},
		{name: "help-commands", step: step{"zoe@elsewhere.example", "help commands", ""}},
		{name: "help-notation", step: step{"zoe@elsewhere.example", "HELP notation", ""}},
		{name: "help-rules", step: step{"zoe@elsewhere.example", "help rules", ""}},
		{name: "signup", step: step{"zoe@elsewhere.example", "signup zoe secret zoe@home.example ZOE@Work.Example", ""}},
		{name: "signup-to-sender", step: step{"zoe@elsewhere.example", "Signup Zoe secret", ""}},
		{name: "change-password", step: step{addr("alice"), "change password alice pw-alice new-pw", ""}},
		{name: "change-address", step: step{addr("alice"), "change address alice pw-alice alice@new.example", ""}},
		{name: "new-game", step: step{addr("carol"), "lyngk challenge alice bob", ""}},
		{name: "new-game-stack6", step: step{addr("carol"), "lyngk challenge alice -s bob", ""}},
		{name: "move", setup: []string{"lyngk challenge alice bob"},
			step: step{addr("alice"), "lyngk move 101 alice pw-alice G,f5-f4", ""}},
		{name: "move-comment", setup: []string{"lyngk challenge alice bob"},
			step: step{addr("alice"), "my move", "lyngk move 101 alice pw-alice G,f5-f4\n\nYour turn, Bob.\nGood luck!\n\n-- \nAlice\n"}},
		{name: "resign", setup: []string{"lyngk challenge alice bob", "lyngk move 101 alice pw-alice G,f5-f4", "lyngk move 101 bob pw-bob b1-b2"},
			step: step{addr("bob"), "lyngk resign 101 bob pw-bob", "Well played.\n"}},
		{name: "resign-out-of-turn", setup: []string{"lyngk challenge alice bob", "lyngk move 101 alice pw-alice G,f5-f4", "lyngk move 101 bob pw-bob b1-b2"},
			step: step{addr("bob"), "lyngk move 101 bob pw-bob resign", ""}},
		{name: "resign-before-moves", setup: []string{"lyngk challenge alice bob", "lyngk move 101 alice pw-alice G,f5-f4"},
			step: step{addr("alice"), "lyngk resign 101 alice pw-alice", ""}},
		{name: "decline", setup: []string{"lyngk challenge alice bob", "lyngk move 101 alice pw-alice G,f5-f4"},
			step: step{addr("bob"), "lyngk decline 101 bob pw-bob", "Sorry, no time.\n"}},
		{name: "decline-first", setup: []string{"lyngk challenge alice bob"},
			step: step{addr("alice"), "lyngk move 101 alice pw-alice decline", ""}},
		{name: "signoff", setup: []string{"lyngk challenge alice bob", "lyngk challenge bob alice"},
			step: step{addr("alice"), "signoff alice pw-alice", ""}},
		{name: "show", setup: []string{"lyngk challenge alice bob", "lyngk move 101 alice pw-alice G,f5-f4"},
			step: step{addr("alice"), "lyngk show 101", ""}},
		{name: "show-historic", setup: []string{"lyngk challenge alice bob", "lyngk move 101 alice pw-alice G,f5-f4"},
			step: step{"zoe@elsewhere.example", "lyngk show 101#0 101#1", ""}},
		{name: "show-user", setup: []string{"lyngk challenge alice bob", "lyngk challenge carol alice", "lyngk challenge bob carol"},
			step: step{"zoe@elsewhere.example", "lyngk show alice", ""}},
		{name: "show-user-none", step: step{"zoe@elsewhere.example", "lyngk show alice next", ""}},
		{name: "games", setup: []string{"lyngk challenge alice bob", "lyngk challenge -stack6 carol alice", "lyngk challenge bob carol", "lyngk resign 103 carol pw-carol"},
			step: step{"zoe@elsewhere.example", "lyngk games", ""}},
		{name: "games-next", setup: []string{"lyngk challenge alice bob", "lyngk challenge carol alice", "lyngk challenge bob carol"},
			step: step{"zoe@elsewhere.example", "lyngk games alice next", ""}},
		{name: "games-none", step: step{"zoe@elsewhere.example", "lyngk games", ""}},
		{name: "multiple", step: step{"zoe@elsewhere.example", "multiple", "signup zoe pw\nlyngk challenge zoe alice\nlyngk games zoe\n\nHi Alice!\n"}},
		{name: "game-over-won"},
		{name: "game-over-tie", tie: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v := newEnv(t)
			v.signup("alice", "bob", "carol")
			if strings.HasPrefix(tt.name, "show-") || strings.HasPrefix(tt.name, "games") {
				// zoe watches from her account's confirmed address: a
				// stranger gets no listing (TestStrangerNoListings), and
				// one mail per incoming mail at most.
				v.signupAt("zoe@elsewhere.example", "zoe", "pw-zoe")
			}
			for _, c := range tt.setup {
				from := addr("alice")
				if f := strings.Fields(c); len(f) > 3 {
					from = addr(f[3])
				}
				v.cmd(from, c)
			}
			var out []engine.Mail
			switch {
			case tt.name == "game-over-won":
				v.cmd(addr("carol"), "lyngk challenge alice bob")
				out = v.playOut(101, [2]string{"alice", "bob"}, 7)
			case tt.tie:
				v.cmd(addr("carol"), "lyngk challenge alice bob")
				out = v.playOut(101, [2]string{"alice", "bob"}, 13)
			default:
				out = v.mail(engine.Inbound{From: tt.step.from, Subject: tt.step.subject, Body: tt.step.body})
			}
			checkGolden(t, tt.name, format(out))
		})
	}
}
