package lyngk_test

import (
	"errors"
	"slices"
	"testing"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
)

// TestContract plays LYNGK through the game contract: the same moves, the
// same record, the same legal moves and text board as the rules package
// itself, and the contract's typed errors for bad notation and illegal
// moves.
func TestContract(t *testing.T) {
	var r games.Rules = lyngk.Rules
	if v, ok := r.Variant("-s"); !ok || v != "stack6" {
		t.Errorf(`Variant("-s") = %q, %t`, v, ok)
	}
	if v, ok := r.Variant(""); !ok || v != "standard" {
		t.Errorf(`Variant("") = %q, %t`, v, ok)
	}
	if _, ok := r.Variant("-blitz"); ok {
		t.Error(`Variant("-blitz") accepted`)
	}
	p, err := r.New(101, "standard")
	if err != nil {
		t.Fatal(err)
	}
	direct := lyngk.New(101, lyngk.Standard)
	legal := p.Legal()
	if len(legal) == 0 || p.Turn() != 1 || p.Outcome() != games.Playing {
		t.Fatalf("start: %d legal moves, turn %d, %v", len(legal), p.Turn(), p.Outcome())
	}
	m, num, err := p.Parse(legal[0] + "#1")
	if err != nil || num != 1 {
		t.Fatalf("Parse(%q#1) = %v, %d, %v", legal[0], m, num, err)
	}
	q := p.Clone()
	if err := p.Play(m); err != nil {
		t.Fatal(err)
	}
	dm, _, _ := lyngk.ParseMove(legal[0])
	if err := direct.Apply(dm); err != nil {
		t.Fatal(err)
	}
	if got, want := p.Board([2]string{"a", "b"}), direct.Board([2]string{"a", "b"}); got != want {
		t.Errorf("board through the contract:\n%s\nwant\n%s", got, want)
	}
	if !slices.Equal(p.Moves(), []string{legal[0]}) || len(q.Moves()) != 0 {
		t.Errorf("moves %q, clone's %q", p.Moves(), q.Moves())
	}
	_, _, err = p.Parse("z9-a1")
	var me *games.MoveError
	if !errors.As(err, &me) || !errors.Is(err, games.ErrNotation) || me.Reason != `Bad move notation "z9-a1": no point "z9" on the board` {
		t.Errorf("Parse(z9-a1): %v", err)
	}
	if err := q.Play(dm); err != nil {
		t.Fatal(err)
	}
	if err := q.Play(dm); !errors.As(err, &me) || !errors.Is(err, games.ErrIllegal) || me.Move != dm.String() || me.Reason == "" {
		t.Errorf("the same move twice: %v", err)
	}
	for _, c := range []struct {
		words []string
		n     int
	}{{nil, 0}, {[]string{"e4-e5"}, 1}, {[]string{"R,", "e4-e5", "#7", "hi"}, 3}, {[]string{"e4-e5", "#7"}, 2}, {[]string{"R,e4-e5", "hi"}, 1}} {
		if n := r.MoveWords(c.words); n != c.n {
			t.Errorf("MoveWords(%q) = %d, want %d", c.words, n, c.n)
		}
	}
}
