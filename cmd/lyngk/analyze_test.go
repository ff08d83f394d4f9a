package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// game106 is a whole random game of board 106 (engine/lyngk
// testdata/game-106.golden), passes included.
const game106 = "B,c5-d4 c2-c3 K,e6-f6 I,c3-b1 f1-g1 c6-c7 d6-e7 d3-c4 e4-f3 G,d4-c1 " +
	"e5-e3 b1-d1 e3-f2 f6-f5 e7-b3 g5-h4 g1-g2 f3-g6 d5-g7 g6-c4 g7-g4 a1-b3 " +
	"b4-g3 b3-b2 h1-h2 f4-c7 d2-h2 e2-e1 g4-h3 -- i1-f5 -- g3-h2"

// TestAnalyzeGolden runs lyngk analyze and compares exit status, stdout and
// stderr with testdata/analyze/NAME.golden (SPEC §5).
func TestAnalyzeGolden(t *testing.T) {
	tests := []struct {
		name string
		args string
	}{
		{"seed", "-seed 101"},
		{"seed-json", "-seed 101 -json"},
		{"stack6", "-seed 102 -stack6 -players alice,bob"},
		{"moves-json", "-seed 101 -players alice,bob -json G,c1-d1 -- r,B1-b2#2 --#7 c2-c3"},
		{"flags-after-moves", "-seed 101 G,c1-d1 -json -players x,y"},
		{"whole-game-json", "-seed 106 -json " + game106},
		{"position-lyngk-json", "-position testdata/analyze/help-lyngk.txt -json b4-e2"},
		{"position-turn2-players", "-position testdata/analyze/help-lyngk.txt -turn 2 -players ann,bo R,g1-g2"},
		{"position-stack6-flag", "-position testdata/analyze/help-lyngk.txt -stack6"},
		{"position-pass-at-start-json", "-position testdata/analyze/pass-at-start.txt -json"},
		{"illegal-move", "-seed 101 G,c1-d1 c2-c3 c1-c2"},
		{"illegal-claim", "-seed 101 G,c1-d1 G,c2-c3"},
		{"bad-notation", "-seed 101 c1d1"},
		{"move-number-mismatch", "-seed 101 G,c1-d1#2"},
		{"move-after-end", "-seed 106 " + game106 + " c7-c6"},
		{"position-missing", "-position testdata/analyze/no-such-file.txt"},
		{"position-bad", "-position testdata/analyze/bad-board.txt"},
		{"usage-no-start", "b1-b2"},
		{"usage-both-starts", "-seed 101 -position testdata/analyze/help-lyngk.txt"},
		{"usage-turn", "-seed 101 -turn 3"},
		{"usage-players", "-seed 101 -players alice"},
		{"usage-seed", "-seed 0"},
		{"usage-flag", "-seed 101 -colour red"},
		{"robot", "-seed 101 -robot -playouts 3000"},
		{"robot-moves-json", "-seed 101 -players alice,bob G,c1-d1 -json -robot -playouts 3000"},
		{"robot-position-turn2", "-position testdata/analyze/help-lyngk.txt -turn 2 -robot -playouts 3000"},
		{"robot-stack6", "-seed 102 -stack6 -robot -playouts 3000"},
		{"robot-game-over", "-seed 106 -robot -playouts 3000 " + game106},
		{"robot-illegal-move", "-seed 101 -robot G,c1-d1 G,c2-c3"},
		{"usage-think-without-robot", "-seed 101 -think 1s"},
		{"usage-think-zero", "-seed 101 -robot -think 0s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runAnalyze(strings.Fields(tt.args), &stdout, &stderr)
			got := fmt.Sprintf("$ lyngk analyze %s\nexit %d\n--- stdout\n%s--- stderr\n%s", tt.args, code, stdout.String(), stderr.String())
			goldenFile(t, filepath.Join("testdata", "analyze", tt.name+".golden"), got)
		})
	}
}

