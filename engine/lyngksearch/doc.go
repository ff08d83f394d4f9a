// Package lyngksearch is the LYNGK robot: LYNGK's policy for the shared Monte
// Carlo tree search of package mcts (the tree, arena, selection and
// parallelism live there, see its comment), over the rules of package
// lyngk, with an evaluation of LYNGK positions that chooses which moves the
// search looks at. It stays out of package lyngk because the search reads
// the clock (a think time) and uses many pseudo-random numbers; given a
// seed and a playout budget it is deterministic, so every result replays.
//
// # The robot
//
// Robot ranks the moves of the position to play by the evaluation of the
// position each one leads to (a move that wins the game first) and lets
// the tree search look at the 30 best only (the 100 best in a think longer
// than 2 s, robot.width; see Exploration): with a few thousand playouts a
// move and a few hundred legal moves, a search over all of them gives each
// a handful of playouts. Deeper in the tree every move stays (the ranking
// costs an Apply and an evaluation a move, once per search), and an
// unvisited child is worth 0.9 (robotConfig), so that each of the 30 is
// tried before any is tried again.
// Baseline is the robot as it was before: the same search over all moves
// with the classes of policy and an unvisited child worth 0.5. The
// evaluation knows the standard game only: its heights, the stacks it sees
// can still be completed and the threats all stop at five, and its first
// term, the stacks removed, is always 0 in stack6, which removes none. So
// in stack6 the robot is still Baseline: forced onto stack6 as it is, the
// robot scored 9-0-11 against Baseline at 100 ms a move (20 games, boards 1
// to 20, 45 %, 95 % interval 26-66 %, one worker each, machine load about
// 6), no better. The budget of games.Think is the search's: Playouts
// iterations in all (deterministic for a Seed), else as many as fit in
// Time, the ranking included (about 0.6 ms for the moves of a start
// position, BenchmarkRootMoves).
//
// # Strength
//
// Measured by TestMatch (match_test.go, a measuring program skipped unless
// LYNGK_MATCH is set), with the exploration constant of the time, 0.6 (for
// the robot's 0.2, see Exploration): the robot against Baseline at equal
// think time a move, one worker each, colours alternating, each game from
// its own start position, every move checked against the rules' legal
// moves, on the shared two-core machine (load 4 to 17, which both sides
// share). At 100 ms a move, 200 games (boards 1 to 200): 84.2 % (168 won, 1
// tied, 31 lost; 95 % Wilson interval 78.6-88.6 %); at 300 ms, 100 games
// (boards 201 to 300): 82.5 % (82-1-17; 73.9-88.7 %); at 1 s, 20 games
// (boards 601 to 620): 80 % (16-0-4; 58.4-91.9 %); at 2 s, 8 games (boards
// 801 to 808): 7-0-1 (52.9-97.8 %). The robot also runs more playouts in
// the same time (about 1.15 times at 100 ms, twice at 2 s): its nodes have
// fewer children to expand. The share of each part, 100 games each at 50 ms
// unless said: the ranking of the root, the claims spent elsewhere left out
// and the classes of guided, with the previous tuning, 65.5 % (an unvisited
// child worth 0.5; 0.35 gave 35.5 %, 0.6 76.5 %, 0.75 84 %, 0.9 86.5 %; a
// root of 10, 15 or 60 moves instead of 30 62.5, 56.5 and 56.5 %); the
// previous robot with only the new tuning 72.5 %; the robot against that
// one, at 100 ms, 72 % (62.5-79.9 %): the tuning and the evaluation each
// count. Playouts cut at 6, 8, 12 or 16 moves and scored by the evaluation
// (guided.Depth) gave 37.5 to 55 % against Baseline before the ranking was
// there: cutting saves little time (the tree's expansions cost more than
// the playouts) and the evaluation after a few random moves tells less than
// the end of the game.
//
// # Long searches
//
// LYNGK's positions have hundreds of moves, so each expansion of the tree
// takes hundreds of nodes: at mcts's ExpandAt 2 an arena of 2^20 nodes was
// full after 10,000 to 17,000 iterations (the robot; the previous robot,
// whose nodes keep every claim, after 5,000 to 10,000), about a quarter of
// a second, and from then on a search of 2 s, or robot-max's 10 s, only
// played out the leaves of that tree: more time bought better counts at the
// same leaves, which is why the robot's lead over the previous one fell
// from 84 % at 100 ms to 59 % at 2 s and robot-max was no stronger than
// robot. So the robot's tree grows to the end of its search
// (mcts.Config.Grow: the visits a leaf needs rise with the arena's fill),
// and a think time longer than 2 s gets a larger arena (arenaNodes). With
// Grow, at 2 s a move against the previous robot on the quiet machine:
// 77.2 % in 171 games (130-4-37, 95 % interval 70.3-82.8 %; make
// bench-robot and TestMatch), where the full arena gave 59 % (17-0-12);
// robot-max (10 s, its larger arena) against robot (2 s), 81.2 % (30-5-5
// in 40, 66.6-90.4 %), where it gave 3-0-3 (deploy/BENCHMARKS.md, "A
// second sitting").
//
// What did not help, the experiments' code not kept. At 500 ms a move
// against the previous robot, where the robot as it was scored 75 %
// (18-0-6, boards 17 to 40): ranking every node's moves by the evaluation
// and keeping the 30 best, expanding at 8 visits, 37.5 % (16 games,
// boards 1 to 16); a root of 100 moves, 62.5 % (16); an unvisited child
// worth 0.5 everywhere, 50 % (16), or 0.9 at the root only and 0.5 or 0.7
// below, 64.6 and 62.5 % (24, boards 17 to 40); playouts that redraw a
// random move that gives the opponent a stack to complete, up to 4 or 8
// times, 65.6 % (16) and 54.2 % (24); a half or a quarter of the playouts
// replaced by the evaluation's chances at the leaf (sharpness 1.5), 47 and
// 53 % (17). At 2 s, a fixed ExpandAt of 16 or 48 instead of Grow: 8.5 and
// 8 of 13 (65 and 62 %); a root that keeps every move and widens from
// the 30 best by one more every 3,000 of its visits, 74.2 % in 89 games
// (boards 300 to 388, 65-2-22). At 500 ms against the robot with the
// exploration constant 0.6: the moves after each of the root's 30 also
// ranked by the evaluation and narrowed to their 30 or 60 best, 52.5 and
// 55 % (40 games each, boards 900 to 939). All within their wide
// intervals of the robot as it was, none clearly better.
//
// # Exploration
//
// The exploration constant of UCB, 0.6 for the previous robot, is 0.2 for
// the robot (robotConfig): with an unvisited child worth 0.9, every move
// the tree keeps is tried once anyway, and the visits after that are better
// spent on the moves that did best. Against the robot with 0.6, at 500 ms a
// move, one worker each, 40 games a setting on the quiet machine: 0.2
// scored 71.2 % (28-1-11, boards 940 to 979), 0.35 60 % (21-1-18 on boards
// 900 to 939, 26-1-13 on 940 to 979), 1.0 37.5 % (15-0-25, boards 900 to
// 939). Then, against the previous robot at 2 s a move, 100 games on boards
// not played before (1100 to 1199, the count fixed before the start):
// 82-6-12, 85.0 % (95 % interval 76.7-90.7 %), where the robot with 0.6 had
// 77.2 % (70.3-82.8 %) in 171. Every level has the change: robot-max (10 s)
// against robot (2 s), both with 0.2, scored 63.5 % in 26 games (15-3-8,
// 44.4-79.1 %), then 74.2 % in 60 on new boards (43-3-14, 61.9-83.5 %, the
// count fixed before the start) and 55.0 % in 20 after them (9-4-7): 67.9 %
// in all 106 (58.5-76.0 %), where with 0.6 it had 81.2 % in 40
// (deploy/BENCHMARKS.md, "A sixth sitting"). A constant of its own did
// not help robot-max: with 0.6 it scored 50.0 % against robot (9-1-9),
// with 0.1 39.5 % (6-3-10), and as shipped, on the same day, 45.8 %
// (11-0-13): 63.8 % in all 130 with 0.2 (55.3-71.6 %), so every level
// keeps 0.2 ("A seventh sitting"). What a long search needed was a wider
// root: a 10 s search over the 100 best moves played one the ranking puts
// below its 30 in 3 of 20 positions, and robot-max with a root of 100
// scored 77.5 % against robot in 60 games on new boards, the count fixed
// before the start (44-5-11, 65.5-86.2 %, "An eighth sitting"). So a
// search of a think time longer than 2 s keeps 100 moves at its root
// (LongWidth); the robot level and the playout levels keep 30.
//
// # Evaluation
//
// The evaluation (weights.evaluate) counts, in stacks, for player 1 less
// player 2: the stacks removed (the score, rulebook G); each stack on the
// board topped by a claimed colour, for its owner, by its height when it
// can still grow (it sees a stack with none of its colours, low enough to
// merge) and only by its pieces when it is dead (then only rulebook G2's
// count of the stacks left looks at it); each stack topped by a free
// colour, for each player who may still claim that colour; a stack the
// player to move can complete now, and those the other player threatens to
// complete next. Reaching is judged in straight lines (lyngk.Game.Sees),
// without LYNGK bounces. Swapping the players negates it.
//
// # Move classes
//
// A LYNGK position has up to about a thousand legal moves, claim variants
// included. The tree looks at the moves without a claim the moving stack
// does not use (that claim only spends one of the player's two; the same
// move without it is there). Every move gets a small class from one look
// at the board (class): a move that completes a stack of the mover's own
// colour (a removal in the standard game, the win in stack6) ranks
// highest, then moves that build a taller own-topped stack; a move that
// leaves the opponent a stack to complete next (gives) ranks one lower.
// The tuning (config) was set by the strength runs of engine/README.md.
//
// # Playouts
//
// A playout plays the game to its end: at each turn the mover takes a move
// that completes an own stack when there is one (the rule of a greedy
// player, and the move that decides most LYNGK games), else a uniformly
// random legal move; with probability 1/2 that random move is drawn among
// the moves without a claim, so that colours are not all claimed within the
// first two turns of every playout as a uniform choice would do (claim
// variants outnumber plain moves five to one at the start). The policy
// can also cut a playout at a depth and draw its winner from the
// evaluation (guided.Depth); the strength runs found that weaker than
// playing to the end (see Strength), so the robot plays to the end.
package lyngksearch
