package games

import (
	"reflect"
	"testing"
)

type move string

func (m move) String() string { return string(m) }

// TestStrings: each move's notation in order, and nil (not an empty list)
// for no moves, as a Position's Legal is when the game is over.
func TestStrings(t *testing.T) {
	if got := Strings([]move{"e4-e5", "R,b1-b2", Pass}); !reflect.DeepEqual(got, []string{"e4-e5", "R,b1-b2", "--"}) {
		t.Errorf("Strings = %q", got)
	}
	if got := Strings([]move{}); got != nil {
		t.Errorf("Strings of none = %#v, want nil", got)
	}
}
