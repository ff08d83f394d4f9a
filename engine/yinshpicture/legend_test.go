package yinshpicture

import (
	"fmt"
	"strings"
	"testing"

	"gonum.org/v1/plot/vg"

	"lyngk.example/lyngk/engine/draw"
	"lyngk.example/lyngk/engine/yinsh"
)

// recorder is a Painter that keeps where each piece goes.
type recorder []recorded

type recorded struct {
	key string
	at  vg.Point
}

func (r *recorder) Piece(key string, at vg.Point, _ vg.Rectangle, _ func(vg.Canvas)) {
	*r = append(*r, recorded{key, at})
}

// wider is how much wider than Go's font the text of the SVG may be drawn:
// a browser without Go's font takes its own sans serif, DejaVu Sans
// 14% wider.
const wider = 1.2

// ringHalf is half a ring's width in the legend, with its edge.
const ringHalf = ringR + ringW/2 + 1

// TestLegendRemovedRings: on the line of a player's rings removed, the
// rings never meet the text, even in a font 20% wider than Go's (as a
// browser draws the SVG without Go's font), and the text stays in its
// column: for 0 to 3 rings of both players, as the layout places them, and
// in the legend of every position of a whole game (the text used to be
// first, with the rings right after its width in Go's font: in the
// browser "1 ring removed" ran under its ring).
func TestLegendRemovedRings(t *testing.T) {
	if err := draw.Fonts(); err != nil {
		t.Fatal(err)
	}
	f := draw.Face("regular", draw.TextSize)
	check := func(name string, i int, icons []vg.Point, text vg.Point, s string) {
		t.Helper()
		end := text.X + wider*f.Width(s)
		limit := vg.Length(Width) - 4
		if i == 0 {
			limit = draw.Column(Width, 1) - 4
		}
		if end > limit {
			t.Errorf("%s: %q of player %d ends at %.0f, past %.0f", name, s, i+1, end, limit)
		}
		for k, at := range icons {
			if at.X+ringHalf > text.X && at.X-ringHalf < end {
				t.Errorf("%s: ring %d of player %d (%.0f to %.0f) meets %q (%.0f to %.0f)", name, k+1, i+1, at.X-ringHalf, at.X+ringHalf, s, text.X, end)
			}
			if k > 0 && at.X-icons[k-1].X < 2*ringHalf {
				t.Errorf("%s: rings %d and %d of player %d meet", name, k, k+1, i+1)
			}
		}
	}
	for i := range 2 {
		for n := range 4 {
			icons, text := removedLine(vg.Point{X: draw.Column(Width, i) + 24, Y: 16}, n)
			if len(icons) != n {
				t.Errorf("%d rings laid out as %d", n, len(icons))
			}
			check("layout", i, icons, text, "3 rings removed")
		}
	}

	g := yinsh.New(yinsh.Normal)
	seen := map[[2]int]bool{}
	for k, s := range strings.Fields(game) {
		tn, _, err := yinsh.ParseTurn(s)
		if err == nil {
			err = g.Apply(tn)
		}
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if seen[[2]int{g.Removed(1), g.Removed(2)}] {
			continue
		}
		seen[[2]int{g.Removed(1), g.Removed(2)}] = true
		var r recorder
		drawLegend(&r, &g, names, draw.Legend{})
		for i := range 2 {
			var icons []vg.Point
			var text vg.Point
			var s string
			for _, p := range r {
				if (p.at.X < Width/2) != (i == 0) {
					continue
				}
				switch {
				case strings.HasPrefix(p.key, "ring ") && p.at.Y < 40:
					icons = append(icons, p.at)
				case strings.HasSuffix(p.key, " removed"):
					// "word FACE SIZE RRGGBB TEXT"
					text, s = p.at, strings.SplitN(p.key, " ", 5)[4]
				}
			}
			if len(icons) != g.Removed(i+1) || !strings.HasPrefix(s, string(rune('0'+g.Removed(i+1)))) {
				t.Fatalf("after turn %d: player %d has %d rings removed, the legend %d and %q", k+1, i+1, g.Removed(i+1), len(icons), s)
			}
			check(fmt.Sprintf("after turn %d", k+1), i, icons, text, s)
		}
	}
	if len(seen) < 4 {
		t.Errorf("the game's positions had only %d counts of rings removed", len(seen))
	}
}
