package engine

import (
	"errors"
	"fmt"
	"strings"

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
var ErrNoSGF = errors.New("engine: the game has no SGF records")

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

// recordView is the data of the record mail.
type recordView struct {
	Title   string
	Board   int
	Players [2]string
	Text    string // the text record
	SGF     string // the attached file's name, "" for none
	Web     string // the web pages' URL (Config.WebURL), "" for none
}

// recordCommand: `GAME record BOARD` mails the game's text record in the
// body and its SGF attached (when its game offers boardspace's records
// and the file fits a mail: it always does, a game of either being a few
// hundred steps). Anybody may ask, as for show.
func (r *request) recordCommand(c Command) error {
	g, err := r.game(c.Args[0])
	if err != nil {
		return err
	}
	var pos games.Position
	if !g.over() {
		if pos, err = r.e.position(g, -1); err != nil {
			return err
		}
	}
	s := r.e.summary(g, pos)
	rec := s.record(g.Moves)
	v := recordView{Title: s.Title, Board: s.Board, Players: s.Players, Text: string(record.WriteText(rec, s.Title)),
		Web: strings.TrimSuffix(r.e.cfg.WebURL, "/")}
	e := envelope{to: []string{r.in.From}, board: g.Board}
	if gm, ok := r.e.games[g.Game]; ok {
		if bs, ok := gm.Rules.(games.Boardspace); ok {
			data, err := record.WriteSGF(rec, bs)
			if err != nil {
				return err
			}
			a := Attachment{Filename: fmt.Sprintf("%s-%d.sgf", g.Game, g.Board), ContentType: "application/x-go-sgf; charset=utf-8", Data: data}
			if attachmentCost(Mail{Attachments: []Attachment{a}}) < MaxReply/2 {
				v.SGF, e.attach = a.Filename, []Attachment{a}
			}
		}
	}
	return r.mailAbout("record", v, e)
}
