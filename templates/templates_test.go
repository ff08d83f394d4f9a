package templates_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"lyngk.example/lyngk/templates"
)

func TestLoadAndRender(t *testing.T) {
	s, err := templates.Load("")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		data any
		want string
	}{
		{"err.not-your-turn", nil, "It is not your move"},
		{"err.unknown-board", map[string]any{"Board": 7, "Title": "Lyngk"}, "There is no Lyngk Board 7."},
		{"err.usage", map[string]any{"Usage": "lyngk move BOARD USERID PASSWORD MOVE[#N]"}, "Wrong arguments. Usage: lyngk move BOARD USERID PASSWORD MOVE[#N]"},
		{"lyngk.options", nil, "[-stack6]"},
		{"new-game.subject", map[string]any{"Board": 148, "Title": "Lyngk", "ToMove": "alice"}, "New Lyngk Board 148 alice"},
		{"new-game.subject", map[string]any{"Board": 148, "Title": "Yinsh", "ToMove": "alice"}, "New Yinsh Board 148 alice"},
		{"board.subject", map[string]any{"Board": 120, "Title": "Lyngk", "ToMove": "", "Comment": nil}, "Lyngk Board 120"},
		{"board.subject", map[string]any{"Board": 3, "Title": "Lyngk", "ToMove": "bob", "Comment": "x"}, "Lyngk Board 3 bob **"},
		{"board.subject", map[string]any{"Board": 102, "Title": "Yinsh", "ToMove": "bob", "Comment": nil}, "Yinsh Board 102 bob"},
		{"error.subject", map[string]any{"Game": nil}, "PBeM Server error"},
		{"help.subject", map[string]any{"Topic": "rules"}, "PBeM Server help rules"},
	}
	for _, tt := range tests {
		got, err := s.Render(tt.name, tt.data)
		if err != nil {
			t.Errorf("Render(%q): %v", tt.name, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Render(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
	// The server's name, once given, is in the texts of no game; the set
	// it was copied from keeps the default.
	named, err := s.WithServer("Club Kris")
	if err != nil {
		t.Fatal(err)
	}
	for set, want := range map[*templates.Set]string{named: "Club Kris help rules", s: "PBeM Server help rules"} {
		if got, err := set.Render("help.subject", map[string]any{"Topic": "rules"}); err != nil || got != want {
			t.Errorf("help.subject = %q, %v; want %q", got, err, want)
		}
	}
	if _, err := s.Render("no-such-template", nil); err == nil || !strings.HasPrefix(err.Error(), "templates: ") {
		t.Errorf("Render of an unknown name: %v", err)
	}
	if _, err := s.Render("err.unknown-board", map[string]any{}); err == nil {
		t.Error("Render with a missing key succeeded")
	}
}

func TestOverride(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("errors.tmpl", `{{define "err.not-your-turn"}}Wait for your turn, please.{{end}}`)
	s, err := templates.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Render("err.not-your-turn", nil); got != "Wait for your turn, please." {
		t.Errorf("override not used: %q", got)
	}
	// The other texts of the file stay.
	if got, _ := s.Render("err.unknown-board", map[string]any{"Board": 7, "Title": "Lyngk"}); got != "There is no Lyngk Board 7." {
		t.Errorf("text beside the override lost: %q", got)
	}

	write("eror.tmpl", `{{define "x"}}{{end}}`)
	if _, err := templates.Load(dir); err == nil || !strings.Contains(err.Error(), "eror.tmpl replaces no embedded file") {
		t.Errorf("misnamed override: %v", err)
	}
	os.Remove(filepath.Join(dir, "eror.tmpl"))
	write("help.tmpl", `{{define "help.body"}}{{.Robot}`)
	if _, err := templates.Load(dir); err == nil {
		t.Error("broken override accepted")
	}
}

// TestNoTrailingSpaces: the layout's trailing spaces come from printf, so
// that no editor can strip them from a template file.
func TestNoTrailingSpaces(t *testing.T) {
	files, err := filepath.Glob("*.tmpl")
	if err != nil || len(files) == 0 {
		t.Fatal(files, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if strings.TrimRight(line, " \t") != line {
				t.Errorf("%s:%d ends in white space", f, i+1)
			}
		}
	}
}

func TestWrap(t *testing.T) {
	tests := []struct{ in, want string }{
		{"short line\nanother", "short line\nanother"},
		{strings.Repeat("word ", 20), strings.TrimSpace(strings.Repeat("word ", 15)) + "\n" + strings.Repeat("word ", 5)},
		{"  " + strings.Repeat("ab ", 30), "  " + strings.TrimSpace(strings.Repeat("ab ", 25)) + "\n  " + strings.Repeat("ab ", 5)},
		{"see https://example.org/" + strings.Repeat("x", 80) + " now", "see\nhttps://example.org/" + strings.Repeat("x", 80) + "\nnow"},
		{strings.Repeat("x", 90), strings.Repeat("x", 90)},
	}
	for _, tt := range tests {
		if got := templates.Wrap(tt.in, 76); got != tt.want {
			t.Errorf("Wrap(%q) =\n%q, want\n%q", tt.in, got, tt.want)
		}
	}
}

// TestWidths renders every error text and notice with the widest values
// its keys take (a 16-character userid, a six-digit board, the longest
// rulebook reason) and checks that, wrapped as the engine wraps them, no
// line is over templates.Width; and that every other template's own lines
// (the template source, actions aside) fit too.
func TestWidths(t *testing.T) {
	s, err := templates.Load("")
	if err != nil {
		t.Fatal(err)
	}
	data := map[string]any{
		"Addr": "someone.with.a.long.name@subdomain.example.org", "Arg": "1234567", "Board": 123456,
		"Days": 21, "Given": 123, "Kind": "undo", "Levels": "robot-novice, robot-club, robot or robot-max", "Limit": 60, "Max": 123, "Move": "R,b1-b2",
		"N": 123, "Name": "change address", "Now": 123, "Option": "-frobnicate", "Other": "abcdefghijklmnop",
		"Reason": "i1 cannot be reached from a1 in a straight line over empty points, nor by LYNGK bounces (rulebook E3, F)",
		"Sent":   122, "Topic": "frobnication", "Topics": "commands, notation, rules, abcdefghijklmnop",
		"Usage": "lyngk show BOARD[#N]... or lyngk show USERID... [all|active|inactive|next]", "Until": "23:52 UTC", "User": "abcdefghijklmnop", "Want": 124, "Word": "frobnicate",
		"ToMove": "abcdefghijklmnop", "YourTurn": false, "Title": "Abcdefghijklmnop", "GameWord": "abcdefghijklmnop",
		"Notation": "Write a move as FROM-TO, like b1-b2.",
		"Format":   "roundrobin", "Rounds": 12, "Again": "Dec 12 23:52 UTC", "Creator": "abcdefghijklmnop", "State": "finished",
		"Players": 64, "Min": 64, "Most": 63, "Round": 12,
		"Examples": []map[string]any{{"Title": "Abcdefghijklmnop", "Move": "f2-f6;xb5-f5;xa4"}, {"Title": "Abcdefghijklmnop", "Move": "R,e4-e5"}},
	}
	n := 0
	for _, name := range s.Names() {
		if !strings.HasPrefix(name, "err.") && !strings.HasPrefix(name, "notice.") {
			continue
		}
		n++
		text, err := s.Render(name, data)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		for _, l := range strings.Split(templates.Wrap(text, templates.Width), "\n") {
			if len([]rune(l)) > templates.Width {
				t.Errorf("%s: line over %d columns: %q", name, templates.Width, l)
			}
		}
	}
	if n < 40 {
		t.Errorf("only %d error and notice templates", n)
	}
	files, err := filepath.Glob("*.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	action := regexp.MustCompile(`{{[^}]*}}`)
	for _, f := range files {
		if f == "errors.tmpl" || f == "notices.tmpl" {
			continue // wrapped when rendered, checked above
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, l := range strings.Split(string(b), "\n") {
			if l = action.ReplaceAllString(l, ""); len([]rune(l)) > templates.Width {
				t.Errorf("%s:%d: text over %d columns: %q", f, i+1, templates.Width, l)
			}
		}
	}
}
