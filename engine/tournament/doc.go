// Package tournament is the pure core of the server's tournaments: who
// meets whom in each round, with which colours, how the games score, how
// the standings are ordered, and how a championship's leagues are made
// from one edition to the next. It is values in, values out, like a
// game's rules package: standard library only, no clock, no store, no
// randomness. The engine records the rounds, starts their games, applies
// timers and forfeits, and calls it again when a round ends.
//
// Players are named by their index in the slice a function is given; a
// round is a list of games (White, Black, Result) in board order; a bye is
// a game whose Black is Bye. Scores are integers: half points (a win 2, a
// draw 1) and, for Sonneborn-Berger, quarter points; FormatHalves and
// FormatQuarters write them as players read them ("2½", "6¾"). Every
// function refuses fewer than 2 or more than MaxPlayers players, and a
// history that names a player out of range or twice in a round
// (ErrBadInput).
//
// # Round robin
//
// RoundRobin gives the rounds of the Berger tables (FIDE Handbook C.05,
// Annex 1): with an odd number of players the highest number of the table
// is the bye. Doubled, the whole cycle is played again with every game's
// colours swapped. The caller's order of players is the draw of Berger
// numbers. Each player's Whites and Blacks differ by at most one in a
// cycle.
//
// # Swiss
//
// Swiss pairs one round from the standings after the previous ones (all
// finished), by a simplified Dutch system (after FIDE Handbook C.04.3):
//
//   - The players are ranked by score, then rating (then index).
//     Withdrawn players are left out.
//   - With an odd number, the bye (a win) goes to the lowest-ranked player
//     who has not had one and without whom the others can be paired; a
//     player never has two. When everybody has had one the round cannot
//     be paired.
//   - Two players never meet twice (a forfeited game counts as met).
//   - Pairing goes from the top: the best unpaired player meets, in his
//     score group (the unpaired players with his score), the first of the
//     bottom half (1 against g/2+1, 2 against g/2+2, …); of the bottom
//     half, those whose colour wish differs from his are tried first (the
//     Dutch transposition for colours), then the rest of his group from
//     its lowest up. If nobody of his group fits he floats down to the highest player of the lower groups he may meet.
//     When a choice leaves the rest unpairable, the next one is tried
//     (backtracking), so the pairing found is the first in that order.
//   - Colours: a player's wish is the colour he has had less, or when
//     level the other one than last time. It is absolute after two games
//     in a row of one colour or with two more of one colour than of the
//     other: two players with the same absolute wish do not meet. Both
//     wishes are granted when they differ; when they clash the stronger
//     one wins (absolute, then one colour ahead, then alternation), equal
//     ones the higher-ranked player's. In the first round the
//     higher-ranked player of each board has White on odd boards and
//     Black on even ones (FIDE draws this by lot).
//   - Only when no pairing keeps the colour rules are they dropped; only
//     when the Dutch order finds no pairing at all is any pairing without
//     a repeat taken (the player with the fewest opponents left paired
//     first), which happens in tournaments of nearly as many rounds as
//     players.
//
// When no pairing without a repeat exists, Swiss says so (ErrNoPairing)
// and never repeats a game. The search is bounded (about forty million
// pairs looked at, a few seconds at worst); past the bound it answers
// ErrNoPairing as well, with its own message. While each player has met
// fewer than half the field a pairing exists (Dirac's theorem) and the
// search finds it at once.
//
// # Knockout
//
// Knockout seeds the players by rating into a bracket of the next power of
// two in the standard order (Bracket: 1 v 8, 4 v 5, 2 v 7, 3 v 6 for
// eight, so the top seeds can meet only late); the missing seeds are byes,
// so the top seeds have them. A match is one game, the higher seed White.
// A drawn game is replayed once with the colours swapped; if the replay is
// drawn too, the higher seed goes through. A forfeit loses the match.
// Knockout is given every round played (first games and replays, each as
// it returned them) and returns the next, or the champion.
//
// # Scoring and standings
//
// A win scores 1, a draw ½, a loss 0; a forfeit is a loss for the player
// who forfeited and a win for his opponent; a bye is a win. Standings
// order the players by score, then:
//
//  1. Sonneborn-Berger: the sum of the final scores of the opponents he
//     beat and half those of the opponents he drew, over games played on
//     the board (byes and forfeits add nothing).
//  2. Head to head: the points he scored in the games among the players
//     level with him on score and Sonneborn-Berger.
//  3. Games won on the board.
//
// Players level on all of these share the rank. Every tie-break is in
// each Standing, so a table shows them all.
//
// # Championship leagues
//
// NextLeagues makes an edition's leagues: the first edition cut by
// rating, then from the previous edition's final standings: the first
// two of each league promoted, the sixth and below relegated, leavers
// removed, newcomers placed by rating, the number of leagues the players
// divided by ten (rounded, the sizes as equal as can be). Vacancies are
// filled from the league below in finishing order, never by a player who
// just went down from that league or above; so in a chain of full leagues
// of ten the first five go up and the last five down.
package tournament
