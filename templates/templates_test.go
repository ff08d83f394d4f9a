package templates_test

import (
	"os"
	"path/filepath"
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
		{"err.unknown-board", map[string]any{"Board": 7}, "There is no Lyngk Board 7."},
		{"usage", "move", "lyngk move BOARD USERID PASSWORD MOVE[#N]"},
		{"new-game.subject", map[string]any{"Board": 148, "ToMove": "alice"}, "New Lyngk Board 148 alice"},
		{"board.subject", map[string]any{"Board": 120, "ToMove": "", "Comment": nil}, "Lyngk Board 120 "},
		{"board.subject", map[string]any{"Board": 3, "ToMove": "bob", "Comment": "x"}, "Lyngk Board 3 bob **"},
		{"error.subject", map[string]any{"Game": nil}, "Lyngk error"},
		{"help.subject", map[string]any{"Topic": "rules"}, "Lyngk help rules"},
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
	if got, _ := s.Render("err.unknown-board", map[string]any{"Board": 7}); got != "There is no Lyngk Board 7." {
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
