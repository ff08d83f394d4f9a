// Package mcts is the Monte Carlo tree search the robots of all games share:
// the tree, its arena, the selection, the back-up and the parallelism. A
// game brings a Policy (its rules as the tree sees them, a class for each
// move, its playout) and a Config (its tuning); package lyngksearch is
// LYNGK's, package yinshsearch YINSH's. A policy embeds Rules, which asks
// the game's own position for the rules, and writes only its classes and
// playout; Robot makes it the game contract's robot player (robot.go).
// Given a seed and an iteration budget the search is deterministic, so
// every result replays.
//
// # The search
//
// UCT (upper confidence bounds applied to trees) with three additions that
// matter for games with hundreds of legal moves:
//
//   - Move classes. Every move gets a small class from the policy's one
//     look at the board (Policy.Class, 0..NumClasses-1, higher first). The
//     children of a node are stored in class order (a counting sort, so
//     expansion stays linear).
//   - First-play urgency with progressive bias. An unvisited child is worth
//     FPU plus its class bonus, a visited one its mean result plus the UCB
//     term plus the class bonus divided by its visits + 1. Unvisited
//     children are always taken in class order, so the visited children of
//     a node are a prefix of its children and selection scans only that
//     prefix and the first unvisited child.
//   - Lazy expansion. A leaf is expanded on its ExpandAt-th visit, and only
//     while the node arena has room; past that, leaves are simply played
//     out. The arena is allocated once per search and bounded (ArenaNodes),
//     so memory per search is bounded too and the inner loop (descent,
//     playout, back-up) allocates nothing when the policy does not. With
//     Grow the visits a leaf needs rise as the arena fills (ExpandAt times
//     its size over its free room): a game of hundreds of moves a position
//     fills an arena of a million nodes within some 10,000 iterations at
//     ExpandAt 2, a fraction of a think time of seconds, after which a
//     fixed threshold grows no tree at all; Grow spends the room on the
//     leaves visited most, over the whole search.
//
// The result of a playout is 1 for a win, 1/2 for a tie, 0 for a loss,
// counted for the player who made each move on the path (passes are
// automatic in the games served, so the mover of a node is read from the
// game, not assumed to alternate).
//
// # Parallelism and determinism
//
// With Workers > 1 the search runs root-parallel: each worker grows its own
// tree from the same position with its own generator (seed + worker index)
// and its share of the iteration budget; the visit counts of the root
// moves are summed and the most visited move is played (ties go to the
// first in Legal order). No state is shared, so the result for a seed and
// an iteration budget does not depend on scheduling. A think time instead
// of an iteration budget makes each worker stop at the deadline, which is
// naturally not reproducible.
package mcts
