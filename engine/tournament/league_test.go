package tournament

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// ids names players: ids(1, 3) is p01 p02 p03.
func ids(from, to int) []string {
	var s []string
	for i := from; i <= to; i++ {
		s = append(s, fmt.Sprintf("p%02d", i))
	}
	return s
}

// show writes leagues one a line, each sorted by id for comparison.
func show(leagues []League) string {
	var lines []string
	for _, l := range leagues {
		lines = append(lines, strings.Join(slices.Sorted(slices.Values(l)), " "))
	}
	return strings.Join(lines, "\n")
}

// TestChampionshipTwoEditions runs a championship of thirty players, p01
// (rated 1990) to p30 (1700), through three editions.
func TestChampionshipTwoEditions(t *testing.T) {
	var entrants []Entrant
	for i := 1; i <= 30; i++ {
		entrants = append(entrants, Entrant{ID: fmt.Sprintf("p%02d", i), Rating: 2000 - 10*i})
	}
	// The first edition: three leagues of ten by rating, each listed by rating.
	first, err := NextLeagues(entrants, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(first), fmt.Sprint([]League{ids(1, 10), ids(11, 20), ids(21, 30)}); got != want {
		t.Fatalf("first edition %s, want %s", got, want)
	}
	// It ends upside down: in every league the lowest-rated finishes first.
	for _, l := range first {
		slices.Reverse(l)
	}
	// The second: from the top league, places 1-5 (p10 … p06) stay, 6-10 (p05 … p01)
	// go down; from the middle one the first two (p20, p19) go up, the 3rd to 5th
	// (p18, p17, p16) fill the top league's three places left, 6-10 (p15 … p11) go
	// down; from the bottom one the first two (p30, p29) go up and the 3rd to 5th
	// (p28, p27, p26) fill the middle league.
	second, err := NextLeagues(entrants, first)
	if err != nil {
		t.Fatal(err)
	}
	want := []League{
		append(ids(6, 10), ids(16, 20)...),
		append(ids(1, 5), ids(26, 30)...),
		append(ids(11, 15), ids(21, 25)...),
	}
	if got := show(second); got != show(want) {
		t.Fatalf("second edition\n%s\nwant\n%s", got, show(want))
	}
	for _, l := range second {
		if !slices.IsSortedFunc(l, func(a, b string) int { return strings.Compare(a, b) }) {
			t.Errorf("league %v is not by rating", l)
		}
	}
	// The third: p06 and p27 leave; newcomers n1 (2100), n2 (1850), n3 (1000). The
	// second edition ends by rating. 31 players: leagues of 11, 10, 10.
	// Returning: top league keeps p07-p10 (p06 left) and gains p01, p02; the middle
	// one gets p16-p20 from above, keeps p03-p05, gains p11, p12; the bottom one gets
	// p26, p28-p30, keeps p13-p15 and p21-p25.
	// Newcomers: n1 outrates the top league's lowest returning (p10, 1900), n2 the
	// middle one's (p20, 1800), n3 nobody's.
	// The top league has 7 of 11: it takes from the middle one its stayers by place
	// (p03, p04, p05), then its newcomer n2 (p16-p20 came down from it). The middle
	// one has 7 of 10: it takes the stayers p13, p14, p15 of the bottom one.
	var third []Entrant
	for _, e := range entrants {
		if e.ID != "p06" && e.ID != "p27" {
			third = append(third, e)
		}
	}
	third = append(third, Entrant{"n1", 2100}, Entrant{"n2", 1850}, Entrant{"n3", 1000})
	got, err := NextLeagues(third, second)
	if err != nil {
		t.Fatal(err)
	}
	want = []League{
		append(append(ids(1, 5), ids(7, 10)...), "n1", "n2"),
		ids(11, 20),
		append(append(ids(21, 26), ids(28, 30)...), "n3"),
	}
	if show(got) != show(want) {
		t.Fatalf("third edition\n%s\nwant\n%s", show(got), show(want))
	}
	if got[0][0] != "n1" || got[0][len(got[0])-1] != "n2" {
		t.Errorf("top league %v is not by rating", got[0])
	}
}

// TestChampionshipShrinks: when players leave, the leagues follow the
// number of players: 14 players make one league (14/10 rounds to 1).
func TestChampionshipShrinks(t *testing.T) {
	var entrants []Entrant
	for i := 1; i <= 14; i++ {
		entrants = append(entrants, Entrant{ID: fmt.Sprintf("p%02d", i), Rating: 1500})
	}
	got, err := NextLeagues(entrants, []League{ids(1, 10), ids(11, 20)})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(got[0]) != 14 {
		t.Errorf("leagues %v, want one of 14", got)
	}
}

// TestChampionshipBadInput: duplicates and too few players are refused.
func TestChampionshipBadInput(t *testing.T) {
	two := []Entrant{{"a", 1}, {"b", 2}}
	for _, tt := range []struct {
		entrants []Entrant
		previous []League
	}{
		{[]Entrant{{"a", 1}}, nil},
		{[]Entrant{{"a", 1}, {"a", 2}}, nil},
		{[]Entrant{{"a", 1}, {"", 2}}, nil},
		{two, []League{{"a", "b"}, {"a"}}},
	} {
		if _, err := NextLeagues(tt.entrants, tt.previous); !errors.Is(err, ErrBadInput) {
			t.Errorf("NextLeagues(%v, %v) = %v, want ErrBadInput", tt.entrants, tt.previous, err)
		}
	}
}

// TestChampionshipNoReturn: a relegated player does not fill a vacancy of
// the league he left. Three leagues of ten (p01-p10, p11-p20, p21-p30,
// each finishing in that order); the whole middle league leaves. 20
// players: two leagues of ten. The top league keeps p01-p05 and needs
// five: of the middle group, p06-p10 came down from it, so it takes the
// promoted p21 and p22, then the stayers of the bottom league by place,
// p23, p24, p25. The rest, p06-p10 and p26-p30, make the second league.
func TestChampionshipNoReturn(t *testing.T) {
	var entrants []Entrant
	for i := 1; i <= 30; i++ {
		if i <= 10 || i > 20 {
			entrants = append(entrants, Entrant{ID: fmt.Sprintf("p%02d", i), Rating: 1500})
		}
	}
	got, err := NextLeagues(entrants, []League{ids(1, 10), ids(11, 20), ids(21, 30)})
	if err != nil {
		t.Fatal(err)
	}
	want := []League{append(ids(1, 5), ids(21, 25)...), append(ids(6, 10), ids(26, 30)...)}
	if show(got) != show(want) {
		t.Errorf("leagues\n%s\nwant\n%s", show(got), show(want))
	}
}
