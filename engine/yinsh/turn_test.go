package yinsh

import (
	"errors"
	"strings"
	"testing"
)

func TestParseTurn(t *testing.T) {
	tests := []struct {
		in   string
		want string // normalised; "" = error
		num  int
		err  string
	}{
		{in: "e3", want: "e3"},
		{in: "E3", want: "e3"},
		{in: "k10", want: "k10"},
		{in: "h7-g7", want: "h7-g7"},
		{in: " H7-G7 #23 ", want: "h7-g7", num: 23},
		{in: "f2-f6#23", want: "f2-f6", num: 23},
		{in: "xc3-c7;xd8;f2-f6;xb5-f5;xa4", want: "xc3-c7;xd8;f2-f6;xb5-f5;xa4"},
		{in: "XC7-C3;XD8;F2-F6;XF5-B5;XA4", want: "xc3-c7;xd8;f2-f6;xb5-f5;xa4"},
		{in: "f2-f6;xa4", want: "f2-f6;xa4"},
		{in: "xd9-h9;xa2", want: "xd9-h9;xa2"},
		{in: "xa2", want: "xa2"},
		{in: "xa2;xb3;xc4;f2-f6", want: "xa2;xb3;xc4;f2-f6"},
		{in: "--", want: "--"},
		{in: "--#4", want: "--", num: 4},
		{in: "", err: `yinsh: bad turn notation "": the turn is empty; write a placement e3`},
		{in: "e12", err: `no point "e12" on the board (in "e12")`},
		{in: "a1", err: `no point "a1" on the board`},
		{in: "l5", err: `no point "l5"`},
		{in: "e03", err: `no point "e03"`},
		{in: "e3;", err: "an empty part"},
		{in: "e3;;f4", err: "an empty part"},
		{in: "xb2-b6", err: "a row removal must be followed by its ring removal"},
		{in: "xb2-b6;f2-f6", err: "a row removal must be followed by its ring removal"},
		{in: "xb2-b6;xc2-c6;xa4", err: "a row removal must be followed by its ring removal"},
		{in: "e3;f4", err: `a turn has one placement or ring move, "f4" is a second`},
		{in: "e3-e4;e5-e6", err: "is a second"},
		{in: "xa2;xb3;xc4;xd5;f2-f6", err: "more than 3 removals before the move"},
		{in: "f2-f6;xa2;xb3;xc4;xd5", err: "more than 3 removals after the move"},
		{in: "h7-g7#0", err: "the move number after # must be a positive number"},
		{in: "h7-g7#+2", err: "the move number after # must be a positive number"},
		{in: "h7-g7#", err: "the move number after # must be a positive number"},
		{in: "h7-g7-g6", err: `no point "g7-g6"`},
		{in: "x", err: `no point ""`},
		{in: "resign", err: `no point "resign"`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, num, err := ParseTurn(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !errors.Is(err, ErrNotation) {
					t.Fatalf("ParseTurn(%q) = %v, %v; want an error containing %q", tt.in, got, err, tt.err)
				}
				return
			}
			if err != nil || got.String() != tt.want || num != tt.num {
				t.Fatalf("ParseTurn(%q) = %q, %d, %v; want %q, %d", tt.in, got, num, err, tt.want, tt.num)
			}
		})
	}
}

// FuzzParseTurn: whatever parses formats to a text that parses back to the
// same turn, and formatting is stable.
func FuzzParseTurn(f *testing.F) {
	for _, s := range []string{"e3", "h7-g7", "xc3-c7;xd8;f2-f6;xb5-f5;xa4", "f2-f6;xa4#3", "--", "--#2",
		"XK10-k6;xe1", "xa2", "e3;", "x-;", "#", "a5-a2;xa2;xb2;xc2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tn, num, err := ParseTurn(s)
		if err != nil {
			if !errors.Is(err, ErrNotation) {
				t.Fatalf("error %v does not wrap ErrNotation", err)
			}
			return
		}
		if num < 0 {
			t.Fatalf("negative move number %d", num)
		}
		text := tn.String()
		tn2, num2, err := ParseTurn(text)
		if err != nil || tn2 != tn || num2 != 0 || tn2.String() != text {
			t.Fatalf("ParseTurn(%q) = %v; String %q parses to %v, %d, %v", s, tn, text, tn2, num2, err)
		}
		if text != strings.ToLower(text) || strings.ContainsAny(text, " #") {
			t.Fatalf("String %q is not normalised", text)
		}
	})
}

func TestPoints(t *testing.T) {
	if NumPoints != 85 || len(geo.windows) == 0 {
		t.Fatal("geometry")
	}
	// Every point round-trips; the corners of the column table exist and
	// their neighbours off the table do not.
	for p := range Point(NumPoints) {
		q, ok := ParsePoint(p.String())
		if !ok || q != p {
			t.Errorf("point %d: %s parses to %d", p, p, q)
		}
	}
	for _, s := range []string{"a2", "a5", "b1", "b7", "e1", "e10", "g11", "k7", "k10", "j11"} {
		if _, ok := ParsePoint(s); !ok {
			t.Errorf("%s missing", s)
		}
	}
	for _, s := range []string{"a1", "a6", "b8", "e11", "f1", "k6", "k11", "l1", "e0", "h2"} {
		if _, ok := ParsePoint(s); ok {
			t.Errorf("%s exists", s)
		}
	}
}
