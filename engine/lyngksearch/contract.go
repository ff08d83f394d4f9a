package lyngksearch

import (
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/engine/mcts"
)

// config is LYNGK's tuning (mcts.Tuned): an arena of 2^20 nodes, and room
// for the legal moves of any position (about 1,100 at the start, claim
// variants included; Legal grows the buffer if ever needed).
var config = mcts.Tuned(1<<20, 2048)

// Robot is LYNGK's robot player in the game contract (games.Robot): the
// search with LYNGK's policy and tuning.
var Robot = mcts.Robot[lyngk.Game, lyngk.Move, policy]{Config: config, Draw: acceptDraw}

// Baseline is the robot the server played before its levels: the yardstick
// of the strength benchmark (make bench-robot), which plays every level
// against it at the level's own budget.
func Baseline() games.Robot { return Robot }

// acceptDraw accepts a draw unless player would win were the game counted
// now (rulebook G).
func acceptDraw(g *lyngk.Game, player int) bool { return countLead(g, player) <= 0 }

// countLead is how far player p is ahead of the opponent in the count of
// rulebook G: the first nonzero difference of removed stacks, then of
// owned stacks of each height from the tallest down; 0 for an even count.
func countLead(pos *lyngk.Game, p int) int {
	if d := pos.Removed(p) - pos.Removed(3-p); d != 0 {
		return d
	}
	maxH := 5
	if pos.Variant() == lyngk.Stack6 {
		maxH = 6
	}
	var owned [3][7]int
	for q := range lyngk.Point(lyngk.NumPoints) {
		if o := pos.Owner(pos.Top(q)); o != 0 {
			owned[o][pos.Height(q)]++
		}
	}
	// A full-height stack still on the board never scores (it was neutral
	// when completed), as in lyngk's own count.
	for k := maxH - 1; k >= 1; k-- {
		if d := owned[p][k] - owned[3-p][k]; d != 0 {
			return d
		}
	}
	return 0
}