// TestAnalyzeContract checks the points of SPEC §5 that other tools rely on,
// independently of the golden files: exit statuses, the JSON keys in their
// order, [] rather than null, the legal list sorted bytewise, and the board
// field equal to the plain output.
func TestAnalyzeContract(t *testing.T) {
	run := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := runAnalyze(args, &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	code, plain, _ := run("-seed", "101", "G,c1-d1")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	code, out, _ := run("-seed", "101", "-json", "G,c1-d1")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	keys := jsonKeys(t, out)
	if want := []string{"board", "moves", "turn", "status", "winner", "claims", "removed", "legal"}; !reflect.DeepEqual(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
	var a engine.Analysis
	if err := json.Unmarshal([]byte(out), &a); err != nil {
		t.Fatal(err)
	}
	if a.Board != plain {
		t.Error("the board field differs from the plain output")
	}
	if a.Turn != 2 || a.Status != "playing" || a.Winner != 0 || fmt.Sprintf("%s", a.Field("claims")) != `[["G"],[]]` ||
		!reflect.DeepEqual(a.Moves, []string{"G,c1-d1"}) || fmt.Sprintf("%s", a.Field("removed")) != `[0,0]` {
		t.Errorf("analysis %+v", a)
	}
	for i := 1; i < len(a.Legal); i++ {
		if a.Legal[i-1] >= a.Legal[i] {
			t.Fatalf("legal not sorted bytewise at %q, %q", a.Legal[i-1], a.Legal[i])
		}
	}
	if !strings.Contains(out, `"claims":[["G"],[]]`) {
		t.Errorf("empty claims are not []: %s", out)
	}

	code, out, _ = run(append([]string{"-seed", "106", "-json"}, strings.Fields(game106)...)...)
	if code != 0 || !strings.Contains(out, `"legal":[]`) || !strings.Contains(out, `"turn":0,"status":"won","winner":2`) {
		t.Errorf("finished game: exit %d\n%s", code, out)
	}

	code, out, errOut := run("-seed", "101", "G,c1-d1", "c1-c2")
	if code != 1 || out != "" || errOut != "move 2 (c1-c2): there is no stack on c1 (rulebook E1)\n" {
		t.Errorf("illegal move: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if code, _, _ := run("-json"); code != 2 {
		t.Errorf("no start: exit %d, want 2", code)
	}
	if code, _, errOut := run("-h"); code != 0 || !strings.HasPrefix(errOut, "usage: lyngk analyze") {
		t.Errorf("-h: exit %d, %q", code, errOut)
	}
}

// TestAnalyzeRobotThink runs lyngk analyze -robot with a think time (not
// reproducible, so no golden file): one line, a legal move of the player to
// move in normalised notation, after the think time; with -json the object
// is the one without -robot plus "robot" as the last key.
func TestAnalyzeRobotThink(t *testing.T) {
	run := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := runAnalyze(args, &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	_, plainJSON, _ := run("-seed", "103", "-json", "G,c1-d1")
	code, out, errOut := run("-seed", "103", "G,c1-d1", "-robot", "-think", "300ms")
	if code != 0 || errOut != "" || strings.Count(out, "\n") != 1 {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	move := strings.TrimSuffix(out, "\n")
	if !strings.Contains(plainJSON, fmt.Sprintf("%q", move)) {
		t.Errorf("robot move %q is not in the legal list %s", move, plainJSON)
	}
	code, out, _ = run("-seed", "103", "G,c1-d1", "-robot", "-think", "300ms", "-json")
	var a struct {
		Robot string `json:"robot"`
	}
	if err := json.Unmarshal([]byte(out), &a); code != 0 || err != nil || a.Robot == "" {
		t.Fatalf("exit %d, %v: %s", code, err, out)
	}
	want := strings.TrimSuffix(plainJSON, "}\n") + fmt.Sprintf(`,"robot":%q}`, a.Robot) + "\n"
	if out != want {
		t.Errorf("-robot -json:\n%s\nwant\n%s", out, want)
	}
}

// jsonKeys returns the keys of the JSON object out, in their order.
func jsonKeys(t *testing.T, out string) []string {
	t.Helper()
	var keys []string
	dec := json.NewDecoder(strings.NewReader(out))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}
