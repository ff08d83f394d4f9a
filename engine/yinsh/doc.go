// Package yinsh implements the rules of YINSH (Kris Burm, GIPF project) as
// the rulebook states them, with the decisions of the project where it is
// silent or loose; the turn notation; and the text board.
//
// The package is pure: standard library only, no clock, no randomness.
//
// # Representation
//
// A Game is a value made of fixed-size arrays (about 4 KB, most of it the
// record), so copying it takes a snapshot. The 85 points are numbered
// 0..84 column by column (a2 ... a5, b1 ... k10), which is the GIPF order of
// a row's ends. The position is four bitboards of 128 bits: rings and
// markers of each colour. The rays of every point in the six directions and
// the 5-point windows of every line (the possible rows) are precomputed.
//
// # Rules (rulebook sections)
//
//   - Placement (D): white (player 1) places first; 10 turns place the 5
//     rings of each player on vacant points.
//   - A ring move (E, F): a marker of the mover's colour goes on the ring's
//     point, the ring moves in a straight line over vacant points, then
//     optionally over one unbroken run of markers, landing on the first
//     vacant point after them, never over a ring; every marker jumped is
//     flipped. A ring with no such move cannot be chosen.
//   - Rows (G): five adjacent markers of one colour on a line. After the
//     move, while the mover has a row he removes one (any five adjacent of
//     a longer run, G4) and one of his rings (G3); rows that intersect
//     break each other as they are removed (G5). Rows of the opponent's
//     colour stay on the board; he removes them, each with a ring, at the
//     start of his next turn, before his move (G6, G7). The owed rows are
//     not stored: at the start of a turn they are exactly the rows of the
//     mover's colour on the board.
//   - The end (H, J): a player who has removed his third ring (blitz: the
//     first) wins at once, even in the middle of a turn, so the mover wins
//     when one move completes both players' last rows. The game also ends
//     when a turn ends with the pool of 51 markers empty, and when neither
//     player can move a ring: more rings removed wins, equal is a tie.
//   - Passes: a player who, after the removals he owes, cannot move a ring
//     makes no move: his turn is those removals alone. One who owes none
//     and cannot move passes automatically; Apply records the pass, "--".
//
// # Notation
//
// A turn is its parts joined by ";": the removals owed (a row "xb2-b6", its
// ends in GIPF order, then its ring "xa4"), the placement "e3" or ring move
// "h7-g7", then the mover's own removals. Input may leave a row out when
// exactly one row can be removed at that point ("f2-f6;xa4"); the record
// always holds the long form.
//
// # Legal turns
//
// Legal lists whole turns: every order of the removals and every choice of
// ring, so the list is what a player may write, one entry per long form.
// The generator recurses over copies of the 72-byte position and appends
// to the caller's buffer; it allocates nothing when the buffer has room.
package yinsh
