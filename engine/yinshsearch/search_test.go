package yinshsearch

import (
	"context"
	"testing"

	"lyngk.example/lyngk/engine/mcts"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/yinsh"
)

// position plays the random game of seed 1 for n turns.
func position(t testing.TB, n int) yinsh.Game {
	g := yinsh.New(yinsh.Normal)
	r := rng(1)
	for range n {
		if err := g.Apply(g.RandomTurn(r.intn)); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// TestDeterministic: for the previous robot (Baseline), a seed and an
// iteration budget give the same turn and the same count of playouts, on
// one worker and on two; the turn is legal.
func TestDeterministic(t *testing.T) {
	for _, n := range []int{0, 30} {
		for _, workers := range []int{1, 2} {
			g := position(t, n)
			o := mcts.Options{Iterations: 400, Workers: workers, Seed: 42}
			first, err := baseline.Search(context.Background(), &g, o)
			if err != nil {
				t.Fatal(err)
			}
			again, err := baseline.Search(context.Background(), &g, o)
			if err != nil || again != first {
				t.Fatalf("%d turns in, %d workers: %+v then %+v (%v)", n, workers, first, again, err)
			}
			if first.Playouts != o.Iterations {
				t.Errorf("%d playouts, want %d", first.Playouts, o.Iterations)
			}
			h := g
			if err := h.Apply(first.Move); err != nil {
				t.Error(err)
			}
		}
	}
}

// searchFunc is the Search of either robot.
type searchFunc func(context.Context, *yinsh.Game, mcts.Options) (mcts.Result[yinsh.Turn], error)

// TestTakesWin: in blitz, wherever a turn makes the mover's row (and so
// wins), the robot and the previous one play a winning turn: the first ten
// such positions of random blitz games.
func TestTakesWin(t *testing.T) {
	for name, search := range map[string]searchFunc{"robot": Robot.Search, "baseline": baseline.Search} {
		t.Run(name, func(t *testing.T) { takesWin(t, search) })
	}
}

func takesWin(t *testing.T, search searchFunc) {
	found := 0
	for seed := uint64(1); found < 10; seed++ {
		g := yinsh.New(yinsh.Blitz)
		r := rng(seed)
		for g.Status() == games.Playing && found < 10 {
			wins := false
			for _, tn := range g.Legal(nil) {
				wins = wins || tn.NPost > 0
			}
			if wins {
				found++
				res, err := search(context.Background(), &g, mcts.Options{Iterations: 300, Seed: seed})
				if err != nil {
					t.Fatal(err)
				}
				h := g
				if err := h.Apply(res.Move); err != nil || h.Winner() != g.Turn() {
					t.Errorf("seed %d: %s does not win (%v)", seed, res.Move, err)
				}
			}
			if err := g.Apply(g.RandomTurn(r.intn)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestIterateAllocs: the inner loop of the search allocates nothing.
func TestIterateAllocs(t *testing.T) {
	g := position(t, 30)
	tr := baseline.Tree(&g, 1, 0)
	if a := testing.AllocsPerRun(300, tr.Iterate); a != 0 {
		t.Errorf("%v allocations per iteration", a)
	}
}

// TestRobotContract: the robot and the previous one, through the game
// contract, play a legal turn, deterministically for a seed, within the
// budget; they accept a draw unless ahead in rings removed.
func TestRobotContract(t *testing.T) {
	for name, r := range map[string]games.Robot{"robot": Robot, "baseline": Baseline()} {
		t.Run(name, func(t *testing.T) { robotContract(t, r) })
	}
}

func robotContract(t *testing.T, robot games.Robot) {
	p, err := yinsh.Rules.New(1, "normal")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"e3", "a5", "b5", "c6", "d6", "e4", "h7", "g2", "g3", "g8"} {
		m, _, err := p.Parse(s)
		if err == nil {
			err = p.Play(m)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	o := games.Think{Playouts: 300, Workers: 2, Seed: 5}
	th, err := robot.Think(context.Background(), p, o)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := robot.Think(context.Background(), p, o)
	if th.Move.String() != again.Move.String() || th.Playouts > 300 || th.Playouts != again.Playouts {
		t.Errorf("%v (%d playouts) then %v", th.Move, th.Playouts, again.Move)
	}
	if err := p.Clone().Play(th.Move); err != nil {
		t.Errorf("robot's %v: %v", th.Move, err)
	}
	if !robot.AcceptDraw(p, 1) {
		t.Error("refuses a draw when even")
	}
}
