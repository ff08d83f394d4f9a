package lyngkpicture

import (
	"errors"
	"fmt"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
)

// Pictures is LYNGK's picture in the game contract (games.Picture) and its
// clicks on the play page (games.Input).
type Pictures struct{}

var (
	_ games.Picture = Pictures{}
	_ games.Input   = Pictures{}
)

var errNotLyngk = errors.New("lyngkpicture: not a LYNGK position")

func options(marks *[2]string) []Option {
	if marks == nil {
		return nil
	}
	return []Option{Over(*marks)}
}

// Size is Width×Height.
func (Pictures) Size() (int, int) { return Width, Height }

// PNG is [PNG] of a position of lyngk.Rules.
func (Pictures) PNG(p games.Position, names [2]string, marks *[2]string) ([]byte, error) {
	g, ok := lyngk.Of(p)
	if !ok {
		return nil, errNotLyngk
	}
	return PNG(g, names, options(marks)...)
}

// SVG is [SVG] of a position of lyngk.Rules.
func (Pictures) SVG(p games.Position, names [2]string, marks *[2]string) ([]byte, error) {
	g, ok := lyngk.Of(p)
	if !ok {
		return nil, errNotLyngk
	}
	return SVG(g, names, options(marks)...)
}

// Sides are each player's claimed colours, labelled in the piece's colour
// of the picture (dark ink on ivory), and the stacks removed.
func (Pictures) Sides(p games.Position) [2]games.Side {
	var sides [2]games.Side
	g, ok := lyngk.Of(p)
	if !ok {
		return sides
	}
	for i := range sides {
		sides[i].Count = g.Removed(i + 1)
		sides[i].LabelsTitle, sides[i].None, sides[i].Unit = "Colours claimed", "no colour claimed", [2]string{"stack", "stacks"}
		for _, c := range g.Claims(i + 1) {
			col, _ := Color(c.Letter())
			ink := "#ffffff"
			if c == lyngk.Ivory {
				ink = "#111111"
			}
			sides[i].Labels = append(sides[i].Labels, games.Label{Name: c.Name(), Hex: fmt.Sprintf("#%02x%02x%02x", col.R, col.G, col.B), Ink: ink})
		}
	}
	return sides
}

// minSpot is the least radius of a stack's circle to click, in the
// picture's pixels: more than a lone piece's disc (12), to be easier to
// hit, and less than half the distance of two points (34), so that the
// circles of neighbours never meet.
const minSpot = 14

// Spots are the stacks of p, each a circle over its stack in the picture.
func (Pictures) Spots(p games.Position) []games.Spot {
	g, ok := lyngk.Of(p)
	if !ok {
		return nil
	}
	var spots []games.Spot
	for q := range lyngk.Point(lyngk.NumPoints) {
		if height := g.Height(q); height > 0 {
			x, y := Center(q)
			spots = append(spots, games.Spot{Point: q.String(), X: x, Y: y, R: max(Radius(height), minSpot)})
		}
	}
	return spots
}

// Clicks: a move is clicked as its stack, its destination and the colour
// it claims, if any.
func (Pictures) Clicks(_ games.Position, move string) (games.Click, error) {
	m, _, err := lyngk.ParseMove(move)
	if err != nil {
		return games.Click{}, err
	}
	c := games.Click{Move: move, From: m.From.String(), To: m.To.String()}
	if m.Claim != lyngk.NoColor {
		c.Choice = m.Claim.Name()
	}
	return c, nil
}
