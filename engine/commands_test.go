package engine

import (
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/templates"
)

func tableEngine(t *testing.T) *Engine {
	t.Helper()
	set, err := templates.Load("")
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(Config{Games: []games.Game{{Rules: lyngk.Rules}}, Server: "lyngk@example.net", Templates: set})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestCommandTable: every command of the table is in everything derived
// from it: a line of it parses to it (with the least and the most
// arguments it takes, and one too many is a usage error), it has a
// handler, "help commands" lists each of its forms, its usage error names
// it, and a command with USERID and PASSWORD arguments is forecast
// (passwordArgs), decline and change format among them.
func TestCommandTable(t *testing.T) {
	e := tableEngine(t)
	help := e.helpCommands()
	var forecast []string
	for _, c := range e.commands {
		prefix := c.name
		if c.game {
			prefix = "lyngk " + c.name
		}
		hi := c.max
		if hi < 0 {
			hi = maxArgs
		}
		for _, n := range slices.Compact([]int{c.min, hi}) {
			args := make([]string, n)
			for i := range args {
				args[i] = "101"
			}
			line := strings.TrimSpace(prefix + " " + strings.Join(args, " "))
			got, err := e.ParseCommand(line)
			if err != nil || got.Name != c.name || len(got.Args) != n {
				t.Errorf("%q parses to %+v, %v", line, got, err)
			}
			if n == c.min {
				if _, _, _, _, ok := e.passwordArgs(got); ok {
					forecast = append(forecast, c.name)
				}
			}
		}
		if _, err := e.ParseCommand(prefix + strings.Repeat(" 101", hi+1)); err == nil {
			t.Errorf("%s with %d arguments parses", c.name, hi+1)
		} else if ref, ok := err.(*refusal); !ok || ref.key != whyUsage || !strings.Contains(ref.data["Usage"].(string), c.name) {
			t.Errorf("%s with %d arguments: %v", c.name, hi+1, err)
		}
		if c.run == nil {
			t.Errorf("%s has no handler", c.name)
		}
		for _, f := range c.forms {
			line := e.fill("lyngk", f.usage)
			if c.game {
				line = "lyngk " + line
			}
			if !strings.Contains(help, line+"\n") {
				t.Errorf("help commands lacks %q", line)
			}
		}
	}
	want := []string{"change password", "change address", "change format", "change subject", "change chat", "change messages", "change review", "signoff", "vacation", "add", "delete", "message", "broadcast",
		"move", "queue", "submit", "confirm", "resign", "decline", "showas", "subscribe", "unsubscribe", "chat",
		"tournament create", "tournament join", "tournament leave", "tournament start", "tournament withdraw", "tournament robot", "championship join", "championship leave"}
	if !slices.Equal(forecast, want) {
		t.Errorf("password commands forecast: %q, want %q", forecast, want)
	}
}

// TestRefusals: a refusal is a why, never a bare string: no call of refuse
// in the engine's code names one by a string literal; each why renders as
// its template "err.WHY" with the data its texts use, and every "err."
// template is a why, so that no text is left without its refusal.
func TestRefusals(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := gotoken.NewFileSet()
	var whys []string
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "refuse" && len(n.Args) > 0 {
					if _, lit := n.Args[0].(*ast.BasicLit); lit {
						t.Errorf("%s: a refusal named by a string literal", fset.Position(n.Pos()))
					}
				}
			case *ast.ValueSpec:
				if id, ok := n.Type.(*ast.Ident); ok && id.Name == "why" {
					for _, v := range n.Values {
						s, _ := strconv.Unquote(v.(*ast.BasicLit).Value)
						whys = append(whys, s)
					}
				}
			}
			return true
		})
	}
	set, err := templates.Load("")
	if err != nil {
		t.Fatal(err)
	}
	data := kv{
		"Addr": "carol@example.org", "Arg": "12x", "Board": 101, "Days": 21, "Given": 12, "Kind": "undo",
		"Levels": "robot-novice or robot", "Limit": 60, "Max": 20, "Move": "R,b1-b2", "N": 3, "Name": "move", "Now": 5, "Option": "-x",
		"Other": "bob", "Reason": "There is no stack on b1", "Sent": 4, "Topic": "x", "Topics": "commands, notation, rules", "Until": "23:52 UTC",
		"Usage": "lyngk move BOARD USERID PASSWORD MOVE[#N]", "User": "alice", "Want": 13, "Word": "frobnicate",
		"ToMove": "bob", "YourTurn": false, "Title": "Lyngk", "GameWord": "lyngk", "Notation": "Write a move as FROM-TO.",
		"Examples": []kv{{"Title": "Lyngk", "Move": "G,c1-d1"}},
		"Format":   "swiss", "Rounds": 9, "Again": "Dec 5 12:00 UTC", "Creator": "alice", "State": "running", "Players": 3, "Min": 4, "Most": 3,
	}
	for _, w := range whys {
		if text, err := set.Render("err."+w, data); err != nil || strings.TrimSpace(text) == "" {
			t.Errorf("refusal %s: %q, %v", w, text, err)
		}
	}
	for _, name := range set.Names() {
		if w, ok := strings.CutPrefix(name, "err."); ok && !slices.Contains(whys, w) {
			t.Errorf("template %s is no refusal's", name)
		}
	}
	if len(whys) < 50 {
		t.Errorf("%d refusals found", len(whys))
	}
}
