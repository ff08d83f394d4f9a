// Package lyngk implements the rules of LYNGK (Kris Burm, GIPF project) as
// the official rulebook states them, the move notation of the gamerz.net PBeM
// server, its start positions and its board display.
//
// The package is pure: standard library only, no clock, no hidden
// randomness; a start position is a function of the board number.
//
// # Representation
//
// A Game is a value made of fixed-size arrays (about 1.1 KB), so copying it
// takes a snapshot and nothing in the hot path allocates. The 43 points are
// numbered 0..42 in lattice order (by y, then by column), so every upward
// ray leads to higher numbers. Each point holds its stack as 3-bit colours
// packed bottom first in a uint32, with its height, its top colour and a
// bitmask of the colours it holds (jokers may repeat and stay out of the
// mask). Bitboards (uint64, one bit per point) are kept in step: occupied
// points, points by top colour, by colour held, by height. The six rays of
// every point are precomputed as bitboards, and for every stack the set of
// the first stacks in the six directions is kept up to date as points fill
// and empty (a few bit scans per move), so the straight-line destinations of
// a stack are one load, and a set of destinations never repeats a point.
//
// Move generation: a neutral-topped stack reaches the first stack in each of
// the six directions (rulebook E3, E6, E7). A stack topped by a colour c the
// mover claimed also bounces off every stack topped by c it reaches, each
// such LYNGK point once (rulebook F); the moving stack is in hand during the
// move, so its own point counts as empty: a line from a LYNGK point through
// the origin goes on to the next stack. (Any stack reached that way is also
// reached straight from the origin, so this choice never changes the moves;
// it only keeps the origin from being a destination or a bounce point.)
// Legal lists the claim variants by reusing the plain moves: claiming c
// changes only the stacks topped by c, so the other plain moves are copied
// in runs with the claim added.
//
// Passes and the end of the game are settled inside Apply (and SetTurn):
// after a move, the opponent passes, recorded as Pass ("--"), when they
// cannot move even by claiming a free colour; when neither player can move
// the game is over and decided. A resignation is no engine concept.
//
// # Differences from the gamerz implementation
//
// The rulebook decides where the gamerz C++ code differs (SPEC §1):
//   - LYNGK moves chain bounces along straight lines over empty points, from
//     stack to stack topped by the same claimed colour, each LYNGK point once;
//     joker-topped stacks are never LYNGK points. Gamerz lets any stack with
//     the same top colour anywhere serve as a bounce point.
//   - A 5-stack completed with a neutral colour on top stays on the board as
//     an obstacle for good and never scores, even when its top colour is
//     claimed later. Gamerz removes it and scores it for whoever claims the
//     colour.
//   - The game ends when neither player can move, each player's check
//     including the claim of a colour still free; a player who can move only
//     by claiming must do so and does not pass. Gamerz checks the waiting
//     player with the mover's claims.
//   - Stack6 ends by counting the owned stacks on the board from height 5
//     down to 1; gamerz starts that count at 4.
package lyngk
