package tournament

import (
	"errors"
	"strings"
	"testing"
)

// TestStandingsWorked checks Standings against examples worked by hand.
// Scores are in half points, Sonneborn-Berger in quarter points: a win
// adds 2 × the opponent's half points, a draw 1 ×.
func TestStandingsWorked(t *testing.T) {
	tests := []struct {
		name   string
		n      int
		rounds []Round
		want   []string
	}{{
		// A round robin of four, 0 to 3, every game decisive:
		// 0 beat 1 and 3, lost to 2: 2 points (4 halves); SB 1's 4 + 3's 2 halves,
		// ×2 = 12 quarters (3). 1 beat 2 and 3, lost to 0: 4 halves, SB (2 + 2) × 2 = 8
		// quarters (2). 2 beat 0: 2 halves, SB 4 × 2 = 8. 3 beat 2: 2 halves, SB 2 × 2 = 4.
		// 0 and 1 are level on points, Sonneborn-Berger puts 0 first; so for 2 and 3.
		name: "Sonneborn-Berger decides",
		n:    4,
		rounds: []Round{
			{{0, 3, WhiteWon}, {1, 2, WhiteWon}},
			{{3, 2, WhiteWon}, {0, 1, WhiteWon}},
			{{1, 3, WhiteWon}, {2, 0, WhiteWon}},
		},
		want: []string{
			"1. #0 2 (SB 3, H2H 0, W 2)",
			"2. #1 2 (SB 2, H2H 0, W 2)",
			"3. #2 1 (SB 2, H2H 0, W 1)",
			"4. #3 1 (SB 1, H2H 0, W 1)",
		},
	}, {
		// A round robin of four: 0 beat 1 and 2, drew 3; 1 drew 2, beat 3; 3 beat 2.
		// Halves: 0: 2+2+1 = 5; 1: 0+1+2 = 3; 2: 0+1+0 = 1; 3: 1+2+0 = 3.
		// SB (quarters): 0: 2×3 (1) + 2×1 (2) + 1×3 (3) = 11 (2¾);
		// 1: 1×1 (drew 2) + 2×3 (beat 3) = 7 (1¾); 3: 1×5 (drew 0) + 2×1 (beat 2) = 7;
		// 2: 1×3 (drew 1) = 3 (¾).
		// 1 and 3 are level on 3 halves and 7 quarters; 1 beat 3: head to head 2 halves (1) to 0.
		name: "head to head decides",
		n:    4,
		rounds: []Round{
			{{0, 3, Draw}, {1, 2, Draw}},
			{{3, 2, WhiteWon}, {0, 1, WhiteWon}},
			{{1, 3, WhiteWon}, {2, 0, BlackWon}},
		},
		want: []string{
			"1. #0 2½ (SB 2¾, H2H 0, W 2)",
			"2. #1 1½ (SB 1¾, H2H 1, W 1)",
			"3. #3 1½ (SB 1¾, H2H 0, W 1)",
			"4. #2 ½ (SB ¾, H2H 0, W 0)",
		},
	}, {
		// A round robin of five (0-1 1-0, 0-2 1-0, 0-3 1-0, 0-4 0-1, 1-2 1-0,
		// 1-3 ½, 1-4 ½, 2-3 ½, 2-4 1-0, 3-4 ½). Halves: 0: 2+2+2+0 = 6;
		// 1: 0+2+1+1 = 4; 2: 0+0+1+2 = 3; 3: 0+1+1+1 = 3; 4: 2+1+0+1 = 4.
		// SB (quarters): 0: 2×4 + 2×3 + 2×3 = 20 (5); 1: 2×3 (2) + 1×3 (3) + 1×4 (4) = 13 (3¼);
		// 2: 1×3 (3) + 2×4 (4) = 11 (2¾); 3: 1×4 (1) + 1×3 (2) + 1×4 (4) = 11;
		// 4: 2×6 (0) + 1×4 (1) + 1×3 (3) = 19 (4¾).
		// (Five rounds of two games; the player left out of a round has no bye.)
		// 4 is ahead of 1 on SB. 2 and 3 are level on 3 halves and 11 quarters,
		// and drew each other (head to head 1 half point, ½, each); 2 won a game (against 4), 3 none.
		name: "games won decide",
		n:    5,
		rounds: []Round{
			{{0, 1, WhiteWon}, {2, 3, Draw}},
			{{0, 2, WhiteWon}, {1, 4, Draw}},
			{{0, 3, WhiteWon}, {2, 4, WhiteWon}},
			{{0, 4, BlackWon}, {1, 3, Draw}},
			{{1, 2, WhiteWon}, {3, 4, Draw}},
		},
		want: []string{
			"1. #0 3 (SB 5, H2H 0, W 3)",
			"2. #4 2 (SB 4¾, H2H 0, W 1)",
			"3. #1 2 (SB 3¼, H2H 0, W 1)",
			"4. #2 1½ (SB 2¾, H2H ½, W 1)",
			"5. #3 1½ (SB 2¾, H2H ½, W 0)",
		},
	}, {
		// 3 beat everybody; 0 beat 1, 1 beat 2, 2 beat 0: a cycle. 0, 1, 2 have 2 halves,
		// SB 2×2 = 4 quarters (1), head to head 2 each (their point among them), 1 win:
		// level on everything, they share the second place. 3: 6 halves, SB 2×(2+2+2) = 12.
		name: "a shared place",
		n:    4,
		rounds: []Round{
			{{0, 1, WhiteWon}, {2, 3, BlackWon}},
			{{1, 2, WhiteWon}, {3, 0, WhiteWon}},
			{{2, 0, WhiteWon}, {1, 3, BlackWon}},
		},
		want: []string{
			"1. #3 3 (SB 3, H2H 0, W 3)",
			"2. #0 1 (SB 1, H2H 1, W 1)",
			"2. #1 1 (SB 1, H2H 1, W 1)",
			"2. #2 1 (SB 1, H2H 1, W 1)",
		},
	}, {
		// Byes and forfeits: round 1 0 beat 1, 2 had the bye; round 2 2 forfeited
		// against 0, 1 had the bye. Halves: 0: 2+2 = 4; 1: 0+2 = 2; 2: 2+0 = 2.
		// SB counts games played: 0: 2×2 (beat 1) = 4 quarters (1); the forfeit adds
		// nothing; 1 and 2: 0. Wins on the board: 0 one, 1 and 2 none. 1 and 2 never
		// met (head to head 0): they share the second place. An unfinished game of
		// round 3 counts for nothing.
		name: "byes and forfeits",
		n:    3,
		rounds: []Round{
			{{0, 1, WhiteWon}, {2, Bye, WhiteWon}},
			{{2, 0, WhiteForfeited}, {1, Bye, Pending}},
			{{1, 2, Pending}},
		},
		want: []string{
			"1. #0 2 (SB 1, H2H 0, W 1)",
			"2. #1 1 (SB 0, H2H 0, W 0)",
			"2. #2 1 (SB 0, H2H 0, W 0)",
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, err := Standings(tt.n, tt.rounds)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range st {
				got = append(got, s.String())
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestStandingsBadInput: a history that names nobody, or a player twice in
// a round, is refused.
func TestStandingsBadInput(t *testing.T) {
	for _, rounds := range [][]Round{
		{{{0, 3, WhiteWon}}},
		{{{0, 0, WhiteWon}}},
		{{{-2, 1, WhiteWon}}},
		{{{0, 1, WhiteWon}, {2, 0, Draw}}},
		{{{0, 1, Result(9)}}},
	} {
		if _, err := Standings(3, rounds); !errors.Is(err, ErrBadInput) {
			t.Errorf("Standings(3, %v) = %v, want ErrBadInput", rounds, err)
		}
	}
}

// TestFormat: scores as players read them.
func TestFormat(t *testing.T) {
	for h, want := range map[int]string{0: "0", 1: "½", 2: "1", 7: "3½", -3: "-1½"} {
		if got := FormatHalves(h); got != want {
			t.Errorf("FormatHalves(%d) = %q, want %q", h, got, want)
		}
	}
	for q, want := range map[int]string{0: "0", 1: "¼", 2: "½", 3: "¾", 11: "2¾", 12: "3", -5: "-1¼"} {
		if got := FormatQuarters(q); got != want {
			t.Errorf("FormatQuarters(%d) = %q, want %q", q, got, want)
		}
	}
}

// FuzzStandings builds a history from the fuzzer's bytes, valid or not:
// Standings refuses it with ErrBadInput or ranks every player once, the
// scores adding up to two half points a finished game (a bye counts one
// side), ranks never decreasing.
func FuzzStandings(f *testing.F) {
	f.Add([]byte{4, 0, 3, 1, 1, 2, 3, 255, 3, 2, 1, 0, 1, 2})
	f.Add([]byte{2, 0, 1, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		n := int(data[0]) % 12
		var rounds []Round
		var round Round
		total := 0
		for i := 1; i+2 < len(data); i += 3 {
			if data[i] == 255 {
				rounds = append(rounds, round)
				round = nil
				continue
			}
			g := Game{White: int(data[i]%13) - 1, Black: int(data[i+1]%13) - 1, Result: Result(data[i+2] % 7)}
			w, b := g.Points()
			total += w + b
			round = append(round, g)
		}
		rounds = append(rounds, round)
		st, err := Standings(n, rounds)
		if err != nil {
			if !errors.Is(err, ErrBadInput) {
				t.Fatalf("error %v", err)
			}
			return
		}
		seen := make([]bool, n)
		sum := 0
		for i, s := range st {
			if seen[s.Player] || (i > 0 && s.Rank < st[i-1].Rank) {
				t.Fatalf("standings %v", st)
			}
			seen[s.Player] = true
			sum += s.Score
		}
		if sum != total {
			t.Fatalf("scores add up to %d, the games to %d", sum, total)
		}
	})
}
