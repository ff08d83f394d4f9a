package tournament

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestSwissWorked pairs the first two rounds of eight players by hand.
// Round 1: ranked by rating 0 … 7, the top half meets the bottom half
// (0-4, 1-5, 2-6, 3-7), the higher-ranked White on odd boards, Black on
// even ones. The higher-ranked all win. Round 2: the score group of one
// point is 0 1 2 3; 0 and 2 had White and want Black, 1 and 3 want White,
// so the bottom half is transposed to give everyone his colour: 3-0, 1-2.
// In the group of zero, 4 and 6 want White, 5 and 7 Black: 4-7, 6-5.
func TestSwissWorked(t *testing.T) {
	players := make([]Player, 8)
	for i := range players {
		players[i].Rating = 2000 - 10*i
	}
	r1, err := Swiss(players, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(r1), "[{0 4 pending} {5 1 pending} {2 6 pending} {7 3 pending}]"; got != want {
		t.Fatalf("round 1 = %s, want %s", got, want)
	}
	r1[0].Result, r1[1].Result, r1[2].Result, r1[3].Result = WhiteWon, BlackWon, WhiteWon, BlackWon
	r2, err := Swiss(players, []Round{r1})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(r2), "[{3 0 pending} {1 2 pending} {4 7 pending} {6 5 pending}]"; got != want {
		t.Fatalf("round 2 = %s, want %s", got, want)
	}
}

// TestSwissImpossible: when every pairing left repeats a game, or every
// player has had the bye, Swiss says so rather than repeating.
func TestSwissImpossible(t *testing.T) {
	four := make([]Player, 4)
	rr, err := RoundRobin(4, false)
	if err != nil {
		t.Fatal(err)
	}
	finish(rr, 1)
	if _, err := Swiss(four, rr); !errors.Is(err, ErrNoPairing) {
		t.Errorf("a fifth round of four = %v, want ErrNoPairing", err)
	}
	three := make([]Player, 3)
	rr, err = RoundRobin(3, false)
	if err != nil {
		t.Fatal(err)
	}
	finish(rr, 2)
	if _, err := Swiss(three, rr); !errors.Is(err, ErrNoPairing) {
		t.Errorf("a fourth round of three = %v, want ErrNoPairing", err)
	}
	rr[2][1].Result = Pending
	if _, err := Swiss(three, rr); !errors.Is(err, ErrUnfinished) {
		t.Errorf("after an unfinished round = %v, want ErrUnfinished", err)
	}
	withdrawn := []Player{{}, {Withdrawn: true}}
	if _, err := Swiss(withdrawn, nil); !errors.Is(err, ErrNoPairing) {
		t.Errorf("one player left = %v, want ErrNoPairing", err)
	}
}

// finish gives every pending game of rounds a result drawn from seed.
func finish(rounds []Round, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 0))
	results := []Result{WhiteWon, WhiteWon, BlackWon, BlackWon, Draw, WhiteForfeited, BlackForfeited}
	for _, round := range rounds {
		for i := range round {
			if round[i].Result == Pending {
				round[i].Result = results[r.IntN(len(results))]
			}
		}
	}
}

// TestSwissRandom plays 400 random Swiss tournaments (4 to 40 players, 3 to
// 9 rounds, random results, now and then a withdrawal) and checks every
// round with checkSwissRound.
func TestSwissRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 1))
	relaxed := 0
	for tour := range 400 {
		n := 4 + r.IntN(37)
		rounds := 3 + r.IntN(7)
		players := make([]Player, n)
		for i := range players {
			players[i].Rating = 1200 + r.IntN(1000)
		}
		var played []Round
		for range rounds {
			if r.IntN(10) == 0 {
				players[r.IntN(n)].Withdrawn = true
			}
			round, rel, err := swiss(players, played)
			if !checkSwissRound(t, players, played, round, rel, err) {
				t.Fatalf("tournament %d (%d players), round %d", tour, n, len(played)+1)
			}
			if err != nil {
				break
			}
			if rel {
				relaxed++
			}
			finish([]Round{round}, uint64(tour*100+len(played)))
			played = append(played, round)
		}
	}
	t.Logf("%d rounds paired with the colour rules relaxed", relaxed)
}

