package record_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/engine/record"
	"lyngk.example/lyngk/engine/yinsh"
)

var both = []games.Game{{Rules: lyngk.Rules}, {Rules: yinsh.Rules}}

// TestBoardspaceRealGames: real YINSH games of boardspace.net's archive
// (testdata/boardspace, README.md there) read, replay legally here with the
// points named as they are, and end as boardspace recorded: the first by
// Dumbot's third row (won by the rules, the winner RE names), the second
// by white's resignation. The rows removed are checked against the
// position by the rules themselves, so a wrong mapping of the points
// would make a step illegal.
func TestBoardspaceRealGames(t *testing.T) {
	tests := []struct {
		file      string
		players   [2]string
		result    string
		moves     int
		last      string
		removed   [2]int
		status    games.Outcome
		resigned  bool
		firstMove string
	}{
		{file: "Y-DrMih-Dumbot-2026-02-20-0858.sgf", players: [2]string{"DrMih", "Dumbot"}, result: record.BlackWon,
			moves: 46, last: "c5-d5;xc1-c5;xf6", removed: [2]int{2, 3}, status: games.Won, firstMove: "h6"},
		{file: "Y-phiulbrich-BestBot-2026-03-21-2221.sgf", players: [2]string{"phiulbrich", "BestBot"}, result: record.BlackWon,
			moves: 43, last: record.Resign, removed: [2]int{1, 1}, status: games.Playing, resigned: true, firstMove: "j11"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", "boardspace", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			rs, err := record.ReadSGF(data, both)
			if err != nil {
				t.Fatal(err)
			}
			if len(rs) != 1 {
				t.Fatalf("%d games, want 1", len(rs))
			}
			r := rs[0]
			if r.Game != "yinsh" || r.Variant != "normal" || r.Players != tt.players || r.Result != tt.result {
				t.Errorf("read %s %s %v %s, want yinsh normal %v %s", r.Game, r.Variant, r.Players, r.Result, tt.players, tt.result)
			}
			pos, moves, err := record.Replay(yinsh.Rules, r)
			if err != nil {
				t.Fatal(err)
			}
			if len(moves) != tt.moves || moves[0] != tt.firstMove || moves[len(moves)-1] != tt.last {
				t.Errorf("%d moves, %q ... %q; want %d, %q ... %q\n%s", len(moves), moves[0], moves[len(moves)-1],
					tt.moves, tt.firstMove, tt.last, strings.Join(moves, " "))
			}
			g, _ := yinsh.Of(pos)
			if got := [2]int{g.Removed(1), g.Removed(2)}; got != tt.removed {
				t.Errorf("rings removed %v, want %v", got, tt.removed)
			}
			if pos.Outcome() != tt.status {
				t.Errorf("outcome %v, want %v", pos.Outcome(), tt.status)
			}
			if tt.status == games.Won && pos.Winner() != r.Winner() {
				t.Errorf("the rules' winner %d, the record's %d", pos.Winner(), r.Winner())
			}
			if tt.resigned != (r.Termination == "resign") {
				t.Errorf("termination %q", r.Termination)
			}
		})
	}
}
