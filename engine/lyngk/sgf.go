package lyngk

import (
	"fmt"
	"strings"

	"lyngk.example/lyngk/engine/games"
)

// LYNGK in boardspace.net's records (games.Boardspace), in the move names
// of boardspace's LyngkMovespec: "Move C 3 D 4" a stack moved, "Claim R F"
// a colour claimed (the colour, then the claimer: F the first player, S
// the second), "Pickb C 3 1" then "Dropb D 4" a stack moved by hand.
// Boardspace lays out LYNGK's board as this package does (columns A to I
// of 1, 4, 7, 6, 7, 6, 7, 4, 1 points from the same lattice rows), so a
// point's name changes only its case; its colours are named by their
// letters but black, which is N (noir).
//
// Boardspace draws a game's start from its own random generator and the
// game's key; this server's start is the board number's (Rules.New), so
// the record says the board (package record: the BN property), and a
// record of boardspace's own replays here only from the same start.

var _ games.Boardspace = Rules

// BoardspaceHeader is GM[Lyngk] (boardspace names some games by their
// name there), SU[lyngk] (stack6: lyngk-6, boardspace's variation names)
// and "Start P0".
func (r rules) BoardspaceHeader(variant string) (gm, su, start string) {
	su = "lyngk"
	if variant == r.Variants[Stack6] {
		su = "lyngk-6"
	}
	return "Lyngk", su, "Start P0"
}

// BoardspaceVariant reads SU: "lyngk" or "lyngk-6", in any case.
func (r rules) BoardspaceVariant(su string) (string, bool) {
	switch strings.ToLower(su) {
	case "lyngk":
		return r.Variants[Standard], true
	case "lyngk-6":
		return r.Variants[Stack6], true
	}
	return "", false
}

// bsColours are boardspace's names of the colours, by Color.
var bsColours = [...]string{Ivory: "I", Blue: "B", Red: "R", Green: "G", Black: "N"}

// bsPlayers name the claimer, by player.
var bsPlayers = [3]string{"", "F", "S"}

func bsPoint(p Point) string { return fmt.Sprintf("%c %d", 'A'+geo.x[p], geo.row[p]) }

// BoardspaceSteps writes move of player: its claim, then its move.
func (rules) BoardspaceSteps(move string, player int) ([]string, error) {
	if player != 1 && player != 2 {
		return nil, fmt.Errorf("lyngk: no player %d", player)
	}
	m, _, err := ParseMove(move)
	if err != nil {
		return nil, err
	}
	if m.IsPass() {
		return nil, nil
	}
	var steps []string
	if m.Claim != NoColor {
		steps = append(steps, "Claim "+bsColours[m.Claim]+" "+bsPlayers[player])
	}
	return append(steps, "Move "+bsPoint(m.From)+" "+bsPoint(m.To)), nil
}

// BoardspaceMove reads the steps of one turn of player: at most one claim,
// then one move.
func (rules) BoardspaceMove(steps []string, player int) (string, error) {
	if player != 1 && player != 2 {
		return "", fmt.Errorf("lyngk: no player %d", player)
	}
	var claim, from, move string
	for _, step := range steps {
		f := strings.Fields(step)
		bad := func(why string) (string, error) { return "", fmt.Errorf("lyngk: step %q: %s", step, why) }
		point := func(col, row string) (string, bool) {
			if len(col) != 1 {
				return "", false
			}
			p, ok := parsePoint(col + row)
			return p.String(), ok
		}
		if len(f) == 0 {
			return bad("an empty step")
		}
		if move != "" {
			return bad("a step after the move")
		}
		switch op := strings.ToLower(f[0]); {
		case op == "claim" && len(f) == 3:
			if claim != "" {
				return bad("a second claim")
			}
			if !strings.EqualFold(f[2], bsPlayers[player]) {
				return bad("a claim for the other player")
			}
			for c, name := range bsColours {
				if name != "" && strings.EqualFold(f[1], name) {
					claim = string(Color(c).Letter()) + ","
				}
			}
			if claim == "" {
				return bad("no colour " + f[1] + " (I, B, R, G, N)")
			}
		case op == "move" && len(f) == 5:
			a, okA := point(f[1], f[2])
			b, okB := point(f[3], f[4])
			if !okA || !okB {
				return bad("no such point")
			}
			move = a + "-" + b
		case op == "pickb" && (len(f) == 3 || len(f) == 4):
			a, ok := point(f[1], f[2])
			if !ok {
				return bad("no such point")
			}
			from = a
		case op == "dropb" && len(f) == 3:
			b, ok := point(f[1], f[2])
			if !ok {
				return bad("no such point")
			}
			if from == "" {
				return bad("a stack put down that was not picked up")
			}
			move = from + "-" + b
		default:
			return bad("not a step of LYNGK (Claim, Move, Pickb, Dropb)")
		}
	}
	if move == "" {
		return "", fmt.Errorf("lyngk: steps %q: no move", strings.Join(steps, "; "))
	}
	return claim + move, nil
}
