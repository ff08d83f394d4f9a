package engine

import (
	"fmt"
	"strings"

	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/engine/lyngk/picture"
)

// htmlView is the data of the HTML part of a mail that shows a board
// (templates/mail.html).
type htmlView struct {
	Heading       string
	Intro         string // the error text of an error mail
	Game          *gameView
	Players       []playerView
	Reply         bool
	Picture       string // Content-ID of the PNG
	Width, Height int
	Alt           string
	Quote         []string
}

type playerView struct {
	Name    string
	ToMove  bool
	Claims  []colorView
	Removed int
}

// colorView is a claimed colour: its name and the colours of its label,
// the piece's colour in the picture.
type colorView struct{ Name, Hex, Ink string }

// maxHTMLComment bounds the comment in an HTML part, in bytes.
const maxHTMLComment = 16 << 10

// htmlPart adds to m the HTML alternative of the board mail of kind that
// e describes, and the picture of its board. The picture of one position
// is drawn once per request, whatever the number of recipients.
func (r *request) htmlPart(m *Mail, kind string, e envelope) error {
	v := e.game
	pos := v.pos
	if c := v.Comment; c != nil && len(c.Text) > maxHTMLComment {
		// The text part is cut to MaxReply on its way out (bounds.go);
		// the HTML part's copy of a long comment is cut here, so that the
		// HTML and the picture stay within PictureAllowance.
		cut := *v
		cut.Comment = &commentView{User: c.User, Text: strings.ToValidUTF8(c.Text[:maxHTMLComment], "") + "\n[…]"}
		v = &cut
	}
	hv := htmlView{
		Game: v, Intro: e.intro, Reply: e.reply, Quote: e.quote,
		Width: picture.Width, Height: picture.Height,
	}
	switch {
	case kind == "new-game":
		hv.Heading = fmt.Sprintf("A new Lyngk board (%d) has been started", v.Board)
	case v.Historic:
		hv.Heading = fmt.Sprintf("Position of Lyngk Board %d after move %d", v.Board, v.After)
	default:
		hv.Heading = fmt.Sprintf("Summary of Lyngk Board %d", v.Board)
	}
	for i, name := range v.Players {
		pv := playerView{Name: name, ToMove: pos.Turn() == i+1 && !v.Over, Removed: pos.Removed(i + 1)}
		for _, c := range pos.Claims(i + 1) {
			col, _ := picture.Color(c.Letter())
			ink := "#ffffff"
			if c == lyngk.Ivory {
				ink = "#111111"
			}
			pv.Claims = append(pv.Claims, colorView{c.Name(), fmt.Sprintf("#%02x%02x%02x", col.R, col.G, col.B), ink})
		}
		hv.Players = append(hv.Players, pv)
	}
	status, err := r.e.cfg.Templates.Render("status", v)
	if err != nil {
		return err
	}
	hv.Alt = fmt.Sprintf("Picture of Lyngk Board %d after %d moves. %s", v.Board, len(pos.Moves()), status)
	// An ended game's picture says how it ended for each player, which
	// its position cannot show after a resignation, forfeit, agreed draw
	// or cancellation.
	var opts []picture.Option
	if v.Over {
		opts = append(opts, picture.Over(v.marks))
	}
	cacheKey := fmt.Sprintf("%d %v %t", v.Board, pos.Moves(), v.Over)
	png, ok := r.pictures[cacheKey]
	if !ok {
		if png, err = picture.PNG(pos, v.Players, opts...); err != nil {
			return fmt.Errorf("engine: board %d: %w", v.Board, err)
		}
		if r.pictures == nil {
			r.pictures = map[string][]byte{}
		}
		r.pictures[cacheKey] = png
	}
	hv.Picture = fmt.Sprintf("board-%d-%d@%s", v.Board, len(pos.Moves()), r.e.cfg.Domain)
	html, err := r.e.cfg.Templates.RenderHTML("mail.html", hv)
	if err != nil {
		return err
	}
	m.HTML, m.Picture, m.PictureID = html, png, hv.Picture
	return nil
}
