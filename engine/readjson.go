package engine

import (
	"slices"

	"lyngk.example/lyngk/engine/lyngk"
)

// Analysis is a position as `lyngk analyze -json` prints it (SPEC §5); the
// field order is part of that contract, and GameJSON repeats these fields
// with the same meaning.
type Analysis struct {
	Board   string     `json:"board"` // the board block, as in the mails
	Moves   []string   `json:"moves"` // normalised, "--" for the passes
	Turn    int        `json:"turn"`  // 1 or 2, 0 when the game is over
	Status  string     `json:"status"`
	Winner  int        `json:"winner"`
	Claims  [][]string `json:"claims"`  // per player, colour letters in claim order
	Removed []int      `json:"removed"` // per player, pieces removed
	Legal   []string   `json:"legal"`   // sorted
	// Robot is the robot's move, only with -robot.
	Robot string `json:"robot,omitempty"`
}

// Analyze describes pos, whose players are called names (in its board
// block). Status and Winner are those of the rules ("playing", "won",
// "tie").
func Analyze(pos *lyngk.Game, names [2]string) Analysis {
	a := Analysis{
		Board:   pos.Board(names),
		Moves:   []string{},
		Turn:    pos.Turn(),
		Status:  pos.Status().String(),
		Winner:  pos.Winner(),
		Claims:  [][]string{{}, {}},
		Removed: []int{pos.Removed(1), pos.Removed(2)},
		Legal:   []string{},
	}
	for _, m := range pos.Moves() {
		a.Moves = append(a.Moves, m.String())
	}
	for p := range 2 {
		for _, c := range pos.Claims(p + 1) {
			a.Claims[p] = append(a.Claims[p], string(c.Letter()))
		}
	}
	for _, m := range pos.Legal(nil) {
		a.Legal = append(a.Legal, m.String())
	}
	slices.Sort(a.Legal)
	return a
}

// GameJSON is a game as /game/N.json serves it: the fields of `lyngk
// analyze -json` for its current position, with the same meaning, and
// number, variant, players and positions.
//
// Status and winner are the game's, not only the rules': status is
// playing, won, tie (by the rules or an agreed draw), cancelled, resigned
// or forfeit, winner the number (1 or 2, challenge order, as in players)
// of the player who won, 0 for none, so resigned and forfeit games have
// one. Whenever the game is running or ended by the rules both equal what
// `lyngk analyze -json` prints for its moves. A game that ended otherwise
// (resigned, forfeit, agreed draw, cancelled) has turn 0 and no legal
// moves, like any game over.
//
// Moves are those made on the board, passes included (analyze's moves): a
// "resign" or "Forfeit" entry of the record shows only in status.
// Positions[K] is the board block after the first K of them, Positions[0]
// the start, Positions[len(Moves)] equal to Board; it is what `lyngk
// analyze -seed N -players A,B -json` prints as board for those K moves.
type GameJSON struct {
	Number    int        `json:"number"`
	Variant   string     `json:"variant"`
	Players   [2]string  `json:"players"`
	Board     string     `json:"board"`
	Moves     []string   `json:"moves"`
	Turn      int        `json:"turn"`
	Status    string     `json:"status"`
	Winner    int        `json:"winner"`
	Claims    [][]string `json:"claims"`
	Removed   []int      `json:"removed"`
	Legal     []string   `json:"legal"`
	Positions []string   `json:"positions"`
}

// JSON returns the game as /game/N.json serves it.
func (d *GameDetail) JSON() (*GameJSON, error) {
	pos, err := d.Position(-1)
	if err != nil {
		return nil, err
	}
	a := Analyze(&pos, d.Players)
	j := &GameJSON{Number: d.Board, Variant: d.Variant, Players: d.Players, Board: a.Board, Moves: a.Moves,
		Turn: a.Turn, Status: d.Status, Winner: d.Winner, Claims: a.Claims, Removed: a.Removed, Legal: a.Legal}
	if d.Over() {
		j.Turn, j.Legal = 0, []string{}
	}
	for k := range len(a.Moves) + 1 {
		p, err := d.Position(k)
		if err != nil {
			return nil, err
		}
		j.Positions = append(j.Positions, p.Board(d.Players))
	}
	return j, nil
}
