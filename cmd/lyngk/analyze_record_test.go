package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnalyzeRecordGolden runs lyngk analyze -record on records of both
// formats and both games (testdata/analyze/records) and compares exit
// status, stdout and stderr with testdata/analyze/record-NAME.golden: a
// real boardspace game to its end, won by the rules as its record says,
// and at its tenth move; the text records; a step that is not legal; a
// record of the other game; a LYNGK SGF that does not say its board, with
// and without -seed; moves after the record's position; the robot's
// review of a record (-review), in text and JSON; the usage errors.
func TestAnalyzeRecordGolden(t *testing.T) {
	dir := filepath.Join("testdata", "analyze", "records")
	f := func(name string) string { return filepath.Join(dir, name) }
	tests := []struct {
		name string
		args string
	}{
		{"boardspace", "-game yinsh -record " + f("yinsh-boardspace.sgf")},
		{"boardspace-json", "-game yinsh -json -record " + f("yinsh-boardspace.sgf")},
		{"boardspace-at", "-game yinsh -record=" + f("yinsh-boardspace.sgf") + " -at 10 -json"},
		{"boardspace-at-then-moves", "-game yinsh -record " + f("yinsh-boardspace.sgf") + " -at 10 -players a,b g11-g9"},
		{"illegal-step", "-game yinsh -record " + f("yinsh-illegal.sgf")},
		{"other-game", "-record " + f("yinsh.txt")},
		{"other-game-named", "-game lyngk -record " + f("yinsh.txt")},
		{"lyngk-text", "-record " + f("lyngk.txt")},
		{"lyngk-text-json", "-json -record " + f("lyngk.txt") + " -at 5"},
		{"lyngk-no-board", "-record " + f("lyngk-no-board.sgf")},
		{"lyngk-no-board-seed", "-record " + f("lyngk-no-board.sgf") + " -seed 101 -json"},
		{"lyngk-seed-disagrees", "-record " + f("lyngk.txt") + " -seed 102"},
		{"at-past-end", "-game yinsh -record " + f("yinsh.txt") + " -at 500"},
		{"usage-at-without-record", "-game yinsh -at 3"},
		{"usage-record-position", "-record " + f("lyngk.txt") + " -position x.txt"},
		{"usage-record-variant", "-game yinsh -blitz -record " + f("yinsh.txt")},
		{"missing-file", "-game yinsh -record " + f("none.sgf")},
		{"review", "-game yinsh -review -record " + f("yinsh-boardspace.sgf")},
		{"review-json", "-json -record " + f("lyngk.txt") + " -at 0 --review"},
		{"usage-review-without-record", "-game yinsh -review"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := runAnalyze(strings.Fields(tt.args), &stdout, &stderr)
			got := fmt.Sprintf("$ lyngk analyze %s\nexit %d\n--- stdout\n%s--- stderr\n%s", tt.args, code, stdout.String(), stderr.String())
			goldenFile(t, filepath.Join("testdata", "analyze", "record-"+tt.name+".golden"), got)
		})
	}
}

// TestAnalyzeRecordSamePosition: a text record analyzed with -record -at 40
// gives the board that its first 40 moves give as arguments, and then
// the line of the verdicts.
func TestAnalyzeRecordSamePosition(t *testing.T) {
	run := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if code := runAnalyze(args, &stdout, &stderr); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr.String())
		}
		return stdout.String()
	}
	file := filepath.Join("testdata", "analyze", "records", "yinsh.txt")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"-game", "yinsh", "-players", "alice,bob"}
	for line := range strings.Lines(string(data)) {
		if n, move, ok := strings.Cut(strings.TrimSpace(line), ". "); ok && len(args) < 4+40 && n != "" && n[0] >= '1' && n[0] <= '9' {
			args = append(args, move)
		}
	}
	byRecord := run("-game", "yinsh", "-record", file, "-at", "40")
	board, verdicts, _ := strings.Cut(byRecord, "\nrecord: ")
	if want := run(args...); board+"\n" != want {
		t.Errorf("-record -at 40 gives\n%s\nthe moves give\n%s", board, want)
	}
	if verdicts != "0-1; rules: playing\n" {
		t.Errorf("the verdicts: %q", verdicts)
	}
}
