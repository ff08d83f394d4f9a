package lyngk

import (
	"errors"
	"strings"
	"testing"
)

func TestParseMove(t *testing.T) {
	tests := []struct {
		in   string
		want string // normalised; "" = error
		num  int
		err  string // part of the error message
	}{
		{in: "b1-b2", want: "b1-b2"},
		{in: "R,b1-b2", want: "R,b1-b2"},
		{in: "r,B1-b2#7", want: "R,b1-b2", num: 7},
		{in: "  k,E4-E5 #12 ", want: "K,e4-e5", num: 12},
		{in: "i1-a1", want: "i1-a1"},
		{in: "c7-e7", want: "c7-e7"},
		{in: "--", want: "--"},
		{in: "--#3", want: "--", num: 3},
		{in: "J,b1-b2", want: "J,b1-b2"}, // notation is fine; Apply refuses the claim
		{in: "", err: `lyngk: bad move notation "": write R,b1-b2`},
		{in: "b1b2", err: `lyngk: bad move notation "b1b2": write R,b1-b2 (claim Red, then move b1 onto b2) or b1-b2, optionally followed by #n (the move number)`},
		{in: "b1-b5", err: `no point "b5" on the board`},
		{in: "a2-b1", err: `no point "a2" on the board`},
		{in: "j1-b1", err: `no point "j1" on the board`},
		{in: "X,b1-b2", err: `"X" is not a colour (I, B, R, G, K)`},
		{in: "RB,b1-b2", err: `no point "RB,b1" on the board`},
		{in: "b1-b2#0", err: "the move number after # must be a positive number"},
		{in: "b1-b2#", err: "the move number after # must be a positive number"},
		{in: "b1-b2#+3", err: "the move number after # must be a positive number"},
		{in: "b1-b2#x", err: "the move number after # must be a positive number"},
		{in: "b1-b2-b3", err: `no point "b2-b3" on the board`},
		{in: "resign", err: `bad move notation "resign"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			m, num, err := ParseMove(tt.in)
			if tt.want == "" {
				if err == nil || !errors.Is(err, ErrNotation) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseMove(%q) = %v, %v; want an ErrNotation containing %q", tt.in, m, err, tt.err)
				}
				if !strings.HasPrefix(err.Error(), "lyngk: ") || !strings.Contains(err.Error(), "R,b1-b2") {
					t.Errorf("error %q does not start with the package or show the format", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseMove(%q): %v", tt.in, err)
			}
			if m.String() != tt.want || num != tt.num {
				t.Errorf("ParseMove(%q) = %q #%d, want %q #%d", tt.in, m, num, tt.want, tt.num)
			}
		})
	}
}

func TestMoveString(t *testing.T) {
	if Pass.String() != "--" || !Pass.IsPass() || (Move{}).IsPass() {
		t.Error("Pass is not --")
	}
	m := Move{Claim: Black, From: mustPoint(t, "a1"), To: mustPoint(t, "i1")}
	if m.String() != "K,a1-i1" {
		t.Errorf("got %q", m)
	}
	if got := (Move{From: 50, To: NoPoint}).String(); got != "??-??" {
		t.Errorf("bad points print %q", got)
	}
}

func TestColors(t *testing.T) {
	var letters, names []string
	for c := NoColor; c <= Joker+1; c++ {
		letters = append(letters, string(c.Letter()))
		names = append(names, c.Name())
	}
	if got := strings.Join(letters, ""); got != "-IBRGKJ?" {
		t.Errorf("letters %q", got)
	}
	if got := strings.Join(names, ","); got != "None,Ivory,Blue,Red,Green,blacK,Joker,?" {
		t.Errorf("names %q", got)
	}
}

func FuzzParseMove(f *testing.F) {
	for _, s := range []string{"b1-b2", "R,b1-b2#7", "--", "--#2", "k,E4-e5 #3", "a1-i1", "x", "#", "J,a1-b3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, num, err := ParseMove(s)
		if err != nil {
			if !errors.Is(err, ErrNotation) {
				t.Fatalf("error %v does not wrap ErrNotation", err)
			}
			return
		}
		if num < 0 {
			t.Fatalf("negative move number %d", num)
		}
		m2, num2, err := ParseMove(m.String())
		if err != nil || m2 != m || num2 != 0 {
			t.Fatalf("ParseMove(%q) = %v; String %q parses to %v, %d, %v", s, m, m.String(), m2, num2, err)
		}
	})
}
