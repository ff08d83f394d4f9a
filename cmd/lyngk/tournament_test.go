package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/mailer"
	"lyngk.example/lyngk/templates"
)

// tourneyPlay drives tournaments through `lyngk process`, mail in and
// mails out, the way players do: it learns each game from its new-game
// board mail, ends it with full commands, and writes a transcript of
// every mail. The tournament mails are written whole; the board mails,
// whose texts other goldens pin, by recipient and subject.
type tourneyPlay struct {
	t     *testing.T
	db    string
	n     int
	out   strings.Builder
	games map[int][2]string // board -> White (first to move), Black
	over  map[int]bool
	ended bool // a "... is over" mail came
}

var players8 = []string{"alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"}

func tourAddr(name string) string { return name + "@example.com" }

func newTourneyPlay(t *testing.T, names ...string) *tourneyPlay {
	p := &tourneyPlay{t: t, db: filepath.Join(t.TempDir(), "lyngk.db"), games: map[int][2]string{}, over: map[int]bool{}}
	for _, n := range names {
		p.n++
		signupConfirmed(t, p.db, tourAddr(n), n, "pw-"+n, fmt.Sprintf("s%d@client.example", p.n))
	}
	return p
}

var newGameSubject = regexp.MustCompile(`^New Lyngk Board (\d+) (\S+)$`)

// send mails subject from the player and records the replies.
func (p *tourneyPlay) send(from, subject string) []reply {
	p.t.Helper()
	p.n++
	rs := process(p.t, p.db, rawMail{from: tourAddr(from), subject: subject, id: fmt.Sprintf("t%d@client.example", p.n)})
	fmt.Fprintf(&p.out, "=== %s sends %q\n", from, subject)
	for _, r := range rs {
		name := strings.TrimSuffix(r.to, "@example.com")
		if m := newGameSubject.FindStringSubmatch(r.Subject); m != nil {
			b, _ := strconv.Atoi(m[1])
			g := p.games[b]
			if name == m[2] {
				g[0] = name
			} else {
				g[1] = name
			}
			p.games[b] = g
		}
		if strings.HasPrefix(r.Subject, "Lyngk Board ") && !strings.Contains(strings.TrimPrefix(r.Subject, "Lyngk Board "), " ") {
			b, _ := strconv.Atoi(strings.TrimPrefix(r.Subject, "Lyngk Board "))
			p.over[b] = true
		}
		if strings.Contains(r.Subject, " tournament ") && strings.HasSuffix(r.Subject, " is over") {
			p.ended = true
		}
		if !strings.HasPrefix(r.Subject, "Lyngk Board ") && !strings.HasPrefix(r.Subject, "New Lyngk Board ") {
			fmt.Fprintf(&p.out, "--- to %s: %s\n%s", name, r.Subject, r.Body)
		} else {
			fmt.Fprintf(&p.out, "--- to %s: %s\n", name, r.Subject)
		}
		for _, l := range engine.LongLines(r.Body) {
			p.t.Errorf("%q to %s: line over %d columns: %q", r.Subject, r.to, templates.Width, l)
		}
	}
	return rs
}

// pending returns the boards started and not over, lowest first.
func (p *tourneyPlay) pending() []int {
	var bs []int
	for b := range p.games {
		if !p.over[b] {
			bs = append(bs, b)
		}
	}
	slices.Sort(bs)
	return bs
}

// end ends board b by the rule of the tests, from its number: White
// resigns, Black resigns, or they agree a draw (in turn).
func (p *tourneyPlay) end(b int) {
	p.t.Helper()
	g := p.games[b]
	if g[0] == "" || g[1] == "" {
		p.t.Fatalf("board %d: players %q", b, g)
	}
	switch b % 3 {
	case 0:
		p.send(g[0], fmt.Sprintf("lyngk resign %d %s pw-%s", b, g[0], g[0]))
	case 1:
		p.send(g[1], fmt.Sprintf("lyngk resign %d %s pw-%s", b, g[1], g[1]))
	default:
		p.send(g[0], fmt.Sprintf("lyngk move %d %s pw-%s propose", b, g[0], g[0]))
		p.send(g[1], fmt.Sprintf("lyngk move %d %s pw-%s accept", b, g[1], g[1]))
	}
	if !p.over[b] {
		p.t.Fatalf("board %d is not over", b)
	}
}

