// Package gamestest holds a game for the tests of the server: tic-tac-toe,
// a whole game of the contract (package games) in a hundred lines, with a
// picture and clicks, to show that the engine, its mails and its web part
// know no game but through the contract. No server offers it: only tests
// import this package.
package gamestest

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strconv"
	"strings"

	"lyngk.example/lyngk/engine/games"
)

// TicTacToe is the game: cells a1 to c3 (column letter, row number), X
// (the first player) moves first, three in a row wins, a full board is a
// tie.
var TicTacToe = games.Game{Rules: rules{}, Picture: picture{}, Input: picture{}}

type rules struct{}

func (rules) Name() string  { return "tictactoe" }
func (rules) Title() string { return "Tictactoe" }

func (rules) Variant(option string) (string, bool) { return "standard", option == "" }

func (rules) New(_ int, variant string) (games.Position, error) {
	if variant != "standard" {
		return nil, fmt.Errorf("tictactoe: no variant %q", variant)
	}
	return &position{}, nil
}

func (rules) MoveWords(words []string) int { return min(len(words), 1) }

func (rules) LooksLikeMove(s string) bool { _, ok := cell(s); return ok }

// position: cells[i] is 0 (empty), 1 (X) or 2 (O), i = 3*column + row.
type position struct {
	cells [9]uint8
	moves []string
}

type move int

func (m move) String() string { return string(rune('a'+int(m)/3)) + strconv.Itoa(int(m)%3+1) }

func cell(s string) (move, bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if len(s) != 2 || s[0] < 'a' || s[0] > 'c' || s[1] < '1' || s[1] > '3' {
		return 0, false
	}
	return move(int(s[0]-'a')*3 + int(s[1]-'1')), true
}

var lines = [8][3]int{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {0, 3, 6}, {1, 4, 7}, {2, 5, 8}, {0, 4, 8}, {2, 4, 6}}

func (p *position) Winner() int {
	for _, l := range lines {
		if c := p.cells[l[0]]; c != 0 && c == p.cells[l[1]] && c == p.cells[l[2]] {
			return int(c)
		}
	}
	return 0
}

func (p *position) Outcome() games.Outcome {
	switch {
	case p.Winner() != 0:
		return games.Won
	case len(p.moves) == 9:
		return games.Tie
	}
	return games.Playing
}

func (p *position) Turn() int {
	if p.Outcome() != games.Playing {
		return 0
	}
	return len(p.moves)%2 + 1
}

func (p *position) Parse(s string) (games.Move, int, error) {
	text, num, hasNum := strings.Cut(s, "#")
	n := 0
	if hasNum {
		var err error
		if n, err = strconv.Atoi(num); err != nil || n < 1 {
			return nil, 0, &games.MoveError{Err: games.ErrNotation, Move: s, Reason: "A move number is a positive number"}
		}
	}
	m, ok := cell(text)
	if !ok {
		return nil, 0, &games.MoveError{Err: games.ErrNotation, Move: s, Reason: "A move is a cell, a1 to c3"}
	}
	return m, n, nil
}

func (p *position) Play(m games.Move) error {
	c, ok := m.(move)
	switch {
	case !ok || p.Turn() == 0:
		return &games.MoveError{Err: games.ErrIllegal, Move: m.String(), Reason: "the game is over"}
	case p.cells[c] != 0:
		return &games.MoveError{Err: games.ErrIllegal, Move: c.String(), Reason: c.String() + " is taken"}
	}
	p.cells[c] = uint8(p.Turn())
	p.moves = append(p.moves, c.String())
	return nil
}

func (p *position) Moves() []string { return append([]string(nil), p.moves...) }

func (p *position) Legal() []string {
	var out []string
	for i := range p.cells {
		if p.Turn() != 0 && p.cells[i] == 0 {
			out = append(out, move(i).String())
		}
	}
	return out
}

func (p *position) Board(names [2]string) string {
	var b strings.Builder
	for row := 2; row >= 0; row-- {
		fmt.Fprintf(&b, "%d ", row+1)
		for col := range 3 {
			b.WriteByte(" XO"[p.cells[3*col+row]])
		}
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "  abc\nX: %s\nO: %s\n", names[0], names[1])
	return b.String()
}

func (p *position) Fields() []games.Field {
	return []games.Field{{Name: "cells", Value: strings.ReplaceAll(p.Board([2]string{}), "\n", "/")}}
}

func (p *position) Clone() games.Position {
	q := *p
	q.moves = p.Moves()
	return &q
}

// picture draws the board as three rows of squares, 30 pixels each.
type picture struct{}

func (picture) Size() (int, int) { return 90, 90 }

func (picture) PNG(gp games.Position, _ [2]string, _ *[2]string) ([]byte, error) {
	p := gp.(*position)
	img := image.NewGray(image.Rect(0, 0, 90, 90))
	for i, c := range p.cells {
		for x := range 28 {
			for y := range 28 {
				img.SetGray(30*(i/3)+x, 30*(2-i%3)+y, color.Gray{Y: [3]uint8{255, 0, 128}[c]})
			}
		}
	}
	var b bytes.Buffer
	err := png.Encode(&b, img)
	return b.Bytes(), err
}

func (picture) SVG(gp games.Position, _ [2]string, _ *[2]string) ([]byte, error) {
	p := gp.(*position)
	var b strings.Builder
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" width="90pt" height="90pt" viewBox="0 0 90 90">`)
	for i, c := range p.cells {
		fmt.Fprintf(&b, `<text x="%d" y="%d">%c</text>`, 30*(i/3)+10, 30*(2-i%3)+20, " XO"[c])
	}
	b.WriteString("</svg>\n")
	return []byte(b.String()), nil
}

func (picture) Sides(gp games.Position) [2]games.Side {
	p := gp.(*position)
	var s [2]games.Side
	for _, c := range p.cells {
		if c != 0 {
			s[c-1].Count++
		}
	}
	return s
}

func (picture) Spots(gp games.Position) []games.Spot {
	var out []games.Spot
	for _, m := range gp.Legal() {
		c, _ := cell(m)
		out = append(out, games.Spot{Point: m, X: float64(30*(int(c)/3) + 15), Y: float64(30*(2-int(c)%3) + 15), R: 14})
	}
	return out
}

func (picture) Clicks(_ games.Position, m string) (games.Click, error) {
	return games.Click{Move: m, From: m, To: m}, nil
}

// Texts are the game's texts (templates GAME.NAME, which every game
// offered brings), to add to a server's templates (templates.Set.With).
const Texts = `{{define "tictactoe.options"}}{{end}}
{{- define "tictactoe.options-help"}}{{end}}
{{- define "tictactoe.help"}}Tic-tac-toe: three in a row wins. A move is a cell, a1 to c3.{{end}}
{{- define "tictactoe.about"}}Tictactoe.{{end}}
{{- define "tictactoe.example"}}b2{{end}}
{{- define "tictactoe.help-topic"}}tictactoe{{end}}
{{- define "tictactoe.play-examples"}}b2{{end}}`
