package tournament

// RoundRobin returns the rounds of a round robin of n players by the Berger
// tables (FIDE Handbook C.05, Annex 1): player i of the result is Berger
// number i+1, so the caller's order of players is the draw of numbers.
// With an odd n, the missing last number is the bye: whoever meets it that
// round has a bye (Black is Bye). With double, the whole cycle is played a
// second time with the colours of every game swapped. Every game is
// Pending; byes are wins.
//
// The table for an even n: the last player n is fixed and the others turn
// around him. In round r he meets o = (r+1)/2 when r is odd (o has White)
// and n/2 + r/2 when r is even (n has White); the other games of the round
// are the pairs o+k against o−k (counted cyclically over 1..n−1, o+k has
// White) for k = 1 … n/2−1, in that board order.
func RoundRobin(n int, double bool) ([]Round, error) {
	if err := checkCount(n); err != nil {
		return nil, err
	}
	even := n + n%2
	m := even - 1
	num := func(x int) int { // cyclic over 1..m
		return ((x-1)%m+m)%m + 1
	}
	player := func(b int) int { // Berger number to player index, the dummy to Bye
		if b > n {
			return Bye
		}
		return b - 1
	}
	game := func(w, b int) Game {
		g := Game{White: player(w), Black: player(b)}
		if g.White == Bye { // the bye is always written as Black
			g.White, g.Black = g.Black, Bye
		}
		if g.Black == Bye {
			g.Result = WhiteWon
		}
		return g
	}
	rounds := make([]Round, 0, 2*m)
	for r := 1; r <= m; r++ {
		round := make(Round, 0, even/2)
		o := (r + 1) / 2
		if r%2 == 1 {
			round = append(round, game(o, even))
		} else {
			o = even/2 + r/2
			round = append(round, game(even, o))
		}
		for k := 1; k < even/2; k++ {
			round = append(round, game(num(o+k), num(o-k)))
		}
		rounds = append(rounds, round)
	}
	if double {
		for r := range m {
			second := make(Round, len(rounds[r]))
			for i, g := range rounds[r] {
				if !g.IsBye() {
					g.White, g.Black = g.Black, g.White
				}
				second[i] = g
			}
			rounds = append(rounds, second)
		}
	}
	return rounds, nil
}
