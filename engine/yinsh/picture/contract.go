package picture

import (
	"errors"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/yinsh"
)

// Pictures is YINSH's picture in the game contract (games.Picture).
type Pictures struct{}

var _ games.Picture = Pictures{}

var errNotYinsh = errors.New("picture: not a YINSH position")

func options(marks *[2]string) []Option {
	if marks == nil {
		return nil
	}
	return []Option{Over(*marks)}
}

// Size is Width×Height.
func (Pictures) Size() (int, int) { return Width, Height }

// PNG is [PNG] of a position of yinsh.Rules.
func (Pictures) PNG(p games.Position, names [2]string, marks *[2]string) ([]byte, error) {
	g, ok := yinsh.Of(p)
	if !ok {
		return nil, errNotYinsh
	}
	return PNG(g, names, options(marks)...)
}

// SVG is [SVG] of a position of yinsh.Rules.
func (Pictures) SVG(p games.Position, names [2]string, marks *[2]string) ([]byte, error) {
	g, ok := yinsh.Of(p)
	if !ok {
		return nil, errNotYinsh
	}
	return SVG(g, names, options(marks)...)
}

// Sides are each player's colour (white, black) and the rings he has
// removed.
func (Pictures) Sides(p games.Position) [2]games.Side {
	var sides [2]games.Side
	g, ok := yinsh.Of(p)
	if !ok {
		return sides
	}
	sides[0].Labels = []games.Label{{Name: "white", Hex: "#fafaf6", Ink: "#111111"}}
	sides[1].Labels = []games.Label{{Name: "black", Hex: "#222222", Ink: "#ffffff"}}
	for i := range sides {
		sides[i].Count = g.Removed(i + 1)
		sides[i].LabelsTitle, sides[i].None, sides[i].Unit = "Colour", "", [2]string{"ring", "rings"}
	}
	return sides
}
