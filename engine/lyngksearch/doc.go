// Package lyngksearch is the LYNGK robot: LYNGK's policy for the shared Monte
// Carlo tree search of package mcts (the tree, arena, selection and
// parallelism live there, see its comment), over the rules of package
// lyngk. It stays out of package lyngk because the search reads the clock
// (a think time) and uses many pseudo-random numbers; given a seed and an
// iteration budget it is deterministic, so every result replays.
//
// # Move classes
//
// A LYNGK position has up to about a thousand legal moves, claim variants
// included. Every move gets a small class from one look at the board
// (class): a move that completes a stack of the mover's own colour (a
// removal in the standard game, the win in stack6) ranks highest, then
// moves that build a taller own-topped stack; a claim whose colour the move
// does not use ranks below the same move without it. The tuning (config)
// was set by the strength runs of engine/README.md.
//
// # Playouts
//
// A playout plays the game to its end: at each turn the mover takes a move
// that completes an own stack when there is one (the rule of a greedy
// player, and the move that decides most LYNGK games), else a uniformly
// random legal move; with probability 1/2 that random move is drawn among
// the moves without a claim, so that colours are not all claimed within the
// first two turns of every playout as a uniform choice would do (claim
// variants outnumber plain moves five to one at the start).
package lyngksearch
