// Package yinshsearch is the YINSH robot: an alpha-beta search over an
// evaluation of YINSH positions, over the rules of package yinsh. A move
// of the search is a whole turn (removals owed, the ring move, the
// mover's removals), as yinsh.Game.Legal lists them. The previous robot, a
// Monte Carlo tree search (package mcts) with random playouts, stays as
// Baseline: the opponent of the strength matches, and a weaker player.
//
// # The evaluation
//
// A position is scored for white in thousandths of a ring (eval.go); the
// colours swapped, the score is the opposite. What counts:
//
//   - Rings removed, 1000 each: the only thing that decides the game
//     (rulebook H), so nothing else outweighs one.
//   - A row of five on the board, 800: its owner removes it with a ring at
//     the start of his turn (rulebook G6).
//   - Open runs: each 5-point window of a line holding markers of one
//     colour and no marker or ring of the other's is worth 1, 6, 30 or 110
//     by its 1 to 4 markers. A run blocked by the opponent's markers or
//     rings counts nothing.
//   - Rows threatened next turn: four markers and a ring of the same
//     colour on the window's fifth point (the ring leaves its marker as it
//     moves) are worth 450 to the player to move, 120 to the other; four
//     markers and one of the opponent's that a ring may jump and flip, 40.
//   - Ring mobility, 6 a point a ring can move to, and each marker on the
//     board, 4.
//
// # The search
//
// Iterative deepening of a principal-variation (negamax alpha-beta)
// search, with a transposition table (2^16 entries a search), turns
// ordered by the table's turn, turns that win or make a row, two killer
// turns a ply, then ring moves by the markers they flip to the mover's
// colour and a history of cut-offs. Passes are automatic in YINSH, so the
// player to move is read from the game, not assumed to alternate. Beyond
// the depth, a quiescence search looks at the turns that make a row
// wherever the evaluation sees one ready for the player to move, three
// plies deep at most: a row is a ring, more than the evaluation can weigh.
// The search plays the turns Legal lists with yinsh.Game.Play, which
// spares Apply's checks: the same tree at a fifth less CPU a node.
//
// The table keeps 2^16 entries at every think time, though a 10 s search
// (robot-max, about 3 million nodes) searches some 45 nodes an entry. A table
// of 2^19 entries was tried for such a search: over nine positions (the
// random games of seeds 1 to 3 at turns 20, 35 and 50, 3 million nodes
// each) it finished its deepest iteration with fewer nodes in six and
// more in three, 5 % fewer in the geometric mean, and reached the same
// depth in eight of the nine. A twentieth of a ply, where each ply costs
// three to four times the one before: not worth 20 MB a search.
//
// # Where it loses, and what was tried
//
// At 2 s a turn it scores 94.4 % against the previous robot (236–0–14 in
// 250 games, 95 % interval 90.8–96.6 %; deploy/BENCHMARKS.md, "A fifth
// sitting"). It loses the race from two rings each: in
// 60 games at 300 ms a turn (deploy/BENCHMARKS.md, "A fourth sitting")
// every loss was 2–3, the games that reached 2–2 went 11–6 and all others
// 43–0. Two changes aimed there were measured on the same boards and not
// kept: the runs, rows and threats of a player one ring from winning
// weighed 2.5 times (42–1–5 in 48 against the robot's 54–0–6 in 60), and
// a quiescence search of every turn of the player to move when the other,
// one ring from winning, has a row ready (54–0–6 at 300 ms, but 34–0–10 in
// 44 at 100 ms: the wider quiescence costs the search its depth).
//
// # Budget and determinism
//
// A budget in playouts (games.Think.Playouts, mcts.Options.Iterations)
// becomes NodesPerPlayout nodes a playout, which cost at most the CPU the
// previous robot spends on as many playouts; Thought.Playouts reports the
// nodes searched in the same unit. A think time stops the search at the
// deadline. Either way the first iteration (every turn, one ply and its
// quiescence) always ends, the deeper ones go on while the budget lasts,
// and an iteration cut short counts where it found a turn better than the
// last iteration's best, which it searched first. The search runs on one core (Workers
// is not used), checks its context every 256 nodes, and allocates its
// table and stack once. The seed orders the root turns before the first
// iteration, so it chooses among equal turns; given a seed and a playout
// budget the search is deterministic.
package yinshsearch
