package web

import (
	"strings"

	"lyngk.example/lyngk/engine"
)

// The tables of a tournament page, made from the read API's
// engine.TournamentDetail: the standings with every tie-break as the
// engine ordered them, the crosstable with each result linked to its
// board, and the rounds.

// crossRow is one player's row of the crosstable. The rows and the
// columns are in the order of the standings, numbered from 1 as a printed
// table does: row i is the player ranked i-th, column j his result against
// the player of row j.
type crossRow struct {
	Number int
	Player string
	Cells  []crossCell
	Score  string
}

// crossCell is what the row's player scored against one opponent: one
// result a game they played (two in a doubled round robin, more when a
// knockout replays a drawn game), each linked to its board.
type crossCell struct {
	Self    bool
	Results []crossResult
}

// crossResult is one game in a crosstable cell: "1", "½", "0"; "+" and
// "−" for a game won and lost by forfeit; "·" while it is played. First
// says the row's player moved first.
type crossResult struct {
	Text  string
	Board int
	First bool
}

// crosstable makes the crosstable of d from its standings and rounds.
func crosstable(d *engine.TournamentDetail) []crossRow {
	number := map[string]int{}
	for i, s := range d.Standings {
		number[strings.ToLower(s.Player)] = i + 1
	}
	n := len(d.Standings)
	cells := make([][]crossCell, n)
	for i := range cells {
		cells[i] = make([]crossCell, n)
		cells[i][i].Self = true
	}
	for _, r := range d.Rounds {
		for _, g := range r.Games {
			if g.Black == "" { // a bye: in the standings, not in the table
				continue
			}
			w, okw := number[strings.ToLower(g.White)]
			b, okb := number[strings.ToLower(g.Black)]
			if !okw || !okb {
				continue
			}
			wt, bt := crossTexts(g.Result)
			cells[w-1][b-1].Results = append(cells[w-1][b-1].Results, crossResult{Text: wt, Board: g.Board, First: true})
			cells[b-1][w-1].Results = append(cells[b-1][w-1].Results, crossResult{Text: bt, Board: g.Board})
		}
	}
	rows := make([]crossRow, n)
	for i, s := range d.Standings {
		rows[i] = crossRow{Number: i + 1, Player: s.Player, Cells: cells[i], Score: s.ScoreText}
	}
	return rows
}

// crossTexts are what the first and the second player of a game with the
// read API's result scored, as a crosstable writes it.
func crossTexts(result string) (first, second string) {
	switch result {
	case "1-0":
		return "1", "0"
	case "0-1":
		return "0", "1"
	case "½-½":
		return "½", "½"
	case "+/-":
		return "+", "−"
	case "-/+":
		return "−", "+"
	}
	return "·", "·"
}
