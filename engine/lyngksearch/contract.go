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
// search over the 30 best moves by the evaluation (100 in a think longer
// than 2 s), with the classes of guided and playouts to the end (see the
// package comment).
var Robot = robot{
	Policy:    guided{W: &standardWeights},
	Config:    robotConfig,
	Width:     30,
	LongWidth: 100,
}

// robotConfig is the robot's tuning: config with an unvisited child worth
// 0.9, so that each of the few moves the ranking keeps is tried before
// any is tried again (the strength runs: 35 % against the previous robot
// at 0.35, 65 % at 0.5, 76 % at 0.6, 84 % at 0.75, 86 % at 0.9; see the
// package comment); an exploration constant of 0.2, not config's 0.6: once
// every move has been tried, the visits go to the best ones (against the
// robot with 0.6, at 500 ms a move: 71 % at 0.2, 60 % at 0.35, 38 % at
// 1.0); and a tree that keeps growing to the end of a long search
// (mcts.Config.Grow; the arena of a think time, arenaNodes).
var robotConfig = func() mcts.Config {
	c := config
	c.FPU = 0.9
	c.Explore = 0.2
	c.Grow = true
	return c
}()

// baseline is the robot before the evaluation: the search over all moves.
var baseline = mcts.Robot[lyngk.Game, lyngk.Move, policy]{Config: config, Draw: acceptDraw}

// Baseline returns the robot as it was before the evaluation (the search
// over every legal move with policy's classes, see the package comment),
// which the strength benchmark plays as "the previous robot".
func Baseline() games.Robot { return baseline }

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
