package yinsh_test

import (
	"errors"
	"slices"
	"testing"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/yinsh"
)

// TestContract plays YINSH through the game contract: the same record,
// legal turns and board as the rules package, the variants, the words of a
// turn written apart, and the contract's typed errors.
func TestContract(t *testing.T) {
	var r games.Rules = yinsh.Rules
	for opt, want := range map[string]string{"": "normal", "-b": "blitz", "-BLITZ": "blitz", "-bl": "blitz"} {
		if v, ok := r.Variant(opt); !ok || v != want {
			t.Errorf("Variant(%q) = %q, %t", opt, v, ok)
		}
	}
	for _, opt := range []string{"-", "-stack6", "-blitzz", "blitz"} {
		if _, ok := r.Variant(opt); ok {
			t.Errorf("Variant(%q) accepted", opt)
		}
	}
	for words, want := range map[string]int{"e3": 1, "e3 #1": 2, "xc3-c7; xd8; f2-f6 #4 hello": 4, "xc3-c7 ;xd8 hi": 2, "f2-f6 well": 1} {
		if got := r.MoveWords(splitWords(words)); got != want {
			t.Errorf("MoveWords(%q) = %d, want %d", words, got, want)
		}
	}
	if !r.LooksLikeMove("h7-g7#3") || r.LooksLikeMove("resign") {
		t.Error("LooksLikeMove")
	}
	p, err := r.New(101, "blitz")
	if err != nil {
		t.Fatal(err)
	}
	if g, ok := yinsh.Of(p); !ok || g.Variant() != yinsh.Blitz {
		t.Fatal("Of")
	}
	if len(p.Legal()) != yinsh.NumPoints || p.Turn() != 1 || p.Outcome() != games.Playing {
		t.Fatalf("start: %d legal, turn %d", len(p.Legal()), p.Turn())
	}
	m, num, err := p.Parse("E3#1")
	if err != nil || num != 1 || m.String() != "e3" {
		t.Fatalf("Parse(E3#1) = %v, %d, %v", m, num, err)
	}
	q := p.Clone()
	if err := p.Play(m); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.Moves(), []string{"e3"}) || len(q.Moves()) != 0 {
		t.Errorf("moves %q, clone's %q", p.Moves(), q.Moves())
	}
	_, _, err = p.Parse("e3-z9")
	var me *games.MoveError
	if !errors.As(err, &me) || !errors.Is(err, games.ErrNotation) || me.Reason != `Bad turn notation "e3-z9": no point "z9" on the board (in "e3-z9")` {
		t.Errorf("Parse(e3-z9): %v", err)
	}
	m, _, _ = p.Parse("e3")
	err = p.Play(m)
	if !errors.As(err, &me) || !errors.Is(err, games.ErrIllegal) || me.Reason != "The point e3 already holds a ring (rulebook D)" {
		t.Errorf("Play(e3) again: %v", err)
	}
	fields := p.Fields()
	var names []string
	for _, f := range fields {
		names = append(names, f.Name)
	}
	if !slices.Equal(names, []string{"rings_removed", "pool", "rings", "markers"}) {
		t.Errorf("fields %v", names)
	}
}

func splitWords(s string) []string {
	var out []string
	word := ""
	for _, c := range s + " " {
		if c == ' ' {
			if word != "" {
				out = append(out, word)
			}
			word = ""
			continue
		}
		word += string(c)
	}
	return out
}
