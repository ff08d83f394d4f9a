// Package lyngk implements the rules of LYNGK (Kris Burm, GIPF project) as
// the official rulebook states them, the move notation of the gamerz.net PBeM
// server, its start positions and its board display.
//
// The package is pure: standard library only, no clock, no hidden
// randomness; a start position is a function of the board number.
//
// # Representation
//
// A Game is a value made of fixed-size arrays, so copying it takes a snapshot
// and nothing in the hot path allocates. The 43 points are numbered 0..42 in
// lattice order (by y, then by column), so every upward ray leads to higher
// numbers. Each point holds its stack as 3-bit colours packed bottom first in
// a uint32, with its height, its top colour and a bitmask of the colours it
// holds (jokers may repeat and stay out of the mask). Bitboards (uint64, one
// bit per point) are kept in step: occupied points, points by top colour, by
// colour held, by height. The six rays of every point are precomputed as
// bitboards, so the first stack met in a direction is one AND and one bit
// scan; the destinations of a stack are one uint64 and never repeat.
//
// Move generation: a neutral-topped stack reaches the first stack in each of
// the six directions (rulebook E3, E6, E7). A stack topped by a colour c the
// mover claimed also bounces off every stack topped by c it reaches, each
// such LYNGK point once (rulebook F); the moving stack is in hand during the
// move, so its own point counts as empty. Legal lists the claim variants by
// reusing the plain moves: claiming c only changes the stacks topped by c.
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
