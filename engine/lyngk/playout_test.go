package lyngk

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine/games"
)

// rng is splitmix64: a deterministic generator, so that playouts in tests
// and benchmarks replay exactly.
type rng uint64

func (r *rng) next() uint64 {
	*r += 0x9e3779b97f4a7c15
	z := uint64(*r)
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

func (r *rng) intn(n int) int { return int(r.next() % uint64(n)) }

// refPoint finds the point at lattice (x, y) from the SPEC §1 formula and
// the point names alone, independently of the package's tables.
func refPoint(x, y int) (Point, bool) {
	sizes := []int{1, 4, 7, 6, 7, 6, 7, 4, 1}
	bases := []int{6, 3, 0, 1, 0, 1, 0, 3, 6}
	if x < 0 || x > 8 || y < bases[x] || (y-bases[x])%2 != 0 || (y-bases[x])/2 >= sizes[x] {
		return NoPoint, false
	}
	p, err := ParsePoint(fmt.Sprintf("%c%d", 'a'+x, (y-bases[x])/2+1))
	return p, err == nil
}

func refXY(p Point) (int, int) {
	bases := []int{6, 3, 0, 1, 0, 1, 0, 3, 6}
	s := p.String()
	x := int(s[0] - 'a')
	return x, 2*int(s[1]-'1') + bases[x]
}

// refLegal is a slow, direct reading of the rules: for every claim the
// player may make and every stack, walk the six lines step by step, bounce
// off stacks topped by the moving stack's colour when that colour is the
// player's, and keep the stacks that accept the moving one.
func refLegal(g *Game) []string {
	me := g.Turn()
	if me == 0 {
		return nil
	}
	mine, theirs := g.Claims(me), g.Claims(3-me)
	options := []Color{NoColor}
	if len(mine) < 2 {
		options = append(options, g.Free()...)
	}
	maxH := 5
	if g.Variant() == Stack6 {
		maxH = 6
	}
	dirs := [][2]int{{0, 2}, {0, -2}, {1, 1}, {-1, -1}, {1, -1}, {-1, 1}}
	var out []string
	for _, claim := range options {
		owned := slices.Clone(mine)
		if claim != NoColor {
			owned = append(owned, claim)
		}
		for p := range Point(NumPoints) {
			s := g.Stack(p)
			if s == "" {
				continue
			}
			top := colorFromLetter(s[0])
			if top == Joker || slices.Contains(theirs, top) {
				continue
			}
			own := slices.Contains(owned, top)
			// walk returns the first stack from q in direction d, the
			// moving stack's point counting as empty.
			walk := func(q Point, d [2]int) (Point, bool) {
				x, y := refXY(q)
				for {
					x, y = x+d[0], y+d[1]
					t, ok := refPoint(x, y)
					if !ok {
						return NoPoint, false
					}
					if t != p && g.Stack(t) != "" {
						return t, true
					}
				}
			}
			targets := map[Point]bool{}
			seen := map[Point]bool{p: true}
			queue := []Point{p}
			for len(queue) > 0 {
				q := queue[0]
				queue = queue[1:]
				for _, d := range dirs {
					t, ok := walk(q, d)
					if !ok {
						continue
					}
					if own && g.Stack(t)[0] == s[0] {
						if !seen[t] {
							seen[t] = true
							queue = append(queue, t)
						}
						continue
					}
					targets[t] = true
				}
			}
			for t := range targets {
				ts := g.Stack(t)
				ok := len(s)+len(ts) <= maxH && (own || len(ts) <= len(s))
				for i := range len(s) {
					if s[i] != 'J' && strings.IndexByte(ts, s[i]) >= 0 {
						ok = false
					}
				}
				if ok {
					out = append(out, Move{Claim: claim, From: p, To: t}.String())
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// samePosition reports whether a and b hold the same stacks, claims and
// removed stacks.
func samePosition(a, b *Game) bool {
	return a.pcs == b.pcs && a.h == b.h && a.top == b.top && a.mask == b.mask &&
		a.occ == b.occ && a.tops == b.tops && a.has == b.has && a.hgt == b.hgt &&
		a.owner == b.owner && a.claims == b.claims && a.nclaims == b.nclaims &&
		a.removed == b.removed && a.variant == b.variant
}

// TestRandomPlayouts plays random games (uniform over Legal, claims
// included) and checks at every position: Legal equals the slow reference,
// holds no duplicate and is never empty while the game goes on; every legal
// move applies; random other moves are refused without changing the game;
// the stacks obey the rules; the board block parses back to the same
// position; the game ends; replaying the record gives the same game.
func TestRandomPlayouts(t *testing.T) {
	nGames := 60
	if testing.Short() {
		nGames = 8
	}
	names := [2]string{"alice", "bob"}
	for _, v := range []Variant{Standard, Stack6} {
		for board := 101; board < 101+nGames; board++ {
			r := rng(board)
			g := New(board, v)
			for g.Status() == games.Playing {
				legal := legalStrings(&g)
				if len(legal) == 0 {
					t.Fatalf("board %d %v move %d: player %d to move has no move", board, v, g.MoveCount()+1, g.Turn())
				}
				if ref := refLegal(&g); !slices.Equal(legal, ref) {
					t.Fatalf("board %d %v move %d: Legal differs from the reference\n got %v\nwant %v\n%s", board, v, g.MoveCount()+1, legal, ref, g.Board(names))
				}
				if len(slices.Compact(slices.Clone(legal))) != len(legal) {
					t.Fatalf("board %d: duplicate moves", board)
				}
				for _, s := range legal {
					c := g
					if err := c.Apply(mustMove(t, s)); err != nil {
						t.Fatalf("board %d: legal %s: %v", board, s, err)
					}
				}
				for range 20 {
					m := Move{Claim: Color(r.intn(int(Joker) + 1)), From: Point(r.intn(NumPoints)), To: Point(r.intn(NumPoints))}
					if _, found := slices.BinarySearch(legal, m.String()); found {
						continue
					}
					c := g
					if err := c.Apply(m); !errors.Is(err, ErrIllegalMove) || c != g {
						t.Fatalf("board %d: %s not in Legal, Apply = %v", board, m, err)
					}
				}
				if err := g.Apply(mustMove(t, legal[r.intn(len(legal))])); err != nil {
					t.Fatal(err)
				}
				checkInvariants(t, &g)
				block := g.Board(names)
				p, pn, err := ParseBoard(block)
				if err != nil {
					t.Fatalf("board %d: ParseBoard: %v\n%s", board, err, block)
				}
				if !samePosition(&g, &p) || pn != names || p.Board(pn) != block {
					t.Fatalf("board %d: round trip differs\n%s\n%s", board, block, p.Board(pn))
				}
			}
			if g.Turn() != 0 || len(g.Legal(nil)) != 0 || g.MoveCount() > 85 {
				t.Fatalf("board %d: over with turn %d, %d legal moves, %d moves", board, g.Turn(), len(g.Legal(nil)), g.MoveCount())
			}
			checkResult(t, &g)
			replay := New(board, v)
			for _, m := range g.Moves() {
				if m.IsPass() {
					continue
				}
				if err := replay.Apply(m); err != nil {
					t.Fatalf("board %d replay %s: %v", board, m, err)
				}
			}
			if replay != g {
				t.Fatalf("board %d: the replay differs", board)
			}
		}
	}
}

// checkResult recounts the end of a game from the board picture.
func checkResult(t *testing.T, g *Game) {
	t.Helper()
	if g.Variant() == Stack6 && g.Winner() != 0 {
		for p := range Point(NumPoints) {
			if s := g.Stack(p); len(s) == 6 && slices.Contains(g.Claims(g.Winner()), colorFromLetter(s[0])) {
				return
			}
		}
	}
	score := [2][]int{}
	for pl := range 2 {
		score[pl] = []int{g.Removed(pl + 1)}
		top := 4
		if g.Variant() == Stack6 {
			top = 5
		}
		for k := top; k >= 1; k-- {
			n := 0
			for p := range Point(NumPoints) {
				if s := g.Stack(p); len(s) == k && slices.Contains(g.Claims(pl+1), colorFromLetter(s[0])) {
					n++
				}
			}
			score[pl] = append(score[pl], n)
		}
	}
	want := 0
	switch c := slices.Compare(score[0], score[1]); {
	case c > 0:
		want = 1
	case c < 0:
		want = 2
	}
	if g.Winner() != want || (want == 0) != (g.Status() == games.Tie) {
		t.Fatalf("scores %v: status %v winner %d, want winner %d", score, g.Status(), g.Winner(), want)
	}
}
