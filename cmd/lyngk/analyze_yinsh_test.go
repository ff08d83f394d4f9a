package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// yinshExample is the GIPF notation page's example (yinsh-board.md): ten
// placements, then the ring move h7-g7.
const yinshExample = "e3 a5 b5 c6 d6 e4 h7 g2 g3 g8 h7-g7"

// yinshGame is a whole game (the random game of seed 72 of engine/yinsh's
// RandomTurn): white wins 3-1 in 57 turns, with a row removed after a move
// (turn 31), a row owed and removed at the start of a turn (turn 49), and
// the third ring mid-turn at the end.
const yinshGame = "c5 e2 i9 j5 d5 g9 g5 i5 d3 f6 i9-i7 j5-j7 c5-a3 e2-d1 a3-c3 g9-d6 d5-f5 i5-h5 g5-f4 d6-b4 " +
	"c3-b3 j7-k7 i7-k9 b4-e7 d3-e4 f6-h8 k9-h9 h5-i6 f5-e5 i6-g4 e5-b2;xd5-h5;xe4 k7-k8 f4-f7 h8-j8 " +
	"h9-f9 k8-k10 f7-f8 e7-g7 b2-d2 d1-c1 f8-i8 g4-f3 b3-e3 c1-b1 e3-e1 f3-f5 d2-f2 f5-c2 " +
	"xa3-e3;xf9;i8-h7 g7-e5;xf3-f7;xe5 f2-j6 k10-j9 j6-h6 j9-j10 h6-e6 b1-b3 e6-e8;xc5-g9;xe1"

// TestAnalyzeYinshGolden runs lyngk analyze -game yinsh
// and compares exit status, stdout and stderr with
// testdata/analyze/yinsh-NAME.golden.
func TestAnalyzeYinshGolden(t *testing.T) {
	tests := []struct {
		name string
		args string
	}{
		{"start", "-game yinsh"},
		{"example", "-game yinsh -players alice,bob " + yinshExample},
		{"example-json", "-game=yinsh -json " + yinshExample},
		{"blitz-json", "-json -b -game yinsh e3 a5 -- b5#3"},
		{"short-form", "-game yinsh " + strings.NewReplacer("xa3-e3;xf9;i8-h7", "XF9;I8-H7", "g7-e5;xf3-f7;xe5", "g7-e5;xe5",
			"e6-e8;xc5-g9;xe1", "e6-e8;xe1").Replace(yinshGame)},
		{"short-form-ambiguous", "-game yinsh " + strings.Replace(yinshGame, "e5-b2;xd5-h5;xe4", "e5-b2;xe4", 1)},
		{"whole-game-json", "-game yinsh -json " + yinshGame},
		{"illegal-move", "-game yinsh e3 e3"},
		{"bad-notation", "-game yinsh e3 a5 b5-"},
		{"move-number-mismatch", "-game yinsh e3 a5#3"},
		{"move-after-end", "-game yinsh " + yinshGame + " a2"},
		{"owed-row-missing", "-game yinsh " + strings.Replace(yinshGame, "xa3-e3;xf9;i8-h7", "i8-h7", 1)},
		{"robot", "-game yinsh -robot -playouts 300 " + yinshExample},
		{"robot-json", "-game yinsh -json -robot -playouts 300 e3 a5"},
		{"robot-game-over", "-game yinsh -robot -playouts 300 " + yinshGame},
		{"usage-lyngk-flag", "-game yinsh -seed 101"},
		{"usage-stack6", "-game yinsh -stack6"},
		{"usage-think-without-robot", "-game yinsh -playouts 10"},
		{"usage-no-game", "-game chess"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runAnalyze(strings.Fields(tt.args), &stdout, &stderr)
			got := fmt.Sprintf("$ lyngk analyze %s\nexit %d\n--- stdout\n%s--- stderr\n%s", tt.args, code, stdout.String(), stderr.String())
			goldenFile(t, filepath.Join("testdata", "analyze", "yinsh-"+tt.name+".golden"), got)
		})
	}
}

// TestAnalyzeYinshContract checks the JSON's promises independently of the
// goldens: the keys in order, the board field equal to the plain output,
// the long form of a short-form turn, passes skipped, points sorted
// bytewise, legal sorted and [] when over, and -game lyngk as the default.
func TestAnalyzeYinshContract(t *testing.T) {
	run := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := runAnalyze(args, &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	moves := strings.Fields(yinshGame)
	code, plain, _ := run(append([]string{"-game", "yinsh"}, moves[:50]...)...)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	short := append([]string{"-game", "yinsh", "-json"}, moves[:50]...)
	short[len(short)-2], short[len(short)-1] = "xf9;i8-h7", "g7-e5;xe5"
	code, out, errs := run(short...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	keys := jsonKeys(t, out)
	want := []string{"game", "variant", "board", "moves", "turn", "status", "winner", "rings_removed", "pool", "rings", "markers", "legal"}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
	var a struct {
		Game, Variant, Board, Status string
		Moves, Legal                 []string
		Turn, Winner, Pool           int
		RingsRemoved                 []int `json:"rings_removed"`
		Rings, Markers               map[string][]string
	}
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatal(err)
	}
	if a.Board != plain || a.Game != "yinsh" || a.Variant != "normal" || a.Moves[30] != "e5-b2;xd5-h5;xe4" ||
		a.Moves[48] != "xa3-e3;xf9;i8-h7" || a.Moves[49] != "g7-e5;xf3-f7;xe5" ||
		a.Turn != 1 || a.Status != "playing" || !reflect.DeepEqual(a.RingsRemoved, []int{2, 1}) || a.Pool != 51-40+15 {
		t.Errorf("analysis %+v", a)
	}
	for _, list := range [][]string{a.Legal, a.Rings["white"], a.Rings["black"], a.Markers["white"], a.Markers["black"]} {
		for i := 1; i < len(list); i++ {
			if list[i-1] >= list[i] {
				t.Fatalf("not sorted bytewise at %q, %q", list[i-1], list[i])
			}
		}
	}
	_, out, _ = run(append([]string{"-game", "yinsh", "-json"}, moves...)...)
	if !strings.Contains(out, `"turn":0,"status":"won","winner":1,"rings_removed":[3,1]`) || !strings.HasSuffix(out, `"legal":[]}`+"\n") {
		t.Errorf("the end: %s", out[strings.Index(out, `"moves"`):])
	}
	_, lyngkDefault, _ := run("-seed", "101", "-json", "G,c1-d1")
	_, lyngkNamed, _ := run("-seed", "101", "-game", "lyngk", "-json", "G,c1-d1")
	if lyngkDefault != lyngkNamed || lyngkDefault == "" {
		t.Error("-game lyngk differs from the default")
	}
}
