package lyngksearch

import (
	"os"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine/lyngk"
)

// TestCountLead: the robot's draw rule (Robot.AcceptDraw) counts as
// rulebook G does. In
// testdata/robot-count.txt player 1 (Red, Green) removed a stack, player 2
// (Blue, blacK) none. Without that stack the stacks on the board decide,
// from the tallest: at height 4 player 2 tops two (BGIK, BIGR), player 1
// none.
func TestCountLead(t *testing.T) {
	data, err := os.ReadFile("testdata/robot-count.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		board  string
		p1, p2 int
	}{
		{string(data), 1, -1},
		{strings.Replace(string(data), "robot: 1 stacks", "robot: 0 stacks", 1), -2, 2},
	} {
		pos, _, err := lyngk.ParseBoard(tt.board)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := countLead(&pos, 1), countLead(&pos, 2); a != tt.p1 || b != tt.p2 {
			t.Errorf("leads %d, %d; want %d, %d", a, b, tt.p1, tt.p2)
		}
		p := lyngk.Position(pos)
		if a, b := Robot.AcceptDraw(p, 1), Robot.AcceptDraw(p, 2); a != (tt.p1 <= 0) || b != (tt.p2 <= 0) {
			t.Errorf("accepts a draw: %t, %t", a, b)
		}
	}
}