// FuzzSwiss plays a Swiss from the fuzzer's bytes: the number of players,
// of rounds, the results, the withdrawals, and checks every round.
func FuzzSwiss(f *testing.F) {
	f.Add([]byte{5, 4, 1, 2, 3, 4, 5, 6, 7})
	f.Add([]byte{2, 9, 0, 0, 0, 0})
	f.Add([]byte{17, 7, 200, 100, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 {
			return
		}
		n := 2 + int(data[0])%24
		rounds := 1 + int(data[1])%10
		data = data[2:]
		next := func() byte {
			if len(data) == 0 {
				return 0
			}
			b := data[0]
			data = data[1:]
			return b
		}
		players := make([]Player, n)
		for i := range players {
			players[i].Rating = int(next()) * 4
		}
		var played []Round
		for range rounds {
			if b := next(); b >= 240 {
				players[int(b)%n].Withdrawn = true
			}
			round, rel, err := swiss(players, played)
			if !checkSwissRound(t, players, played, round, rel, err) {
				t.Fatalf("%d players, round %d", n, len(played)+1)
			}
			if err != nil {
				return
			}
			for i := range round {
				if !round[i].IsBye() {
					round[i].Result = Result(1 + next()%5)
				}
			}
			played = append(played, round)
		}
	})
}

// checkSwissRound checks a round Swiss paired (or its error) and reports
// whether it was right:
//   - every active player is in exactly one game, no withdrawn one is;
//   - no pair meets twice in the tournament;
//   - at most one bye, only with an odd number of players, to a player
//     without one, won, and no lower-ranked player without a bye could
//     have had it (checked by brute force up to 14 players);
//   - unless the colour rules had to be relaxed, a player whose colours
//     kept them (colourRulesKept) still does;
//   - an error is ErrNoPairing, and then (up to 14 players, checked by
//     brute force) no pairing without a repeat exists.
func checkSwissRound(t *testing.T, players []Player, played []Round, round Round, relaxed bool, err error) bool {
	t.Helper()
	n := len(players)
	met := make([][]bool, n)
	for i := range met {
		met[i] = make([]bool, n)
	}
	hadBye := make([]bool, n)
	score := make([]int, n)
	colours := make([][]int8, n)
	for _, r := range played {
		for _, g := range r {
			w, b := g.Points()
			score[g.White] += w
			if g.IsBye() {
				hadBye[g.White] = true
				continue
			}
			score[g.Black] += b
			met[g.White][g.Black], met[g.Black][g.White] = true, true
			colours[g.White] = append(colours[g.White], 1)
			colours[g.Black] = append(colours[g.Black], -1)
		}
	}
	var active []int
	for i, p := range players {
		if !p.Withdrawn {
			active = append(active, i)
		}
	}
	// ranked is active, best first (as Swiss ranks them).
	ranked := slices.Clone(active)
	slices.SortStableFunc(ranked, func(a, b int) int {
		if score[a] != score[b] {
			return score[b] - score[a]
		}
		return players[b].Rating - players[a].Rating
	})
	if err != nil {
		if !errors.Is(err, ErrNoPairing) {
			t.Errorf("error %v", err)
			return false
		}
		if len(active) <= 14 && len(active) >= 2 {
			for _, bye := range byeCandidates(ranked, hadBye) {
				if matchable(without(ranked, bye), met) {
					t.Errorf("%v, but a pairing exists with the bye to %d", err, bye)
					return false
				}
			}
		}
		if len(active) > 14 {
			t.Errorf("%v with %d players", err, len(active))
			return false
		}
		return true
	}
	seen := make([]bool, n)
	bye := Bye
	for _, g := range round {
		for _, p := range []int{g.White, g.Black} {
			if p == Bye {
				continue
			}
			if p < 0 || p >= n || seen[p] || players[p].Withdrawn {
				t.Errorf("round %v: player %d twice, withdrawn or unknown", round, p)
				return false
			}
			seen[p] = true
		}
		if g.IsBye() {
			if bye != Bye || hadBye[g.White] || g.Result != WhiteWon || len(active)%2 == 0 {
				t.Errorf("round %v: bye to %d (had one: %v)", round, g.White, hadBye[g.White])
				return false
			}
			bye = g.White
			continue
		}
		if met[g.White][g.Black] {
			t.Errorf("round %v: %d and %d meet again", round, g.White, g.Black)
			return false
		}
		if g.Result != Pending {
			t.Errorf("round %v: a game with a result", round)
			return false
		}
	}
	for _, p := range active {
		if !seen[p] {
			t.Errorf("round %v: player %d left out", round, p)
			return false
		}
	}
	if bye != Bye && len(active) <= 14 {
		for _, lower := range byeCandidates(ranked, hadBye) {
			if lower == bye {
				break
			}
			if matchable(without(ranked, lower), met) {
				t.Errorf("round %v: the bye to %d, but %d ranks lower and could have it", round, bye, lower)
				return false
			}
		}
	}
	if !relaxed {
		for _, g := range round {
			if g.IsBye() {
				continue
			}
			for p, c := range map[int]int8{g.White: 1, g.Black: -1} {
				if colourRulesKept(colours[p]) && !colourRulesKept(append(slices.Clone(colours[p]), c)) {
					t.Errorf("round %v: player %d, colours %v, gets %d", round, p, colours[p], c)
					return false
				}
			}
		}
	}
	return true
}

