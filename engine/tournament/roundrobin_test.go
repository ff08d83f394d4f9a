package tournament

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
)

// bergerTables reads testdata/berger.txt: the published tables for 4, 6
// and 8 players, by Berger number.
func bergerTables(t *testing.T) map[int][][][2]int {
	t.Helper()
	f, err := os.Open("testdata/berger.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tables := map[int][][][2]int{}
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "players "):
			if _, err := fmt.Sscanf(line, "players %d", &n); err != nil {
				t.Fatal(err)
			}
		default:
			var round [][2]int
			for _, g := range strings.Fields(line) {
				var w, b int
				if _, err := fmt.Sscanf(g, "%d-%d", &w, &b); err != nil {
					t.Fatalf("%q: %v", g, err)
				}
				round = append(round, [2]int{w, b})
			}
			tables[n] = append(tables[n], round)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return tables
}

// TestRoundRobinBerger checks RoundRobin against the published Berger
// tables for 3 to 8 players: an odd n is the table of n+1 with n+1 the
// bye (written as the bye of his opponent).
func TestRoundRobinBerger(t *testing.T) {
	tables := bergerTables(t)
	for n := 3; n <= 8; n++ {
		table := tables[n+n%2]
		if table == nil {
			t.Fatalf("no table for %d players", n+n%2)
		}
		rounds, err := RoundRobin(n, false)
		if err != nil {
			t.Fatal(err)
		}
		if len(rounds) != len(table) {
			t.Fatalf("%d players: %d rounds, the table %d", n, len(rounds), len(table))
		}
		for r, round := range rounds {
			var want []string
			for _, g := range table[r] {
				w, b := g[0], g[1]
				switch {
				case w > n:
					want = append(want, fmt.Sprintf("%d-bye", b))
				case b > n:
					want = append(want, fmt.Sprintf("%d-bye", w))
				default:
					want = append(want, fmt.Sprintf("%d-%d", w, b))
				}
			}
			if got := berger(round); got != strings.Join(want, " ") {
				t.Errorf("%d players, round %d: %s, the table %s", n, r+1, got, strings.Join(want, " "))
			}
		}
	}
}

// berger writes a round by Berger numbers.
func berger(round Round) string {
	var s []string
	for _, g := range round {
		if g.IsBye() {
			s = append(s, fmt.Sprintf("%d-bye", g.White+1))
			if g.Result != WhiteWon {
				s = append(s, "(bye not won)")
			}
			continue
		}
		s = append(s, fmt.Sprintf("%d-%d", g.White+1, g.Black+1))
		if g.Result != Pending {
			s = append(s, "(not pending)")
		}
	}
	return strings.Join(s, " ")
}

// TestRoundRobinProperties: for 2 to 16 players, single and double, every
// player is in every round once, each pair meets once (twice, with the
// colours swapped, doubled), the byes go once to each player of an odd
// number, and each player's Whites and Blacks differ by at most one.
func TestRoundRobinProperties(t *testing.T) {
	for n := 2; n <= 16; n++ {
		for _, double := range []bool{false, true} {
			rounds, err := RoundRobin(n, double)
			if err != nil {
				t.Fatal(err)
			}
			cycles := 1
			if double {
				cycles = 2
			}
			if want := cycles * (n + n%2 - 1); len(rounds) != want {
				t.Fatalf("n=%d double=%v: %d rounds, want %d", n, double, len(rounds), want)
			}
			if err := checkRounds(n, rounds); err != nil {
				t.Fatal(err)
			}
			white := map[[2]int]int{}
			byes := make([]int, n)
			colours := make([]int, n)
			for r, round := range rounds {
				seen := make([]bool, n)
				for _, g := range round {
					seen[g.White] = true
					if g.IsBye() {
						byes[g.White]++
						continue
					}
					seen[g.Black] = true
					white[[2]int{g.White, g.Black}]++
					colours[g.White]++
					colours[g.Black]--
				}
				for p, ok := range seen {
					if !ok {
						t.Fatalf("n=%d double=%v: player %d not in round %d", n, double, p, r+1)
					}
				}
			}
			for a := range n {
				if byes[a] != cycles*(n%2) {
					t.Errorf("n=%d double=%v: player %d has %d byes", n, double, a, byes[a])
				}
				if colours[a] < -1 || colours[a] > 1 {
					t.Errorf("n=%d double=%v: player %d has %+d more Whites than Blacks", n, double, a, colours[a])
				}
				for b := a + 1; b < n; b++ {
					ab, ba := white[[2]int{a, b}], white[[2]int{b, a}]
					if ab+ba != cycles || (double && (ab != 1 || ba != 1)) {
						t.Errorf("n=%d double=%v: %d-%d %d times, %d-%d %d times", n, double, a, b, ab, b, a, ba)
					}
				}
			}
		}
	}
}

// TestRoundRobinBadInput: fewer than 2 or more than MaxPlayers players.
func TestRoundRobinBadInput(t *testing.T) {
	for _, n := range []int{-1, 0, 1, MaxPlayers + 1} {
		if _, err := RoundRobin(n, false); err == nil || !strings.Contains(err.Error(), "tournament: bad input") {
			t.Errorf("RoundRobin(%d) = %v", n, err)
		}
	}
	if _, err := RoundRobin(MaxPlayers, true); err != nil {
		t.Errorf("RoundRobin(MaxPlayers) = %v", err)
	}
}
