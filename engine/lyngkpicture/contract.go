package lyngkpicture

import (
	"fmt"

	"lyngk.example/lyngk/engine/draw"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
)

// sides are each player's claimed colours, labelled in the piece's colour
// of the picture (dark ink on ivory), and the stacks removed.
func sides(g *lyngk.Game) [2]games.Side {
	var out [2]games.Side
	for i := range out {
		out[i].Count = g.Removed(i + 1)
		out[i].LabelsTitle, out[i].None, out[i].Unit = "Colours claimed", "no colour claimed", [2]string{"stack", "stacks"}
		for _, c := range g.Claims(i + 1) {
			col, _ := Color(c.Letter())
			ink := "#ffffff"
			if c == lyngk.Ivory {
				ink = "#111111"
			}
			out[i].Labels = append(out[i].Labels, games.Label{Name: c.Name(), Hex: fmt.Sprintf("#%02x%02x%02x", col.R, col.G, col.B), Ink: ink})
		}
	}
	return out
}

// minSpot is the least radius of a stack's circle to click, in the
// picture's pixels: more than a lone piece's disc (12), to be easier to
// hit, and less than half the distance of two points (34), so that the
// circles of neighbours never meet.
const minSpot = 14

// spots are the stacks of p, each a circle over its stack in the picture.
func spots(g *lyngk.Game) []games.Spot {
	var spots []games.Spot
	for q := range lyngk.Point(lyngk.NumPoints) {
		if height := g.Height(q); height > 0 {
			x, y := Center(q)
			spots = append(spots, games.Spot{Point: q.String(), X: x, Y: y, R: max(Radius(height), minSpot)})
		}
	}
	return spots
}

// clicks: a move is clicked as its stack, its destination and the colour
// it claims, if any.
func clicks(_ *lyngk.Game, move string) (games.Click, error) {
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

// Pictures is LYNGK's picture in the game contract (games.Picture) and its
// clicks on the play page (games.Input): the default adapter of package
// games around Drawing and the functions below.
var Pictures = games.Pictures[lyngk.Game, draw.Option]{Width: Width, Height: Height, DrawPNG: Drawing.PNG, DrawSVG: Drawing.SVG, Over: draw.Over,
	SidesOf: sides, SpotsOf: spots, ClicksOf: clicks}
