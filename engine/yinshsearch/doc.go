// Package yinshsearch is the YINSH robot: YINSH's policy for the shared Monte
// Carlo tree search of package mcts (the tree, arena, selection and
// parallelism live there, see its comment), over the rules of package
// yinsh. A move of the tree is a whole turn (removals owed, the ring move,
// the mover's removals), as yinsh.Game.Legal lists them.
//
// # Turn classes
//
// Each turn gets a class from one look at the board (class): a turn whose
// own removals win ranks highest, then one that removes a row of the
// mover's, then ring moves by the markers they turn to the mover's colour
// (opponent's markers jumped minus own ones); placements rank a point with
// room on all six lines above an edge point. Unvisited children are tried
// in class order, so a winning turn is tried first.
//
// # Playouts
//
// A playout plays the game to its end with yinsh.Game.RandomTurn: a random
// ring and direction with a destination, random rows and rings for the
// removals. That is not uniform over whole turns, but it costs one ring
// move's check instead of the list of every turn (about 80 µs of CPU for
// a playout from a middle game, against several hundred with Legal).
package yinshsearch
