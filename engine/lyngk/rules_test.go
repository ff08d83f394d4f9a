package lyngk

import (
	"errors"
	"os"
	"slices"
	"testing"

	"lyngk.example/lyngk/engine/games"
)

// TestApply checks every move rule of SPEC §1 and the rulebook sections
// E, F and H on small positions: legal moves give the stated stacks, illegal
// ones the stated reason and leave the game unchanged.
func TestApply(t *testing.T) {
	tests := []struct {
		name    string
		setup   setup
		move    string
		reason  string            // "" = legal
		after   map[string]string // stacks afterwards ("" = empty)
		removed [2]int
		status  games.Outcome
	}{
		{
			name:  "neutral single onto adjacent single",
			setup: setup{stacks: map[string]string{"e4": "R", "e5": "B", "a1": "G", "b2": "I"}},
			move:  "e4-e5", after: map[string]string{"e4": "", "e5": "RB"},
		},
		{
			name:  "straight line over empty points",
			setup: setup{stacks: map[string]string{"e1": "R", "e7": "B", "a1": "G", "b2": "I"}},
			move:  "e1-e7", after: map[string]string{"e1": "", "e7": "RB"},
		},
		{
			name:   "no jumping over a stack",
			setup:  setup{stacks: map[string]string{"e1": "R", "e3": "G", "e7": "B"}},
			move:   "e1-e7",
			reason: "e7 cannot be reached from e1 in a straight line over empty points (rulebook E3)",
		},
		{
			name:   "a1-e4 is not a line",
			setup:  setup{stacks: map[string]string{"a1": "R", "e4": "B"}},
			move:   "a1-e4",
			reason: "e4 cannot be reached from a1 in a straight line over empty points (rulebook E3)",
		},
		{
			name:   "a move ends on a stack",
			setup:  setup{stacks: map[string]string{"e4": "R", "e6": "B"}},
			move:   "e4-e5",
			reason: "e5 is empty, and a move must end on a stack (rulebook E3)",
		},
		{
			name:   "no stack to move",
			setup:  setup{stacks: map[string]string{"e5": "R", "e6": "B"}},
			move:   "e4-e5",
			reason: "there is no stack on e4 (rulebook E1)",
		},
		{
			name:   "not onto itself",
			setup:  setup{stacks: map[string]string{"e4": "R", "e5": "B"}},
			move:   "e4-e4",
			reason: "a stack cannot move onto itself (rulebook E3)",
		},
		{
			name:   "neutral single not onto a stack",
			setup:  setup{stacks: map[string]string{"b1": "R", "b2": "BG"}},
			move:   "b1-b2",
			reason: "a neutral stack of 1 cannot land on a higher stack of 2 (rulebook E7)",
		},
		{
			name:  "neutral stack onto one as high",
			setup: setup{stacks: map[string]string{"e4": "RI", "e5": "BG", "a1": "K", "b2": "J"}},
			move:  "e4-e5", after: map[string]string{"e5": "RIBG"},
		},
		{
			name:  "neutral stack onto a lower one",
			setup: setup{stacks: map[string]string{"e4": "RIK", "e5": "B", "a1": "K", "b2": "J"}},
			move:  "e4-e5", after: map[string]string{"e5": "RIKB"},
		},
		{
			name:   "never higher than 5",
			setup:  setup{stacks: map[string]string{"e4": "RIK", "e5": "BGJ"}},
			move:   "e4-e5",
			reason: "the stack would be 6 pieces high, more than 5 (rulebook E5)",
		},
		{
			name:   "never two of one colour",
			setup:  setup{stacks: map[string]string{"e4": "RI", "e5": "BI"}},
			move:   "e4-e5",
			reason: "the stacks on e4 and e5 would hold two Ivory pieces (rulebook E5)",
		},
		{
			name:  "jokers may repeat",
			setup: setup{stacks: map[string]string{"e4": "RJ", "e5": "JB", "a1": "K", "b2": "I"}},
			move:  "e4-e5", after: map[string]string{"e5": "RJJB"},
		},
		{
			name:   "a lone joker never moves",
			setup:  setup{stacks: map[string]string{"e4": "J", "e5": "R"}},
			move:   "e4-e5",
			reason: "the stack on e4 has a joker on top, and jokers never move on their own (rulebook D1)",
		},
		{
			name:   "a joker-topped stack never moves",
			setup:  setup{stacks: map[string]string{"e4": "JR", "e5": "B"}},
			move:   "e4-e5",
			reason: "the stack on e4 has a joker on top, and jokers never move on their own (rulebook D1)",
		},
		{
			name:   "not the opponent's colour",
			setup:  setup{stacks: map[string]string{"e4": "R", "e5": "B"}, claims: [2]string{"", "R"}},
			move:   "e4-e5",
			reason: "the stack on e4 is topped by Red, which your opponent claimed (rulebook D3)",
		},
		{
			name:  "own colour onto a higher stack",
			setup: setup{stacks: map[string]string{"e4": "R", "e5": "BGI", "a1": "K", "b2": "G"}, claims: [2]string{"R", ""}},
			move:  "e4-e5", after: map[string]string{"e5": "RBGI"},
		},
		{
			name:  "claim, then move as owner",
			setup: setup{stacks: map[string]string{"e4": "R", "e5": "BGI", "a1": "K", "b2": "G"}},
			move:  "R,e4-e5", after: map[string]string{"e5": "RBGI"},
		},
		{
			name:   "claim and move are atomic",
			setup:  setup{stacks: map[string]string{"e4": "R", "e5": "I", "e6": "BGK"}},
			move:   "R,e4-e6",
			reason: "e6 cannot be reached from e4 in a straight line over empty points, nor by LYNGK bounces (rulebook E3, F)",
		},
		{
			name:   "at most two claims",
			setup:  setup{stacks: map[string]string{"e4": "I", "e5": "K"}, claims: [2]string{"RB", ""}},
			move:   "I,e4-e5",
			reason: "you have already claimed two colours (rulebook D3)",
		},
		{
			name:   "not a colour the opponent took",
			setup:  setup{stacks: map[string]string{"e4": "I", "e5": "K"}, claims: [2]string{"", "R"}},
			move:   "R,e4-e5",
			reason: "Red is already claimed by your opponent (rulebook B, D3)",
		},
		{
			name:   "not a colour twice",
			setup:  setup{stacks: map[string]string{"e4": "I", "e5": "K"}, claims: [2]string{"R", ""}},
			move:   "R,e4-e5",
			reason: "you have already claimed Red (rulebook D3)",
		},
		{
			name:   "jokers cannot be claimed",
			setup:  setup{stacks: map[string]string{"e4": "I", "e5": "K"}},
			move:   "J,e4-e5",
			reason: "a joker is not a colour and cannot be claimed (rulebook D1, H2)",
		},
		{
			name:    "an owned 5-stack is removed and scores",
			setup:   setup{stacks: map[string]string{"e4": "R", "e5": "BGIK", "a1": "K", "b2": "G"}, claims: [2]string{"R", ""}},
			move:    "e4-e5",
			after:   map[string]string{"e4": "", "e5": ""},
			removed: [2]int{1, 0},
		},
		{
			name:  "a 5-stack made with a joker scores too",
			setup: setup{stacks: map[string]string{"e4": "R", "e5": "BJIK", "a1": "K", "b2": "G"}, claims: [2]string{"", "R"}, turn: 2},
			move:  "e4-e5", after: map[string]string{"e5": ""}, removed: [2]int{0, 1},
		},
		{
			name:  "a neutral 5-stack stays and never scores",
			setup: setup{stacks: map[string]string{"e4": "RBG", "e5": "IK", "a1": "K", "b2": "G"}},
			move:  "e4-e5", after: map[string]string{"e5": "RBGIK"},
		},
		{
			name:  "the claim of the move decides the 5-stack",
			setup: setup{stacks: map[string]string{"e4": "R", "e5": "BGIK", "a1": "K", "b2": "G"}},
			move:  "R,e4-e5", after: map[string]string{"e5": ""}, removed: [2]int{1, 0},
		},
		{
			name:  "stack6: an owned 5-stack stays",
			setup: setup{variant: Stack6, stacks: map[string]string{"e4": "R", "e5": "BGIK", "a1": "K", "b2": "G"}, claims: [2]string{"R", ""}},
			move:  "e4-e5", after: map[string]string{"e5": "RBGIK"},
		},
		{
			name:   "stack6: a 6-stack topped by one's colour wins",
			setup:  setup{variant: Stack6, stacks: map[string]string{"e4": "R", "e5": "BGIKJ", "a1": "K", "b2": "G"}, claims: [2]string{"R", ""}},
			move:   "e4-e5",
			after:  map[string]string{"e5": "RBGIKJ"},
			status: games.Won,
		},
		{
			name:  "stack6: a neutral 6-stack wins nothing",
			setup: setup{variant: Stack6, stacks: map[string]string{"e4": "RBG", "e5": "IKJ", "c1": "I", "d1": "K"}},
			move:  "e4-e5", after: map[string]string{"e5": "RBGIKJ"},
		},
		{
			name:   "stack6: never higher than 6",
			setup:  setup{variant: Stack6, stacks: map[string]string{"e4": "RB", "e5": "GIKJJ"}, claims: [2]string{"R", ""}},
			move:   "e4-e5",
			reason: "the stack would be 7 pieces high, more than 6 (rulebook H)",
		},
		{
			name:   "stack6: still no colour twice",
			setup:  setup{variant: Stack6, stacks: map[string]string{"e4": "R", "e5": "BGIKR"}, claims: [2]string{"R", ""}},
			move:   "e4-e5",
			reason: "the stacks on e4 and e5 would hold two Red pieces (rulebook E5)",
		},
		{
			name:  "LYNGK: one bounce",
			setup: setup{stacks: map[string]string{"e1": "B", "e4": "B", "g5": "R", "a1": "K", "b2": "G"}, claims: [2]string{"B", ""}},
			move:  "e1-g5", after: map[string]string{"e1": "", "e4": "B", "g5": "BR"},
		},
		{
			name:   "LYNGK: only with a claimed colour",
			setup:  setup{stacks: map[string]string{"e1": "B", "e4": "B", "g5": "R"}},
			move:   "e1-g5",
			reason: "g5 cannot be reached from e1 in a straight line over empty points (rulebook E3)",
		},
		{
			name:  "LYNGK: claimed by the same move",
			setup: setup{stacks: map[string]string{"e1": "B", "e4": "B", "g5": "R", "a1": "K", "b2": "G"}},
			move:  "B,e1-g5", after: map[string]string{"g5": "BR"},
		},
		{
			name:  "LYNGK: a chain of bounces",
			setup: setup{stacks: map[string]string{"e1": "B", "e4": "B", "g5": "BI", "g7": "R", "a1": "K", "b2": "G"}, claims: [2]string{"", "B"}, turn: 2},
			move:  "e1-g7", after: map[string]string{"g7": "BR", "g5": "BI", "e4": "B"},
		},
		{
			name:   "LYNGK: not onto a LYNGK point",
			setup:  setup{stacks: map[string]string{"e1": "B", "e4": "B", "g5": "R"}, claims: [2]string{"B", ""}},
			move:   "e1-e4",
			reason: "e4 is topped by Blue too: a LYNGK point to bounce from, not to land on (rulebook F3)",
		},
		{
			name:   "LYNGK: never off a joker",
			setup:  setup{stacks: map[string]string{"e1": "B", "e4": "JB", "g5": "R"}, claims: [2]string{"B", ""}},
			move:   "e1-g5",
			reason: "g5 cannot be reached from e1 in a straight line over empty points, nor by LYNGK bounces (rulebook E3, F)",
		},
		{
			name:  "LYNGK: a joker-topped stack is a destination",
			setup: setup{stacks: map[string]string{"e1": "B", "e4": "JR", "g5": "R", "a1": "K", "b2": "G"}, claims: [2]string{"B", ""}},
			move:  "e1-e4", after: map[string]string{"e4": "BJR"},
		},
		{
			name:   "LYNGK: only off the moving stack's colour",
			setup:  setup{stacks: map[string]string{"e1": "B", "e4": "R", "g5": "I"}, claims: [2]string{"BR", ""}},
			move:   "e1-g5",
			reason: "g5 cannot be reached from e1 in a straight line over empty points, nor by LYNGK bounces (rulebook E3, F)",
		},
		{
			name:  "LYNGK: the other claimed colour is a destination",
			setup: setup{stacks: map[string]string{"e1": "B", "e4": "R", "g5": "I", "a1": "K", "b2": "G"}, claims: [2]string{"BR", ""}},
			move:  "e1-e4", after: map[string]string{"e4": "BR"},
		},
		{
			name:   "LYNGK: the destination must accept the stack",
			setup:  setup{stacks: map[string]string{"e1": "BI", "e4": "B", "g5": "IR"}, claims: [2]string{"B", ""}},
			move:   "e1-g5",
			reason: "the stacks on e1 and g5 would hold two Ivory pieces (rulebook E5)",
		},
		{
			name:   "nobody passes by choice",
			setup:  setup{stacks: map[string]string{"e4": "R", "e5": "B"}},
			move:   "--",
			reason: "nobody passes by choice; a player who cannot move passes automatically (rulebook E11)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := build(t, tt.setup)
			before := g
			err := g.Apply(mustMove(t, tt.move))
			if tt.reason != "" {
				var me *MoveError
				if !errors.As(err, &me) || !errors.Is(err, ErrIllegalMove) {
					t.Fatalf("Apply(%s) = %v, want a *MoveError", tt.move, err)
				}
				if me.Reason != tt.reason {
					t.Errorf("reason\n got %q\nwant %q", me.Reason, tt.reason)
				}
				if want := "lyngk: illegal move " + tt.move + ": " + tt.reason; err.Error() != want {
					t.Errorf("error\n got %q\nwant %q", err, want)
				}
				if g != before {
					t.Error("the game changed")
				}
				if slices.Contains(legalStrings(&before), tt.move) {
					t.Error("Legal lists the move")
				}
				return
			}
			if err != nil {
				t.Fatalf("Apply(%s): %v", tt.move, err)
			}
			if !slices.Contains(legalStrings(&before), tt.move) {
				t.Error("Legal does not list the move")
			}
			for name, want := range tt.after {
				if got := g.Stack(mustPoint(t, name)); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			if got := [2]int{g.Removed(1), g.Removed(2)}; got != tt.removed {
				t.Errorf("removed %v, want %v", got, tt.removed)
			}
			if g.Status() != tt.status {
				t.Errorf("status %v, want %v", g.Status(), tt.status)
			}
			if tt.status == games.Won && (g.Winner() != int(before.turn) || g.Turn() != 0) {
				t.Errorf("winner %d turn %d, want %d and 0", g.Winner(), g.Turn(), before.turn)
			}
		})
	}
}

