package tournament

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBracket: the standard order for 8, and for every size up to 64 the
// top m seeds (m a power of two) are each alone in a block of size/m
// neighbouring places, so they cannot meet before the last log2(m) stages.
func TestBracket(t *testing.T) {
	if got := fmt.Sprint(Bracket(8)); got != "[1 8 4 5 2 7 3 6]" {
		t.Errorf("Bracket(8) = %s", got)
	}
	for _, bad := range []int{0, 3, 6, -4} {
		if Bracket(bad) != nil {
			t.Errorf("Bracket(%d) is not nil", bad)
		}
	}
	for size := 1; size <= 64; size *= 2 {
		b := Bracket(size)
		sorted := slices.Sorted(slices.Values(b))
		for i, s := range sorted {
			if s != i+1 {
				t.Fatalf("Bracket(%d) = %v is not the seeds 1 to %d", size, b, size)
			}
		}
		for m := 1; m <= size; m *= 2 {
			block := size / m
			for start := 0; start < size; start += block {
				top := 0
				for _, s := range b[start : start+block] {
					if s <= m {
						top++
					}
				}
				if top != 1 {
					t.Errorf("Bracket(%d): %d of the top %d seeds in places %d to %d", size, top, m, start, start+block-1)
				}
			}
		}
	}
}

// TestKnockoutWorked plays a knockout of eight by hand (player i is seed
// i+1). Stage 1: 0-7, 3-4, 1-6, 2-5. 3-4 is drawn, and drawn again in the
// replay 4-3: the higher seed, 3, goes through. 1-6 is drawn and 6 wins
// the replay with White. Stage 2: 0-3 and 2-6 (2 is the higher seed);
// 0 and 6 win. The final 0-6 is drawn; the replay 6-0 is won by 6.
func TestKnockoutWorked(t *testing.T) {
	players := make([]Player, 8)
	for i := range players {
		players[i].Rating = 1900 - i
	}
	var played []Round
	step := func(want string, results ...Result) {
		t.Helper()
		st, err := Knockout(players, played)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("stage %d: %v", st.Stage, st.Next); got != want {
			t.Fatalf("after %d rounds: %s, want %s", len(played), got, want)
		}
		for i, r := range results {
			st.Next[i].Result = r
		}
		played = append(played, st.Next)
	}
	step("stage 1: [{0 7 pending} {3 4 pending} {1 6 pending} {2 5 pending}]", WhiteWon, Draw, Draw, WhiteWon)
	step("stage 1: [{4 3 pending} {6 1 pending}]", Draw, WhiteWon)
	step("stage 2: [{0 3 pending} {2 6 pending}]", WhiteWon, BlackWon)
	step("stage 3: [{0 6 pending}]", Draw)
	step("stage 3: [{6 0 pending}]", WhiteWon)
	st, err := Knockout(players, played)
	if err != nil || st.Champion != 6 || len(st.Next) != 0 {
		t.Fatalf("after the final: %+v, %v; want 6 champion", st, err)
	}
	if _, err := Knockout(players, append(played, Round{{6, 0, Draw}})); !errors.Is(err, ErrBadInput) {
		t.Errorf("a round after the final = %v, want ErrBadInput", err)
	}
}

