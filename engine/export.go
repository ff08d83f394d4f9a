package engine

import (
	"fmt"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/record"
)

// record is the game as package record writes it: the record of moves as
// kept (passes and a terminal entry in), the start date, the result
// ("1-0", "0-1", "1/2-1/2", "*" for a running or cancelled game) and how
// it ended other than by the rules (Ending's words).
func (s GameSummary) record(moves []string) record.Record {
	return record.Record{Game: s.Game, Board: s.Board, Players: s.Players, Date: s.Started.UTC(), Variant: s.Variant,
		Result: record.ResultOf(s.Winner, s.Status == StatusTie), Termination: string(s.How), Moves: moves}
}

// Record is d as package record writes it (GameSummary.record).
func (d *GameDetail) Record() record.Record { return d.GameSummary.record(d.MoveList) }

// TextRecord is d's plain text record (/game/N.txt, the mail of `GAME
// record BOARD`).
func (d *GameDetail) TextRecord() []byte { return record.WriteText(d.Record(), d.Title) }

// SGF is d in boardspace's SGF dialect (/game/N.sgf); ErrNoSGF when its
// game does not offer boardspace's records.
func (d *GameDetail) SGF() ([]byte, error) {
	g, err := d.Rules()
	if err != nil {
		return nil, err
	}
	bs, ok := g.Rules.(games.Boardspace)
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNoSGF, g.Name())
	}
	return record.WriteSGF(d.Record(), bs)
}

// ErrNoSGF is a game whose rules offer no boardspace records.
var ErrNoSGF = fmt.Errorf("engine: the game has no SGF records")

// MaxCollection bounds a player's SGF collection (/player/NAME/games.sgf):
// his newest finished games, as many as a page of games lists.
const MaxCollection = 100

// Collection is the SGF collection of the newest MaxCollection finished
// games of user (of every game that offers boardspace's records, the last
// ended first): read from the stored records without replaying them, in one transaction. An unknown userid
// is ErrNoUser.
func (e *Engine) Collection(tx Tx, user string) ([]byte, error) {
	hist, err := e.History(tx, "", user)
	if err != nil {
		return nil, err
	}
	var rs []record.Record
	r := &request{e: e, tx: tx}
	for _, s := range hist[:min(len(hist), MaxCollection)] {
		g, ok, err := r.loadGame(s.Board)
		if err != nil {
			return nil, err
		}
		if ok {
			rs = append(rs, s.record(g.Moves))
		}
	}
	return record.WriteCollection(rs, e.cfg.Games)
}
