package yinsh

import (
	"fmt"
	"strings"

	"lyngk.example/lyngk/engine/games"
)

// YINSH in boardspace.net's records (games.Boardspace). Boardspace names
// the points as the GIPF notation does, and as this package: columns A to
// K, numbers 1 to 11 along the same three lines, so a point's name only
// changes case ("G 11" is g11). A whole real game checks it (sgf_test.go):
// every step of it is legal here, each row removed is five markers of the
// remover's colour, and the game ends as boardspace says it did.
//
// The steps, as boardspace's Yinshmovespec writes them: "place wr  G 11"
// a ring placed (wr white, br black), "move G 9 F 9" a ring moved, "remove
// w C 2 C 6" a row by its ends, "remove wr I 6" a ring. Boardspace's
// viewer also writes a move made by hand as "place w K 8" (the marker put
// in the ring) then "drop board K 9" (the ring put down), and old records
// a placement as "pick wr 2" then "drop board G 11"; both are read.

var _ games.Boardspace = Rules

// BoardspaceHeader is GM[24], SU[Yinsh] (blitz: Yinsh-Blitz) and "Start
// White".
func (r rules) BoardspaceHeader(variant string) (gm, su, start string) {
	su = "Yinsh"
	if variant == r.Variants[Blitz] {
		su = "Yinsh-Blitz"
	}
	return "24", su, "Start White"
}

// BoardspaceVariant reads SU: "Yinsh" or "Yinsh-Blitz", in any case.
func (r rules) BoardspaceVariant(su string) (string, bool) {
	switch strings.ToLower(su) {
	case "yinsh":
		return r.Variants[Normal], true
	case "yinsh-blitz":
		return r.Variants[Blitz], true
	}
	return "", false
}

// colours are the letters of a player's markers and rings in boardspace's
// steps, by player (1 white, 2 black).
var colours = [3][2]string{{}, {"w", "wr"}, {"b", "br"}}

// bsPoint writes p as boardspace does: "G 11".
func bsPoint(p Point) string {
	return fmt.Sprintf("%c %d", 'A'+geo.col[p], geo.num[p])
}

// BoardspaceSteps writes turn move of player.
func (rules) BoardspaceSteps(move string, player int) ([]string, error) {
	if player != 1 && player != 2 {
		return nil, fmt.Errorf("yinsh: no player %d", player)
	}
	t, _, err := ParseTurn(move)
	if err != nil {
		return nil, err
	}
	if t.IsPass() {
		return nil, nil
	}
	c := colours[player]
	var steps []string
	removals := func(rs []Removal) error {
		for _, r := range rs {
			if r.From == NoPoint {
				return fmt.Errorf("%w %q: a row without its ends", ErrNotation, move)
			}
			steps = append(steps, "remove "+c[0]+" "+bsPoint(r.From)+" "+bsPoint(r.To), "remove "+c[1]+" "+bsPoint(r.Ring))
		}
		return nil
	}
	if err := removals(t.Pre[:t.NPre]); err != nil {
		return nil, err
	}
	switch t.Action {
	case Place:
		steps = append(steps, "place "+c[1]+"  "+bsPoint(t.To))
	case Move:
		steps = append(steps, "move "+bsPoint(t.From)+" "+bsPoint(t.To))
	}
	if err := removals(t.Post[:t.NPost]); err != nil {
		return nil, err
	}
	return steps, nil
}

// BoardspaceMove reads the steps of one turn of player into a turn in the
// notation, its parts in the order of the steps.
func (rules) BoardspaceMove(steps []string, player int) (string, error) {
	if player != 1 && player != 2 {
		return "", fmt.Errorf("yinsh: no player %d", player)
	}
	c := colours[player]
	var parts []string
	var held string // a ring picked up, before its "drop board": "wr" from the reserve, else its point
	for _, step := range steps {
		f := strings.Fields(step)
		bad := func(why string) (string, error) {
			return "", fmt.Errorf("yinsh: step %q: %s", step, why)
		}
		points := func(words []string) ([]string, bool) {
			if len(words)%2 != 0 {
				return nil, false
			}
			var out []string
			for i := 0; i < len(words); i += 2 {
				if len(words[i]) != 1 {
					return nil, false
				}
				p, ok := ParsePoint(words[i] + words[i+1])
				if !ok {
					return nil, false
				}
				out = append(out, p.String())
			}
			return out, true
		}
		if len(f) == 0 {
			return bad("an empty step")
		}
		op := strings.ToLower(f[0])
		var what string
		if len(f) > 1 {
			what = strings.ToLower(f[1])
		}
		switch {
		case op == "place" && (what == c[1] || what == c[0]) && len(f) == 4:
			ps, ok := points(f[2:])
			if !ok {
				return bad("no such point")
			}
			if what == c[1] {
				parts = append(parts, ps[0])
			} else {
				held = ps[0] // the marker goes in the ring, which moves on
			}
		case op == "pick" && what == c[1]:
			held = c[1]
		case op == "pick" && what == "board" && len(f) == 4:
			ps, ok := points(f[2:])
			if !ok {
				return bad("no such point")
			}
			held = ps[0]
		case op == "drop" && what == "board" && len(f) == 4:
			ps, ok := points(f[2:])
			if !ok {
				return bad("no such point")
			}
			switch held {
			case "":
				return bad("a ring put down that was not picked up")
			case c[1]:
				parts = append(parts, ps[0])
			default:
				parts = append(parts, held+"-"+ps[0])
			}
			held = ""
		case op == "move" && len(f) == 5:
			ps, ok := points(f[1:])
			if !ok {
				return bad("no such point")
			}
			parts = append(parts, ps[0]+"-"+ps[1])
		case op == "remove" && what == c[0] && len(f) == 6:
			ps, ok := points(f[2:])
			if !ok {
				return bad("no such point")
			}
			parts = append(parts, "x"+ps[0]+"-"+ps[1])
		case op == "remove" && what == c[1] && len(f) == 4:
			ps, ok := points(f[2:])
			if !ok {
				return bad("no such point")
			}
			parts = append(parts, "x"+ps[0])
		case (op == "place" || op == "remove" || op == "pick") && (what == "w" || what == "wr" || what == "b" || what == "br"):
			return bad("not the colour of " + [3]string{"", "white", "black"}[player] + ", who makes it")
		default:
			return bad("not a step of YINSH (place, move, remove, pick, drop)")
		}
	}
	if held != "" {
		return "", fmt.Errorf("yinsh: steps %q: a ring picked up and never put down", strings.Join(steps, "; "))
	}
	if len(parts) == 0 {
		return "", fmt.Errorf("yinsh: steps %q: no move", strings.Join(steps, "; "))
	}
	return strings.Join(parts, ";"), nil
}