// TestKnockoutByes: five players in a draw of eight, the top three seeds
// have byes; the ratings, not the order given, make the seeds.
func TestKnockoutByes(t *testing.T) {
	players := []Player{{Rating: 1500}, {Rating: 1800}, {Rating: 1400}, {Rating: 1700}, {Rating: 1600}}
	// Seeds: 1 is player 1, 2 player 3, 3 player 4, 4 player 0, 5 player 2.
	st, err := Knockout(players, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(st.Next), "[{1 -1 1-0} {0 2 pending} {3 -1 1-0} {4 -1 1-0}]"; got != want {
		t.Fatalf("stage 1 = %s, want %s", got, want)
	}
	st.Next[1].Result = BlackForfeited
	st, err = Knockout(players, []Round{st.Next})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(st.Stage, st.Next), "2 [{1 0 pending} {3 4 pending}]"; got != want {
		t.Fatalf("stage 2 = %s, want %s", got, want)
	}
}

// TestKnockoutBadHistory: a round that is not the bracket's, or one left
// unfinished, is refused.
func TestKnockoutBadHistory(t *testing.T) {
	players := make([]Player, 4)
	for _, tt := range []struct {
		played []Round
		want   error
	}{
		{[]Round{{{0, 3, WhiteWon}}}, ErrBadInput},
		{[]Round{{{0, 3, WhiteWon}, {2, 1, WhiteWon}}}, ErrBadInput},
		{[]Round{{{0, 2, WhiteWon}, {1, 3, WhiteWon}}}, ErrBadInput},
		{[]Round{{{0, 3, WhiteWon}, {1, 2, Pending}}}, ErrUnfinished},
		{[]Round{{{0, 3, WhiteWon}, {1, 9, WhiteWon}}}, ErrBadInput},
	} {
		if _, err := Knockout(players, tt.played); !errors.Is(err, tt.want) {
			t.Errorf("Knockout(%v) = %v, want %v", tt.played, err, tt.want)
		}
	}
}

// TestKnockoutRandom plays 300 random knockouts of 2 to 40 players to the
// end: every stage halves the field, a match takes at most two games, the
// eliminated play no more, and there is one champion.
func TestKnockoutRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for tour := range 300 {
		n := 2 + r.IntN(39)
		players := make([]Player, n)
		for i := range players {
			players[i].Rating = r.IntN(400)
		}
		playKnockout(t, players, func() Result { return Result(1 + r.IntN(5)) })
		if t.Failed() {
			t.Fatalf("tournament %d of %d players", tour, n)
		}
	}
}

// FuzzKnockout plays a knockout from the fuzzer's bytes.
func FuzzKnockout(f *testing.F) {
	f.Add([]byte{6, 3, 3, 3, 3, 3, 1, 2})
	f.Add([]byte{31, 9, 200, 4})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		n := 2 + int(data[0])%64
		players := make([]Player, n)
		for i := range players {
			if i+1 < len(data) {
				players[i].Rating = int(data[i+1])
			}
		}
		k := 0
		playKnockout(t, players, func() Result {
			k++
			return Result(1 + int(data[k%len(data)])%5)
		})
	})
}

// playKnockout plays a knockout to the end with results from result and
// checks it as TestKnockoutRandom says.
func playKnockout(t *testing.T, players []Player, result func() Result) {
	t.Helper()
	n := len(players)
	stages := 0
	for size := 1; size < n; size *= 2 {
		stages++
	}
	out := make([]bool, n)
	var played []Round
	for {
		st, err := Knockout(players, played)
		if err != nil {
			t.Errorf("after %d rounds: %v", len(played), err)
			return
		}
		if st.Champion != Bye {
			if len(st.Next) != 0 || out[st.Champion] || st.Stage != stages {
				t.Errorf("champion %d (out %v) after stage %d of %d, next %v", st.Champion, out[st.Champion], st.Stage, stages, st.Next)
			}
			for p := range n {
				if p != st.Champion && !out[p] {
					t.Errorf("player %d never lost", p)
				}
			}
			return
		}
		if len(played) > 2*stages {
			t.Errorf("%d rounds for %d stages", len(played), stages)
			return
		}
		for i, g := range st.Next {
			if out[g.White] || (!g.IsBye() && out[g.Black]) {
				t.Errorf("stage %d: %v plays after losing", st.Stage, g)
				return
			}
			if !g.IsBye() {
				st.Next[i].Result = result()
			}
		}
		played = append(played, st.Next)
		// Who lost: a decisive game's loser; after two draws the lower seed.
		for _, g := range st.Next {
			w, b := g.Points()
			switch {
			case g.IsBye():
			case w > b:
				out[g.Black] = true
			case b > w:
				out[g.White] = true
			case len(played) >= 2 && slices.Contains(played[len(played)-2], Game{White: g.Black, Black: g.White, Result: Draw}):
				// The replay of a draw, drawn: White of the replay is the lower seed.
				out[g.White] = true
			}
		}
	}
}
