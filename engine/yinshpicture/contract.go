package yinshpicture

import (
	"fmt"

	"lyngk.example/lyngk/engine/draw"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/yinsh"
)

// Pictures is YINSH's picture in the game contract (games.Picture) and its
// clicks on the play page (games.Input): the default adapter of package
// games around Drawing and the functions below.
var Pictures = games.Pictures[yinsh.Game, draw.Option]{Width: Width, Height: Height, DrawPNG: Drawing.PNG, DrawSVG: Drawing.SVG, Over: draw.Over,
	SidesOf: sides, SpotsOf: spots, ClicksOf: clicks}

// sides are each player's colour (white, black) and the rings he has
// removed.
func sides(g *yinsh.Game) [2]games.Side {
	var out [2]games.Side
	out[0].Labels = []games.Label{{Name: "white", Hex: "#fafaf6", Ink: "#111111"}}
	out[1].Labels = []games.Label{{Name: "black", Hex: "#222222", Ink: "#ffffff"}}
	for i := range out {
		out[i].Count = g.Removed(i + 1)
		out[i].LabelsTitle, out[i].None, out[i].Unit = "Colour", "", [2]string{"ring", "rings"}
	}
	return out
}

// spotR is the radius of a point's mark on the play page, in the
// picture's pixels: just around a ring (11, and half its stroke), far less
// than half the distance of two neighbours (about 50). A tap picks the
// nearest point within half that distance whatever the radius.
const spotR = 15

// spots are the 85 points of the board: a turn's clicks are on vacant
// points (placement, destination), rings and markers alike.
func spots(*yinsh.Game) []games.Spot {
	spots := make([]games.Spot, 0, yinsh.NumPoints)
	for q := range yinsh.Point(yinsh.NumPoints) {
		x, y := Center(q)
		spots = append(spots, games.Spot{Point: q.String(), X: x, Y: y, R: spotR})
	}
	return spots
}

// clicks: a turn is clicked part by part, in the order of its notation
// (games.Click.Steps): a removal as its row, by either end marker, then
// its ring; a placement as its point; a ring move as the ring, then its
// destination. move is a legal turn, in the long form.
func clicks(_ *yinsh.Game, move string) (games.Click, error) {
	t, _, err := yinsh.ParseTurn(move)
	if err != nil {
		return games.Click{}, err
	}
	c := games.Click{Move: move}
	one := func(p yinsh.Point) { c.Steps = append(c.Steps, []string{p.String()}) }
	removals := func(rs []yinsh.Removal) error {
		for _, r := range rs {
			if r.From == yinsh.NoPoint {
				return fmt.Errorf("yinshpicture: turn %q: a row without its ends", move)
			}
			c.Steps = append(c.Steps, []string{r.From.String(), r.To.String()})
			one(r.Ring)
		}
		return nil
	}
	if err := removals(t.Pre[:t.NPre]); err != nil {
		return games.Click{}, err
	}
	switch t.Action {
	case yinsh.Place:
		one(t.To)
	case yinsh.Move:
		one(t.From)
		one(t.To)
	}
	if err := removals(t.Post[:t.NPost]); err != nil {
		return games.Click{}, err
	}
	if len(c.Steps) == 0 {
		return games.Click{}, fmt.Errorf("yinshpicture: turn %q has nothing to click", move)
	}
	return c, nil
}
