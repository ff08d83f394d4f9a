package yinshsearch

import (
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/mcts"
	"lyngk.example/lyngk/engine/yinsh"
)

// config is YINSH's tuning (mcts.Tuned): an arena of 2^18 nodes (about
// 10 MB a tree: a node holds a whole turn), and room for the legal turns
// of a position (85 placements; a movement position has a few dozen to a
// few hundred; Legal grows the buffer if ever needed).
var config = mcts.Tuned(1<<18, 1024)

// Robot is YINSH's robot player in the game contract (games.Robot): the
// search with YINSH's policy and tuning.
var Robot = mcts.Robot[yinsh.Game, yinsh.Turn, policy]{Config: config, Draw: acceptDraw}

// Baseline is the robot the server played before its levels: the yardstick
// of the strength benchmark (make bench-robot), which plays every level
// against it at the level's own budget.
func Baseline() games.Robot { return Robot }

// acceptDraw accepts a draw unless player has removed more rings than the
// opponent: the count that decides a game ended by the empty pool
// (rulebook H).
func acceptDraw(g *yinsh.Game, player int) bool { return g.Removed(player) <= g.Removed(3-player) }
