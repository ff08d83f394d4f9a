package engine

import (
	"fmt"
	"slices"
	"strings"

	"lyngk.example/lyngk/engine/games"
)

// htmlView is the data of the HTML part of a mail that shows a board
// (templates/mail.html).
type htmlView struct {
	Heading       string
	Intro         string // the error text of an error mail
	Game          *gameView
	Players       []playerView
	Reply         bool   // the recipient is to move: replying with the move is enough
	Waiting       string // the recipient plays but is not to move: who is
	Picture       string // Content-ID of the PNG
	Width, Height int
	Alt           string
	Quote         []string
}

// playerView is a player with what they have beside the board
// (games.Picture.Sides; LYNGK: Claims are the colours claimed, each in the
// piece's colour of the picture, Removed the stacks removed).
type playerView struct {
	Name    string
	ToMove  bool
	Claims  []games.Label
	None    string // what the mail says for no Claims (games.Side.None)
	Removed int
	Unit    string // what Removed counts, singular or plural (games.Side.Unit)
}

// maxHTMLComment bounds the comment in an HTML part, in bytes.
const maxHTMLComment = 16 << 10

// htmlPart adds to m the HTML alternative of the board mail of kind that
// e describes, and the picture of its board. The picture of one position
// is drawn once per request, whatever the number of recipients. A game
// without a picture has no HTML part.
func (r *request) htmlPart(m *Mail, kind string, e envelope) error {
	v := e.game
	pos, pic := v.pos, v.game.Picture
	if pic == nil {
		return nil
	}
	// An ended game's picture says how it ended for each player, which
	// its position cannot show after a resignation, forfeit, agreed draw
	// or cancellation.
	var marks *[2]string
	if v.Over {
		marks = &v.marks
	}
	// The engine keeps the picture of a position (pictures.go): every
	// recipient's mail and the web show the same one, drawn once. A
	// forecast only lists it.
	d := drawing(v.game, v.Board, pos, v.Players, marks)
	if r.forecast {
		if !slices.ContainsFunc(r.drawings, func(o Drawing) bool { return o.key == d.key }) {
			r.drawings = append(r.drawings, d)
		}
		return nil
	}
	if c := v.Comment; c != nil && len(c.Text) > maxHTMLComment {
		// The text part is cut to MaxReply on its way out (bounds.go);
		// the HTML part's copy of a long comment is cut here, so that the
		// HTML and the picture stay within PictureAllowance.
		cut := *v
		cut.Comment = &commentView{User: c.User, Text: strings.ToValidUTF8(c.Text[:maxHTMLComment], "") + "\n[…]"}
		v = &cut
	}
	hv := htmlView{
		Game: v, Intro: e.intro, Reply: v.YourTurn, Quote: e.quote,
	}
	hv.Width, hv.Height = pic.Size()
	if v.NotYourTurn {
		hv.Waiting = v.ToMove
	}
	switch {
	case kind == "new-game":
		hv.Heading = fmt.Sprintf("A new %s board (%d) has been started", v.Title, v.Board)
	case kind == "preview" || kind == "submit":
		hv.Heading = fmt.Sprintf("%s Board %d as it would be after move %d", v.Title, v.Board, v.After)
	case v.Historic:
		hv.Heading = fmt.Sprintf("Position of %s Board %d after move %d", v.Title, v.Board, v.After)
	default:
		hv.Heading = fmt.Sprintf("Summary of %s Board %d", v.Title, v.Board)
	}
	sides := pic.Sides(pos)
	for i, name := range v.Players {
		unit := sides[i].Unit[1]
		if sides[i].Count == 1 {
			unit = sides[i].Unit[0]
		}
		hv.Players = append(hv.Players, playerView{Name: name, ToMove: pos.Turn() == i+1 && !v.Over,
			Claims: sides[i].Labels, None: sides[i].None, Removed: sides[i].Count, Unit: unit})
	}
	status, err := r.e.cfg.Templates.Render("status", v)
	if err != nil {
		return err
	}
	moves := pos.Moves()
	hv.Alt = fmt.Sprintf("Picture of %s Board %d after %d moves. %s", v.Title, v.Board, len(moves), status)
	png, err := r.e.png(d, drawnTransaction)
	if err != nil {
		return err
	}
	hv.Picture = fmt.Sprintf("board-%d-%d@%s", v.Board, len(moves), r.e.cfg.Domain)
	html, err := r.e.cfg.Templates.RenderHTML("mail.html", hv)
	if err != nil {
		return err
	}
	m.HTML, m.Picture, m.PictureID = html, png, hv.Picture
	return nil
}
