// Package search is the LYNGK robot: a Monte Carlo tree search over the
// rules of package lyngk, the only package of ours it imports. It stays out
// of package lyngk because it reads the clock (a think time) and uses many
// pseudo-random numbers; given a seed and an iteration budget it is
// deterministic, so every result replays.
//
// # The search
//
// UCT (upper confidence bounds applied to trees) with three additions that
// matter because a LYNGK position has up to about a thousand legal moves,
// claim variants included:
//
//   - Move classes. Every move gets a small class from one look at the board
//     (class): a move that completes a stack of the mover's own colour (a
//     removal in the standard game, the win in stack6) ranks highest, then
//     moves that build a taller own-topped stack; a claim whose colour the
//     move does not use ranks below the same move without it. The children
//     of a node are stored in class order (a counting sort, so expansion
//     stays linear).
//   - First-play urgency with progressive bias. An unvisited child is worth
//     fpu plus its class bonus, a visited one its mean result plus the UCB
//     term plus the class bonus divided by its visits + 1. Unvisited
//     children are always taken in class order, so the visited children of
//     a node are a prefix of its children and selection scans only that
//     prefix and the first unvisited child, not all thousand.
//   - Lazy expansion. A leaf is expanded on its expandAt-th visit, and only
//     while the node arena has room; past that, leaves are simply played
//     out. The arena is allocated once per search and bounded (arenaNodes),
//     so memory per search is bounded too and the inner loop (descent,
//     playout, back-up) allocates nothing.
//
// # Playouts
//
// A playout plays the game to its end: at each turn the mover takes a move
// that completes an own stack when there is one (the rule of a greedy
// player, and the move that decides most LYNGK games), else a uniformly
// random legal move; with probability 1/2 that random move is drawn among
// the moves without a claim, so that colours are not all claimed within the
// first two turns of every playout as a uniform choice would do (claim
// variants outnumber plain moves five to one at the start). The result is
// 1 for a win, 1/2 for a tie, 0 for a loss, counted for the player who made
// each move on the path (passes are automatic, so the mover of a node is
// read from the game, not assumed to alternate).
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
package search