// playOut ends every game, the new rounds' too, until the tournament is
// over; it returns the number of games played.
func (p *tourneyPlay) playOut() int {
	p.t.Helper()
	n := 0
	for !p.ended {
		bs := p.pending()
		if len(bs) == 0 {
			p.t.Fatal("no game runs, and the tournament is not over")
		}
		p.end(bs[0])
		n++
	}
	if bs := p.pending(); len(bs) > 0 {
		p.t.Errorf("the tournament is over with games running: %v", bs)
	}
	return n
}

// check compares the transcript with testdata/NAME.golden.
func (p *tourneyPlay) check(name string) {
	p.t.Helper()
	goldenFile(p.t, filepath.Join("testdata", name+".golden"), mask(p.out.String()))
}

// TestTournamentRoundRobin5: a rated round robin of 5 through `lyngk
// process`: created, joined by four (the fifth join fills and starts it),
// every game at once (10 games, 4 a player), played to the end; the
// start mails, the show and the final standings are in the golden.
func TestTournamentRoundRobin5(t *testing.T) {
	p := newTourneyPlay(t, players8[:5]...)
	p.send("alice", "lyngk tournament create Spring alice pw-alice -players 3-5 -rated")
	for _, n := range players8[1:5] {
		p.send(n, "lyngk tournament join Spring "+n+" pw-"+n)
	}
	if len(p.games) != 10 {
		t.Fatalf("%d games started, want 10", len(p.games))
	}
	for _, n := range players8[:5] {
		k := 0
		for _, g := range p.games {
			if g[0] == n || g[1] == n {
				k++
			}
		}
		if k != 4 {
			t.Errorf("%s plays %d games, want 4", n, k)
		}
	}
	p.send("carol", "lyngk tournaments")
	if n := p.playOut(); n != 10 {
		t.Errorf("%d games played, want 10", n)
	}
	p.send("bob", "lyngk tournament show spring")
	p.send("bob", "lyngk standings")
	p.check("tournament-roundrobin5")
}

// TestTournamentDoubleRoundRobin4: a doubled round robin of 4, started
// by its creator: 12 games at once, 6 a player, each pair twice with the
// colours swapped.
func TestTournamentDoubleRoundRobin4(t *testing.T) {
	p := newTourneyPlay(t, players8[:4]...)
	p.send("alice", "lyngk tournament create Twice alice pw-alice -double")
	for _, n := range players8[1:4] {
		p.send(n, "lyngk tournament join Twice "+n+" pw-"+n)
	}
	p.send("alice", "lyngk tournament start Twice alice pw-alice")
	if len(p.games) != 12 {
		t.Fatalf("%d games started, want 12", len(p.games))
	}
	pairs := map[[2]string]int{}
	for _, g := range p.games {
		pairs[g]++
	}
	for g, k := range pairs {
		if k != 1 || pairs[[2]string{g[1], g[0]}] != 1 {
			t.Errorf("%s-%s: %d games, and %d with the colours swapped; want 1 and 1", g[0], g[1], k, pairs[[2]string{g[1], g[0]}])
		}
	}
	if n := p.playOut(); n != 12 {
		t.Errorf("%d games played, want 12", n)
	}
	p.check("tournament-double4")
}

// TestTournamentSwiss8: a Swiss of 8 over 3 rounds: each round paired and
// mailed when the last game of the one before ends; no pair meets twice.
func TestTournamentSwiss8(t *testing.T) {
	p := newTourneyPlay(t, players8...)
	p.send("alice", "lyngk tournament create Swiss8 alice pw-alice -format swiss -rounds 3 -players 8-8")
	for _, n := range players8[1:] {
		p.send(n, "lyngk tournament join Swiss8 "+n+" pw-"+n)
	}
	if len(p.games) != 4 {
		t.Fatalf("%d games in round 1, want 4", len(p.games))
	}
	if n := p.playOut(); n != 12 {
		t.Errorf("%d games played, want 12", n)
	}
	met := map[[2]string]bool{}
	for _, g := range p.games {
		k := [2]string{min(g[0], g[1]), max(g[0], g[1])}
		if met[k] {
			t.Errorf("%s and %s met twice", k[0], k[1])
		}
		met[k] = true
	}
	p.check("tournament-swiss8")
}