// TestLyngkHelpExample is the example of the gamerz help page: with Blue
// claimed by player 1, b4-e2 bounces via b1 and c3.
func TestLyngkHelpExample(t *testing.T) {
	data, err := os.ReadFile("testdata/help-lyngk.txt")
	if err != nil {
		t.Fatal(err)
	}
	g, _, err := ParseBoard(string(data))
	if err != nil {
		t.Fatal(err)
	}
	b4, e2 := mustPoint(t, "b4"), mustPoint(t, "e2")
	reach, links := g.lyngk(b4, Blue)
	if want := uint64(1)<<mustPoint(t, "b1") | 1<<mustPoint(t, "c3"); links != want {
		t.Errorf("LYNGK points %s, want b1 c3", pointList(links))
	}
	if reach&(1<<e2) == 0 {
		t.Errorf("reach %s lacks e2", pointList(reach))
	}
	plain := g
	plain.owner[Blue], plain.nclaims[0] = 0, 0
	if err := plain.Apply(Move{From: b4, To: e2}); !errors.Is(err, ErrIllegalMove) {
		t.Errorf("without the claim, b4-e2 = %v, want illegal", err)
	}
	if err := g.Apply(Move{From: b4, To: e2}); err != nil {
		t.Fatal(err)
	}
	if got := g.Stack(e2); got != "BKI" {
		t.Errorf("e2 = %q, want BKI", got)
	}
}

