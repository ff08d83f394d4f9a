package engine_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestEloEstablishedFactor plays ten games that alice wins against bob
// (each after both have moved, so that it counts)
// (K = 40 for both: provisional), then an eleventh that she loses to the
// newcomer carol: alice, established after ten games, moves with K = 20,
// carol with K = 40. The figures are the Elo formula worked by hand (see
// rating.go); with K = 40 for alice she would end at 1701, not 1714.
func TestEloEstablishedFactor(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob", "carol")
	ratings := func(board int, loser string) string {
		t.Helper()
		out := v.cmd(addr(loser), fmt.Sprintf("lyngk resign %d %s pw-%s", board, loser, loser))
		if len(out) == 0 {
			t.Fatalf("resign %d: no mail", board)
		}
		var lines []string
		for _, l := range strings.Split(out[0].Body, "\n") {
			if strings.Contains(l, "'s rating is ") {
				lines = append(lines, l)
			}
		}
		slices.Sort(lines) // each player's mail names him first
		return strings.Join(lines, "\n")
	}
	var got string
	for board := 101; board <= 110; board++ {
		v.now = v.now.Add(24 * 60 * 60e9) // within bob's mails a day he did not ask for (MaxUnasked)
		v.cmd(addr("alice"), "lyngk challenge alice bob")
		v.firstMoves(board, [2]string{"alice", "bob"})
		got = ratings(board, "bob")
		if board == 109 {
			if want := "alice's rating is 1720 (provisional).\nbob's rating is 1480 (provisional)."; got != want {
				t.Errorf("after 9 games:\n%s\nwant\n%s", got, want)
			}
		}
	}
	if want := "alice's rating is 1728.\nbob's rating is 1472."; got != want {
		t.Errorf("after 10 games:\n%s\nwant\n%s", got, want)
	}
	v.cmd(addr("alice"), "lyngk challenge alice carol")
	v.firstMoves(111, [2]string{"alice", "carol"})
	if got, want := ratings(111, "alice"), "alice's rating is 1714.\ncarol's rating is 1627 (provisional)."; got != want {
		t.Errorf("established alice against newcomer carol:\n%s\nwant\n%s", got, want)
	}
}
