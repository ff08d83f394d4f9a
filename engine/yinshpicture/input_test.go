package yinshpicture

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/yinsh"
)

// TestClicksExamples: the steps of a placement, a ring move, a move with
// its row and ring removed, and removals owed before a move.
func TestClicksExamples(t *testing.T) {
	for _, tc := range []struct{ turn, want string }{
		{"c5", "c5"},
		{"h7-g7", "h7 g7"},
		{"e5-b2;xd5-h5;xe4", "e5 b2 d5|h5 e4"},
		{"xa3-e3;xf9;i8-h7", "a3|e3 f9 i8 h7"},
		{"xc3-c7;xd8;f2-f6;xb5-f5;xa4", "c3|c7 d8 f2 f6 b5|f5 a4"},
	} {
		c, err := Pictures.Clicks(yinsh.Position(yinsh.New(yinsh.Normal)), tc.turn)
		if err != nil {
			t.Fatalf("%s: %v", tc.turn, err)
		}
		var got []string
		for _, s := range c.Steps {
			got = append(got, strings.Join(s, "|"))
		}
		if c.Move != tc.turn || c.From != "" || c.To != "" || strings.Join(got, " ") != tc.want {
			t.Errorf("%s: %+v, want steps %s", tc.turn, c, tc.want)
		}
	}
	for _, bad := range []string{"f2-f6;xa4", "zz9", "--"} {
		if c, err := (Pictures).Clicks(nil, bad); err == nil {
			t.Errorf("%s: %+v, want an error", bad, c)
		}
	}
}

// narrow is the play page's script (templates/web/play.html, the steps
// one) in Go: the moves whose steps hold the points tapped, and among them
// those whose steps are all tapped.
func narrow(moves []games.Click, path []string) (fit, done []games.Click) {
	for _, m := range moves {
		if len(path) > len(m.Steps) {
			continue
		}
		ok := true
		for i, p := range path {
			ok = ok && slices.Contains(m.Steps[i], p)
		}
		if ok {
			fit = append(fit, m)
			if len(m.Steps) == len(path) {
				done = append(done, m)
			}
		}
	}
	return fit, done
}

// TestClicksReachEveryTurn plays 12 random games and checks, in every
// position, that each legal whole turn is made by its clicks as the play
// page narrows them: every point is a spot; after each tap the turn is
// still a candidate and its next point is marked (a point of the next step
// of some candidate); tapping its steps (either end of each row) leaves
// it among the turns whose steps are all tapped: the only turn left (the
// page takes it), or one of the buttons the page shows, beside the marks
// of the turns that go on (rows that share the end tapped: a button for
// each turn the same taps make, which differ in their rows alone).
func TestClicksReachEveryTurn(t *testing.T) {
	spots := map[string]bool{}
	for _, s := range Pictures.Spots(yinsh.Position(yinsh.New(yinsh.Normal))) {
		spots[s.Point] = true
	}
	if len(spots) != yinsh.NumPoints {
		t.Fatalf("%d spots", len(spots))
	}
	var positions, turns, unique, buttons int
	for seed := range uint64(12) {
		rng := rand.New(rand.NewPCG(seed, 24))
		p, err := yinsh.Rules.New(0, "normal")
		if err != nil {
			t.Fatal(err)
		}
		g, _ := yinsh.Of(p)
		for p.Outcome() == games.Playing {
			legal := p.Legal()
			moves := make([]games.Click, len(legal))
			for i, m := range legal {
				if moves[i], err = (Pictures).Clicks(p, m); err != nil {
					t.Fatalf("%s: %v", m, err)
				}
			}
			positions++
			for _, m := range moves {
				turns++
				for end := range 2 {
					var path []string
					for i, step := range m.Steps {
						for _, q := range step {
							if !spots[q] {
								t.Fatalf("%s: %s is no spot", m.Move, q)
							}
						}
						fit, _ := narrow(moves, path)
						marked := false
						for _, f := range fit {
							marked = marked || len(f.Steps) > i && slices.Contains(f.Steps[i], step[min(end, len(step)-1)])
						}
						if !marked {
							t.Fatalf("%s: %s is not marked after %v", m.Move, step[0], path)
						}
						path = append(path, step[min(end, len(step)-1)])
					}
					fit, done := narrow(moves, path)
					if !slices.ContainsFunc(done, func(c games.Click) bool { return c.Move == m.Move }) {
						t.Fatalf("%s: taps %v leave %v", m.Move, path, done)
					}
					switch {
					case len(done) == 1 && len(fit) == 1:
						unique++
					default:
						buttons++
						for _, d := range done {
							if d.Move == m.Move {
								continue
							}
							// Only rows may be told apart by a button: the
							// taps name the same points otherwise.
							if rowless(d.Move) != rowless(m.Move) {
								t.Errorf("%s and %s from the same taps %v", m.Move, d.Move, path)
							}
						}
					}
				}
			}
			if err := g.Apply(g.RandomTurn(rng.IntN)); err != nil {
				t.Fatal(err)
			}
		}
	}
	t.Logf("%d positions, %d legal turns, each tapped twice (either end of a row): %d taken at once, %d from a button", positions, turns, unique, buttons)
	if buttons == 0 || unique < 2*turns*9/10 {
		t.Errorf("%d of %d tap sequences unique, %d needing a button", unique, 2*turns, buttons)
	}
}

// rowless is a turn without its rows: the parts the taps name alone.
func rowless(turn string) string {
	return strings.Join(slices.DeleteFunc(strings.Split(turn, ";"), func(part string) bool {
		return strings.HasPrefix(part, "x") && strings.Contains(part, "-")
	}), ";")
}
