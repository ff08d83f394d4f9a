package review_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/internal/cputime"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/engine/lyngksearch"
	"lyngk.example/lyngk/engine/record"
	"lyngk.example/lyngk/engine/review"
	"lyngk.example/lyngk/engine/yinsh"
	"lyngk.example/lyngk/engine/yinshsearch"
)

var both = []games.Game{{Rules: lyngk.Rules, Robot: lyngksearch.Robot}, {Rules: yinsh.Rules, Robot: yinshsearch.Robot}}

// load reads and replays a record of testdata: the game, its start and
// its record as the game keeps it (the terminal entry left out).
func load(t testing.TB, name string) (games.Game, games.Position, []string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var r record.Record
	if filepath.Ext(name) == ".sgf" {
		rs, err := record.ReadSGF(data, both)
		if err != nil {
			t.Fatal(err)
		}
		r = rs[0]
	} else if r, err = record.ReadText(data, both); err != nil {
		t.Fatal(err)
	}
	g, _ := record.Find(both, r.Game)
	end, moves, err := record.Replay(g.Rules, r)
	if err != nil || end.Outcome() != games.Won {
		t.Fatalf("%s: %v, %v", name, err, end.Outcome())
	}
	start, err := g.New(r.Board, r.Variant)
	if err != nil {
		t.Fatal(err)
	}
	return g, start, moves
}

// TestReview: the review of a real YINSH game (Dumbot wins, boardspace's
// archive) and of a LYNGK game has a point a position, chances between 0
// and 1, the end's chance the result's, is the same twice (a seed a
// position), and finds the loser's worst moves, each a fall of his chance
// with the robot's move instead.
func TestReview(t *testing.T) {
	for _, name := range []string{"yinsh-boardspace.sgf", "lyngk.txt"} {
		t.Run(name, func(t *testing.T) {
			g, start, moves := load(t, name)
			points, err := review.Review(context.Background(), g.Robot, start, moves, 50)
			if err != nil {
				t.Fatal(err)
			}
			if len(points) != len(moves)+1 || points[len(points)-1].Chance != 0 {
				t.Fatalf("%d points for %d moves, the last %+v (player 2 won)", len(points), len(moves), points[len(points)-1])
			}
			for _, p := range points {
				if p.Chance < 0 || p.Chance > 1 {
					t.Errorf("point %+v", p)
				}
			}
			again, err := review.Review(context.Background(), g.Robot, start, moves, 50)
			if err != nil || !reflect.DeepEqual(again, points) {
				t.Errorf("a second review differs: %v", err)
			}
			worst := review.Worst(points, moves, 1, 3)
			if len(worst) == 0 {
				t.Fatal("the loser lost no chance")
			}
			for i, d := range worst {
				if d.Player != 1 || d.After >= d.Before || d.Best == "" || d.Best == d.Move || d.Move != moves[d.K-1] || d.K%2 != 1 ||
					i > 0 && d.Before-d.After > worst[i-1].Before-worst[i-1].After {
					t.Errorf("drop %d: %+v", i, d)
				}
			}
		})
	}
	if _, err := review.Review(context.Background(), yinshsearch.Robot, yinsh.Position(yinsh.New(yinsh.Normal)), []string{"e3", "e3"}, 10); err == nil {
		t.Error("an illegal move reviewed")
	}
}

// BenchmarkReview is the CPU of the review of a whole game at the default
// budget (review.Playouts a position, one worker): a real YINSH game of 46
// moves, a LYNGK game of 30. cpu-ns/op is the process's CPU time a review,
// which a loaded machine does not inflate as it does ns/op.
func BenchmarkReview(b *testing.B) {
	for _, name := range []string{"yinsh-boardspace.sgf", "lyngk.txt"} {
		b.Run(name, func(b *testing.B) {
			g, start, moves := load(b, name)
			cpu := cputime.Now()
			for b.Loop() {
				if _, err := review.Review(context.Background(), g.Robot, start, moves, review.Playouts); err != nil {
					b.Fatal(err)
				}
			}
			cputime.Report(b, cpu)
		})
	}
}