// colourRulesKept: never three games in a row of one colour, and at most
// two games more of one colour than of the other.
func colourRulesKept(h []int8) bool {
	diff := 0
	for i, c := range h {
		diff += int(c)
		if i >= 2 && h[i-1] == c && h[i-2] == c {
			return false
		}
	}
	return diff >= -2 && diff <= 2
}

// byeCandidates: with an odd number of players, those without a bye from
// the lowest-ranked up; with an even number, no bye (Bye).
func byeCandidates(ranked []int, hadBye []bool) []int {
	if len(ranked)%2 == 0 {
		return []int{Bye}
	}
	var c []int
	for i := len(ranked) - 1; i >= 0; i-- {
		if !hadBye[ranked[i]] {
			c = append(c, ranked[i])
		}
	}
	return c
}

// matchable reports by brute force whether the players can all be paired
// without a repeat.
func matchable(ps []int, met [][]bool) bool {
	if len(ps) == 0 {
		return true
	}
	for i := 1; i < len(ps); i++ {
		if !met[ps[0]][ps[i]] {
			rest := append(slices.Clone(ps[1:i]), ps[i+1:]...)
			if matchable(rest, met) {
				return true
			}
		}
	}
	return false
}

// TestSwissLong runs Swiss tournaments of 24, 32 and 64 players for as
// many rounds as a round robin has. The Dutch order runs into dead ends
// there (the lowest have met each other) and the last pass of the search
// must still find the pairings. A Swiss may come to a round that cannot
// be paired, but never before half as many rounds as players (by Dirac's
// theorem a pairing exists while each has more than half the field left
// to meet), and the search must then have proved it, not given up.
func TestSwissLong(t *testing.T) {
	for _, n := range []int{24, 32, 64} {
		players := make([]Player, n)
		for i := range players {
			players[i].Rating = 2000 - i
		}
		var played []Round
		for len(played) < n-1 {
			round, rel, err := swiss(players, played)
			if err != nil {
				if !errors.Is(err, ErrNoPairing) || !strings.Contains(err.Error(), "repeats") || len(played) < n/2 {
					t.Errorf("%d players, round %d: %v", n, len(played)+1, err)
				}
				t.Logf("%d players: %d rounds, then %v", n, len(played), err)
				break
			}
			if !checkSwissRound(t, players, played, round, rel, err) {
				t.Fatalf("%d players, round %d", n, len(played)+1)
			}
			finish([]Round{round}, uint64(len(played)))
			played = append(played, round)
		}
	}
}