func pointList(set uint64) []string {
	var out []string
	for p := range Point(NumPoints) {
		if set&(1<<p) != 0 {
			out = append(out, p.String())
		}
	}
	return out
}

// TestLyngkDestinations pins the full destination set of LYNGK moves: a
// bounce may lead back over the moving stack's own point (it is in hand),
// LYNGK points in a cycle are each used once, and the origin is never a
// destination.
func TestLyngkDestinations(t *testing.T) {
	tests := []struct {
		name  string
		setup setup
		from  string
		want  []string
	}{
		{
			name:  "bounce back over the origin",
			setup: setup{stacks: map[string]string{"e3": "B", "e5": "B", "e1": "R", "e7": "G"}, claims: [2]string{"B", ""}},
			from:  "e3",
			want:  []string{"e1-e7", "e3-e1", "e3-e7", "e5-e1", "e5-e7"},
		},
		{
			name: "a cycle of LYNGK points",
			// e4, f4 and e5 are Blue and adjacent to each other.
			setup: setup{stacks: map[string]string{"e3": "B", "e4": "B", "f4": "B", "e5": "B", "e7": "R", "h2": "G"}, claims: [2]string{"B", ""}},
			from:  "e3",
			want:  []string{"e3-e7", "e3-h2"},
		},
		{
			name:  "neutral stacks do not bounce",
			setup: setup{stacks: map[string]string{"e3": "B", "e5": "B", "e1": "R", "e7": "G"}},
			from:  "e3",
			want:  []string{"e3-e1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := build(t, tt.setup)
			from := mustPoint(t, tt.from)
			var got []string
			for _, m := range g.LegalPlain(nil) {
				if m.From == from {
					got = append(got, m.String())
				}
			}
			slices.Sort(got)
			want := []string{}
			for _, w := range tt.want {
				if w[:2] == tt.from {
					want = append(want, w)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("moves from %s = %v, want %v", tt.from, got, want)
			}
		})
	}
}

// TestPassAndEnd drives the automatic passes and the end of the game
// (rulebook E11-E12, G; SPEC §1).
func TestPassAndEnd(t *testing.T) {
	t.Run("the player who cannot move passes", func(t *testing.T) {
		g := build(t, setup{
			stacks: map[string]string{"c1": "R", "c2": "G", "g1": "R", "g2": "G"},
			claims: [2]string{"RG", "BI"},
		})
		for _, s := range []string{"c1-c2", "g1-g2"} {
			if err := g.Apply(mustMove(t, s)); err != nil {
				t.Fatal(err)
			}
			if s == "c1-c2" && g.Turn() != 1 {
				t.Fatalf("after c1-c2 turn %d, want 1 (player 2 passed)", g.Turn())
			}
		}
		if got, want := moveStrings(g.Moves()), []string{"c1-c2", "--", "g1-g2"}; !slices.Equal(got, want) {
			t.Errorf("moves %v, want %v", got, want)
		}
		if g.Status() != games.Won || g.Winner() != 1 || g.Turn() != 0 || g.MoveCount() != 3 {
			t.Errorf("status %v winner %d turn %d count %d, want won 1 0 3", g.Status(), g.Winner(), g.Turn(), g.MoveCount())
		}
		if l := g.Legal(nil); len(l) != 0 {
			t.Errorf("Legal after the end = %v", l)
		}
		if err := g.Apply(mustMove(t, "c2-g2")); !errors.Is(err, ErrGameOver) {
			t.Errorf("Apply after the end = %v, want ErrGameOver", err)
		}
	})
	t.Run("a player who can move only by claiming does not pass", func(t *testing.T) {
		g := build(t, setup{
			stacks: map[string]string{"c1": "R", "c2": "G", "e1": "K", "e2": "RG"},
			claims: [2]string{"RG", "B"},
		})
		if err := g.Apply(mustMove(t, "c1-c2")); err != nil {
			t.Fatal(err)
		}
		if g.Turn() != 2 {
			t.Fatalf("turn %d, want 2", g.Turn())
		}
		if got, want := legalStrings(&g), []string{"K,e1-c2", "K,e1-e2"}; !slices.Equal(got, want) {
			t.Errorf("legal %v, want %v", got, want)
		}
		if got := g.LegalPlain(nil); len(got) != 0 {
			t.Errorf("plain moves %v, want none", got)
		}
	})
	t.Run("SetTurn passes a player who cannot move", func(t *testing.T) {
		g := build(t, setup{stacks: map[string]string{"c1": "R", "c2": "G"}, claims: [2]string{"BI", "RG"}})
		g.SetTurn(1)
		if got := moveStrings(g.Moves()); !slices.Equal(got, []string{"--"}) || g.Turn() != 2 {
			t.Errorf("moves %v turn %d, want [--] 2", got, g.Turn())
		}
	})
	t.Run("SetTurn ends a game nobody can move in", func(t *testing.T) {
		g := build(t, setup{stacks: map[string]string{"c1": "J", "c2": "J"}})
		g.SetTurn(2)
		if g.Status() != games.Tie || g.Turn() != 0 || g.MoveCount() != 0 {
			t.Errorf("status %v turn %d moves %d, want tie 0 0", g.Status(), g.Turn(), g.MoveCount())
		}
	})
}

// TestResult checks the count at the end (rulebook G, H6; SPEC §1). Every
// stack holds Red, so no stack can move onto another and the game is over.
func TestResult(t *testing.T) {
	tests := []struct {
		name   string
		setup  setup
		winner int // 0 = tie
	}{
		{"more removed stacks win", setup{
			stacks:  map[string]string{"a1": "BRGI", "e4": "IR", "e5": "KR"},
			claims:  [2]string{"BG", "IK"},
			removed: [2]uint8{1, 2},
		}, 2},
		{"then owned stacks of 4", setup{
			stacks:  map[string]string{"a1": "BRGI", "e4": "IRK", "e5": "KRG"},
			claims:  [2]string{"BG", "IK"},
			removed: [2]uint8{1, 1},
		}, 1},
		{"then of 3", setup{
			stacks: map[string]string{"a1": "BRG", "e4": "IRK", "e5": "KRG"},
			claims: [2]string{"BG", "IK"},
		}, 2},
		{"then of 2 and 1", setup{
			stacks: map[string]string{"a1": "BR", "e4": "IR", "e5": "R"},
			claims: [2]string{"RB", "IK"},
		}, 1},
		{"neutral tops count for nobody", setup{
			stacks: map[string]string{"a1": "RB", "e4": "RI", "e5": "IR"},
			claims: [2]string{"BG", "IK"},
		}, 2},
		{"a 5-stack on the board counts for nobody", setup{
			stacks: map[string]string{"a1": "GRBIK", "e4": "IR"},
			claims: [2]string{"BG", "IK"},
		}, 2},
		{"equal everywhere is a tie", setup{
			stacks: map[string]string{"a1": "BR", "e4": "IR", "e5": "R"},
			claims: [2]string{"BG", "IK"},
		}, 0},
		{"stack6 counts from 5", setup{
			variant: Stack6,
			stacks:  map[string]string{"a1": "GRBIK", "e4": "IRGB", "e5": "KRGB", "e6": "KRG"},
			claims:  [2]string{"BG", "IK"},
		}, 1},
		{"stack6 then 4", setup{
			variant: Stack6,
			stacks:  map[string]string{"a1": "GRBIK", "b2": "IRBGK", "e4": "IRGB", "e5": "BRG"},
			claims:  [2]string{"BG", "IK"},
		}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := build(t, tt.setup)
			g.SetTurn(1)
			want := games.Won
			if tt.winner == 0 {
				want = games.Tie
			}
			if g.Status() != want || g.Winner() != tt.winner || g.Turn() != 0 {
				t.Errorf("status %v winner %d turn %d, want %v %d 0", g.Status(), g.Winner(), g.Turn(), want, tt.winner)
			}
		})
	}
}