// TestTournamentKnockout8: a knockout of 8 seeded by rating (heidi won a
// rated game against alice first, so heidi is the first seed and alice
// the last): drawn games are replayed with the colours swapped, a second
// draw sends the higher seed through; 7 matches to a champion.
func TestTournamentKnockout8(t *testing.T) {
	p := newTourneyPlay(t, players8...)
	p.send("heidi", "lyngk challenge heidi alice")
	g := lyngk.New(101, lyngk.Standard)
	for _, who := range []string{"heidi", "alice"} {
		legal := g.Legal(nil)
		slices.SortFunc(legal, func(a, b lyngk.Move) int { return strings.Compare(a.String(), b.String()) })
		p.send(who, fmt.Sprintf("lyngk move 101 %s pw-%s %s", who, who, legal[0]))
		if err := g.Apply(legal[0]); err != nil {
			t.Fatal(err)
		}
	}
	p.send("alice", "lyngk resign 101 alice pw-alice")
	p.games, p.over = map[int][2]string{}, map[int]bool{}
	p.send("alice", "lyngk tournament create Cup alice pw-alice -format knockout -players 8-8")
	for _, n := range players8[1:] {
		p.send(n, "lyngk tournament join Cup "+n+" pw-"+n)
	}
	if len(p.games) != 4 {
		t.Fatalf("%d games in the first stage, want 4", len(p.games))
	}
	n := p.playOut()
	if n < 7 {
		t.Errorf("%d games played, want 7 matches at least", n)
	}
	p.send("alice", "lyngk tournament show Cup")
	p.check("tournament-knockout8")
}

// awaitSubject waits for the first mail after the player's first n whose
// subject is subject, and returns it with the number of mails then.
func awaitSubject(p localPlayer, n int, subject string) (mailer.Inbound, int) {
	p.t.Helper()
	for {
		n++
		if m := p.await(n); m.Subject == subject {
			return m, n
		}
	}
}

var yourBoard = regexp.MustCompile(`(?m)^  Board (\d+): `)

// TestServeTournament runs a round robin of three through `lyngk serve`
// in local mode, with its in-process SMTP and IMAP servers: alice creates
// it and, the operator allowing it (robot_tournaments), enters the robot;
// bob's join fills and starts it. Every game starts by itself; the
// players resign theirs (the robot thinks about its own meanwhile), and
// each player gets the final standings.
func TestServeTournament(t *testing.T) {
	cfg := defaultConfig()
	cfg.DataDir = t.TempDir()
	cfg.RobotPlayer, cfg.TournamentRobot, cfg.RobotThink = true, true, 10*time.Millisecond
	s := startServe(t, cfg)
	alice := localPlayer{t: t, name: "alice", smtp: s.smtp, imap: s.imap}
	bob := localPlayer{t: t, name: "bob", smtp: s.smtp, imap: s.imap}
	alice.signup("pw-alice", 0)
	bob.signup("pw-bob", 0)
	alice.send("lyngk tournament create Trio alice pw-alice -players 3-3", "", "")
	_, na := awaitSubject(alice, 2, "Lyngk tournament Trio")
	alice.send("lyngk tournament robot Trio alice pw-alice", "", "")
	joined, na := awaitSubject(alice, na, "Lyngk tournament Trio")
	if !strings.Contains(joined.Body, "robot joined tournament Trio") {
		t.Fatalf("the robot's entry:\n%s", joined.Body)
	}
	bob.send("lyngk tournament join Trio bob pw-bob", "", "")
	startA, na := awaitSubject(alice, na, "Lyngk tournament Trio starts")
	startB, nb := awaitSubject(bob, 2, "Lyngk tournament Trio starts")
	for _, c := range []struct {
		p     localPlayer
		start mailer.Inbound
	}{{alice, startA}, {bob, startB}} {
		boards := yourBoard.FindAllStringSubmatch(c.start.Body, -1)
		if len(boards) != 2 {
			t.Fatalf("%s's start mail lists %d games, want 2:\n%s", c.p.name, len(boards), c.start.Body)
		}
		for _, b := range boards {
			c.p.send(fmt.Sprintf("lyngk resign %s %s pw-%s", b[1], c.p.name, c.p.name), "", "")
		}
	}
	endA, _ := awaitSubject(alice, na, "Lyngk tournament Trio is over")
	endB, _ := awaitSubject(bob, nb, "Lyngk tournament Trio is over")
	for _, m := range []mailer.Inbound{endA, endB} {
		if !strings.Contains(m.Body, "robot wins it.") || !strings.Contains(m.Body, "Standings (win 1, draw ½") {
			t.Errorf("the end mail:\n%s", m.Body)
		}
	}
}