// TestZeroGame makes sure the zero Game, which is no game, fails safely.
func TestZeroGame(t *testing.T) {
	var g Game
	if err := g.Apply(mustMove(t, "e4-e5")); !errors.Is(err, ErrGameOver) {
		t.Errorf("Apply = %v, want ErrGameOver", err)
	}
	if l := g.Legal(nil); len(l) != 0 {
		t.Errorf("Legal = %v", l)
	}
}

// TestClaimsAndFree checks the accessors that report claims.
func TestClaimsAndFree(t *testing.T) {
	g := build(t, setup{stacks: map[string]string{"e4": "R", "e5": "B", "a1": "R", "b2": "G", "c1": "I", "d1": "G"}})
	for _, s := range []string{"K,e4-e5", "R,a1-b2", "I,c1-d1"} {
		if err := g.Apply(mustMove(t, s)); err != nil {
			t.Fatal(err)
		}
	}
	if got := g.Claims(1); !slices.Equal(got, []Color{Black, Ivory}) {
		t.Errorf("Claims(1) = %v", got)
	}
	if got := g.Claims(2); !slices.Equal(got, []Color{Red}) {
		t.Errorf("Claims(2) = %v", got)
	}
	if got := g.Free(); !slices.Equal(got, []Color{Blue, Green}) {
		t.Errorf("Free() = %v", got)
	}
	if g.Claims(3) != nil || g.Removed(0) != 0 {
		t.Error("accessors accept a player 0 or 3")
	}
}
