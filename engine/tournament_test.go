package engine_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/store"
)

// tourney reads a tournament through the read API.
func (v *env) tourney(name string) *engine.TournamentDetail {
	v.t.Helper()
	var d *engine.TournamentDetail
	err := v.db.View(func(tx *store.Tx) (err error) { d, err = v.e.ReadTournament(tx, name); return err })
	if err != nil {
		v.t.Fatalf("ReadTournament %s: %v", name, err)
	}
	return d
}

// mustSay fails unless out is one mail to to whose text holds want.
func mustSay(t *testing.T, out []engine.Mail, to, want string) {
	t.Helper()
	if len(out) != 1 || !slices.Equal(out[0].To, []string{to}) || !strings.Contains(out[0].Body, want) {
		t.Fatalf("want one mail to %s saying %q, got:\n%s", to, want, format(out))
	}
}

// TestTournamentBadInput: every wrong tournament command gets one error
// mail, to its sender only, saying what is wrong, and changes nothing
// (the texts in testdata/tournament-bad-input.golden).
func TestTournamentBadInput(t *testing.T) {
	v := newEnv(t, withYinsh)
	v.signup("alice", "bob", "carol", "dave", "erin")
	mustSay(t, v.cmd(addr("alice"), "lyngk tournament create Open alice pw-alice -players 3-4"), addr("alice"), "created tournament Open")
	mustSay(t, v.cmd(addr("bob"), "lyngk tournament join open bob pw-bob"), addr("bob"), "bob joined")
	mustSay(t, v.cmd(addr("carol"), "lyngk tournament create Priv carol pw-carol -format swiss -private sesame"), addr("carol"), "created")
	mustSay(t, v.cmd(addr("carol"), "yinsh tournament create Rings carol pw-carol"), addr("carol"), "created")
	v.cmd(addr("dave"), "lyngk tournament create Run dave pw-dave -players 2-2")
	if out := v.cmd(addr("erin"), "lyngk tournament join Run erin pw-erin"); len(out) != 4 {
		t.Fatalf("the join that fills Run: want two board mails and two start mails, got:\n%s", format(out))
	}
	tests := []struct{ from, cmd, want string }{
		{"alice", "lyngk tournament create 9lives alice pw-alice", `"9lives" is no tournament name`},
		{"alice", "lyngk tournament create Abcdefghijklmnopqrstuvwxy alice pw-alice", "at most 24 letters"},
		{"alice", "lyngk tournament create OPEN alice pw-alice", `There is a tournament "OPEN" already`},
		{"alice", "lyngk tournament create New alice pw-alice -format ladder", `"-format ladder" is no option`},
		{"alice", "lyngk tournament create New alice pw-alice -format", `"-format " is no option`},
		{"alice", "lyngk tournament create New alice pw-alice -rounds 3", "-rounds is not an option of a round robin"},
		{"alice", "lyngk tournament create New alice pw-alice -format swiss -double", "-double is not an option of a Swiss"},
		{"alice", "lyngk tournament create New alice pw-alice -players 1-4", `"-players 1-4" is no option`},
		{"alice", "lyngk tournament create New alice pw-alice -players 5-3", `"-players 5-3" is no option`},
		{"alice", "lyngk tournament create New alice pw-alice -format swiss -players 2-65", `"-players 2-65" is no option`},
		{"alice", "lyngk tournament create New alice pw-alice -players 4-17", "A round robin has at most 16 players"},
		{"alice", "lyngk tournament create New alice pw-alice -format swiss -rounds 13", `"-rounds 13" is no option`},
		{"alice", "lyngk tournament create New alice pw-alice -format swiss -rounds 5 -players 4-5", "plays at most 4 rounds, not 5"},
		{"alice", "lyngk tournament create New alice pw-alice -private", `"-private" is no option`},
		{"alice", "lyngk tournament create New alice pw-alice -frobnicate", `"-frobnicate" is no option`},
		{"alice", "lyngk tournament create New alice nope", "Wrong password for alice."},
		{"alice", "lyngk tournament create New zoe pw-zoe", `There is no user "zoe"`},
		{"alice", "lyngk tournament join Nothing alice pw-alice", `There is no tournament "Nothing"`},
		{"alice", "lyngk tournament join Rings alice pw-alice", "Tournament Rings is played at yinsh"},
		{"alice", "lyngk tournament join Priv alice pw-alice", "Tournament Priv is private"},
		{"alice", "lyngk tournament join Priv alice pw-alice guess", "Tournament Priv is private"},
		{"bob", "lyngk tournament join Open bob pw-bob", "bob is in tournament Open already"},
		{"alice", "lyngk tournament join Run alice pw-alice", "Tournament Run is running: it takes no more"},
		{"erin", "lyngk tournament leave Run erin pw-erin", "Tournament Run has started"},
		{"carol", "lyngk tournament leave Open carol pw-carol", "carol does not play in tournament Open"},
		{"bob", "lyngk tournament start Open bob pw-bob", "Only the creator of tournament Open, alice"},
		{"alice", "lyngk tournament start Open alice pw-alice", "Tournament Open has 2 players; it starts with 3"},
		{"dave", "lyngk tournament start Run dave pw-dave", "Tournament Run has started"},
		{"bob", "lyngk tournament withdraw Open bob pw-bob", "Tournament Open has not started"},
		{"alice", "lyngk tournament withdraw Run alice pw-alice", "alice does not play in tournament Run"},
		{"alice", "lyngk tournament robot Open alice pw-alice", "The robot player does not enter tournament Open"},
		{"bob", "lyngk tournament robot Open bob pw-bob", "Only the creator of tournament Open"},
		{"bob", "lyngk tournament show Nothing", `There is no tournament "Nothing"`},
		{"bob", "lyngk tournament", "lyngk tournament show|create|join|leave|start|withdraw|robot ..."},
		{"bob", "lyngk tournament frob Open", "lyngk tournament show|create|join|leave|start|withdraw|robot ..."},
		{"bob", "lyngk tournament join Open", "Usage: lyngk tournament join NAME USERID PASSWORD [PASSWORD2]"},
		{"bob", "lyngk tournaments all", "Usage: lyngk tournaments"},
		{"erin", "lyngk decline 101 erin pw-erin", "Lyngk Board 101 is a game of tournament Run: it cannot be"},
	}
	// Tokens are left out: the error about a game carries its player's
	// reply token, as every error mail about a running game does.
	records := []string{store.BucketUsers, store.BucketGames, store.BucketMeta, store.BucketRobot, store.BucketAddresses,
		store.BucketConfirms, store.BucketTournaments, store.BucketTourIndex}
	before := v.dump(records...)
	var golden strings.Builder
	for _, tc := range tests {
		out := v.cmd(addr(tc.from), tc.cmd)
		if len(out) != 1 || !slices.Equal(out[0].To, []string{addr(tc.from)}) || !strings.HasSuffix(out[0].Subject, "rror") ||
			!strings.Contains(strings.Join(strings.Fields(out[0].Body), " "), tc.want) {
			t.Errorf("%s: want one error mail to %s saying %q, got:\n%s", tc.cmd, tc.from, tc.want, format(out))
		}
		fmt.Fprintf(&golden, "=== %s: %s\n", tc.from, tc.cmd)
		for _, m := range out {
			golden.WriteString(m.Body)
		}
	}
	if after := v.dump(records...); after != before {
		t.Errorf("bad input changed the store: %s", diff(before, after))
	}
	checkGolden(t, "tournament-bad-input", golden.String())
}

// TestTournamentBounds: the bounds of deploy/SECURITY.md, each at its
// figure: 2 tournaments created a week, 5 open or running a player, 2 to
// 64 players, at most 16 in a round robin, at most 12 Swiss rounds.
func TestTournamentBounds(t *testing.T) {
	if engine.MaxTournamentsPerWeek != 2 || engine.MaxTournamentsPerPlayer != 5 || engine.MinTournamentPlayers != 2 ||
		engine.MaxTournamentPlayers != 64 || engine.MaxRoundRobinPlayers != 16 || engine.MaxSwissRounds != 12 {
		t.Fatal("the bounds differ from the figures of deploy/SECURITY.md")
	}
	v := newEnv(t)
	v.signup("alice", "bob")
	mustSay(t, v.cmd(addr("alice"), "lyngk tournament create A1 alice pw-alice -format swiss -players 2-64 -rounds 12"), addr("alice"), "created")
	mustSay(t, v.cmd(addr("alice"), "lyngk tournament create A2 alice pw-alice -players 2-16"), addr("alice"), "created")
	mustSay(t, v.cmd(addr("alice"), "lyngk tournament create A3 alice pw-alice"), addr("alice"), "A player may create 2 tournaments in 7 days")
	v.now = v.now.Add(7*24*time.Hour - time.Minute)
	mustSay(t, v.cmd(addr("alice"), "lyngk tournament create A3 alice pw-alice"), addr("alice"), "A player may create 2 tournaments in 7 days")
	v.now = v.now.Add(time.Minute)
	mustSay(t, v.cmd(addr("alice"), "lyngk tournament create A3 alice pw-alice"), addr("alice"), "created")
	for _, name := range []string{"A1", "A2", "A3"} {
		mustSay(t, v.cmd(addr("bob"), "lyngk tournament join "+name+" bob pw-bob"), addr("bob"), "bob joined")
	}
	mustSay(t, v.cmd(addr("bob"), "lyngk tournament create B1 bob pw-bob"), addr("bob"), "created")
	mustSay(t, v.cmd(addr("bob"), "lyngk tournament create B2 bob pw-bob"), addr("bob"), "created")
	mustSay(t, v.cmd(addr("alice"), "lyngk tournament join B1 alice pw-alice"), addr("alice"), "alice joined")
	mustSay(t, v.cmd(addr("alice"), "lyngk tournament join B2 alice pw-alice"), addr("alice"), "alice joined")
	// Both are in 5 now: alice can neither create nor join a sixth.
	v.now = v.now.Add(7 * 24 * time.Hour)
	mustSay(t, v.cmd(addr("alice"), "lyngk tournament create A4 alice pw-alice"), addr("alice"), "alice plays in 5 open or running tournaments")
	if out := v.cmd(addr("bob"), "lyngk tournament leave B2 bob pw-bob"); len(out) != 2 || !strings.Contains(out[0].Body, "cancels it") ||
		!strings.Contains(out[1].Body, "cancels it") {
		t.Fatalf("the creator leaves B2: want the cancellation to both, got:\n%s", format(out))
	}
	mustSay(t, v.cmd(addr("alice"), "lyngk tournament create A4 alice pw-alice"), addr("alice"), "created")
	if got := v.tourney("A1"); got.Min != 2 || got.Max != 64 || got.PlannedRounds != 12 {
		t.Errorf("A1: %d to %d players, %d rounds; want 2 to 64, 12", got.Min, got.Max, got.PlannedRounds)
	}
	var list []engine.TournamentSummary
	if err := v.db.View(func(tx *store.Tx) (err error) { list, err = v.e.ListTournaments(tx, "lyngk"); return err }); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range list {
		names = append(names, s.Name)
	}
	if want := []string{"A1", "A2", "A3", "A4", "B1"}; !slices.Equal(names, want) {
		t.Errorf("ListTournaments: %q, want %q (B2 cancelled)", names, want)
	}
	if err := v.db.View(func(tx *store.Tx) (err error) { list, err = v.e.PlayerTournaments(tx, "BOB"); return err }); err != nil {
		t.Fatal(err)
	}
	names = nil
	for _, s := range list {
		names = append(names, s.Name)
	}
	if want := []string{"A1", "A2", "A3", "B1"}; !slices.Equal(names, want) {
		t.Errorf("PlayerTournaments(bob): %q, want %q", names, want)
	}
	var err error
	v.db.View(func(tx *store.Tx) error { _, err = v.e.ReadTournament(tx, "B2"); return nil })
	if !errors.Is(err, engine.ErrNoTournament) {
		t.Errorf("ReadTournament of the cancelled B2: %v, want ErrNoTournament", err)
	}
	// lyngk admin check compares the index with the records.
	v.checkIndexes()
	if err := v.db.Update(func(tx *store.Tx) error { return tx.Delete(store.BucketTourIndex, "pbob\x00a1") }); err != nil {
		t.Fatal(err)
	}
	var diffs []string
	if err := v.db.View(func(tx *store.Tx) (err error) { diffs, err = engine.CheckIndexes(tx); return err }); err != nil {
		t.Fatal(err)
	}
	if want := []string{`tourindex: missing "pbob\x00a1"`}; !slices.Equal(diffs, want) {
		t.Errorf("admin check after a key of the tournaments' index was lost: %q, want %q", diffs, want)
	}
}

// TestTournamentWithdraw: a Swiss of 4 over 2 rounds. dave withdraws in
// round 1: his running game is lost by forfeit at once, and when the
// other game of the round ends, round 2 pairs the three others (one has
// the bye) without him. The mails are in testdata/tournament-withdraw.golden.
func TestTournamentWithdraw(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob", "carol", "dave")
	v.cmd(addr("alice"), "lyngk tournament create W alice pw-alice -format swiss -rounds 2 -players 4-4")
	for _, n := range []string{"bob", "carol"} {
		v.cmd(addr(n), "lyngk tournament join W "+n+" pw-"+n)
	}
	var log strings.Builder
	record := func(what string, out []engine.Mail) {
		fmt.Fprintf(&log, "##### %s\n%s\n", what, format(out))
	}
	record("dave joins: the start", v.cmd(addr("dave"), "lyngk tournament join W dave pw-dave"))
	d := v.tourney("W")
	if len(d.Rounds) != 1 || len(d.Rounds[0].Games) != 2 {
		t.Fatalf("round 1: %+v", d.Rounds)
	}
	var daves, other engine.TournamentGame
	for _, g := range d.Rounds[0].Games {
		if g.White == "dave" || g.Black == "dave" {
			daves = g
		} else {
			other = g
		}
	}
	record("dave withdraws", v.cmd(addr("dave"), "lyngk tournament withdraw W dave pw-dave"))
	d = v.tourney("W")
	for _, g := range d.Rounds[0].Games {
		if g.Board == daves.Board && g.Result != "+/-" && g.Result != "-/+" {
			t.Errorf("dave's game %d: result %q, want a forfeit", g.Board, g.Result)
		}
	}
	mustSay(t, v.cmd(addr("dave"), "lyngk tournament withdraw W dave pw-dave"), addr("dave"), "dave has withdrawn from tournament W already")
	record("the other game ends: round 2", v.cmd(addr(other.White), fmt.Sprintf("lyngk resign %d %s pw-%s", other.Board, other.White, other.White)))
	d = v.tourney("W")
	if len(d.Rounds) != 2 {
		t.Fatalf("%d rounds after round 1 ended, want 2", len(d.Rounds))
	}
	byes := 0
	for _, g := range d.Rounds[1].Games {
		if g.White == "dave" || g.Black == "dave" {
			t.Errorf("dave, withdrawn, is paired in round 2: %+v", g)
		}
		if g.Result == "bye" {
			byes++
		}
	}
	if byes != 1 || len(d.Rounds[1].Games) != 2 {
		t.Errorf("round 2: %+v, want one game and one bye", d.Rounds[1].Games)
	}
	for _, s := range d.Standings {
		if s.Withdrawn != (s.Player == "dave") {
			t.Errorf("standings: %+v", s)
		}
	}
	for _, g := range d.Rounds[1].Games {
		if g.Board != 0 {
			record("round 2's game ends: the end", v.cmd(addr(g.Black), fmt.Sprintf("lyngk resign %d %s pw-%s", g.Board, g.Black, g.Black)))
		}
	}
	if d = v.tourney("W"); d.State != engine.TournamentFinished {
		t.Errorf("state %s after the last game, want finished", d.State)
	}
	mustSay(t, v.cmd(addr("alice"), "lyngk tournament withdraw W alice pw-alice"), addr("alice"), "Tournament W is over")
	v.checkIndexes()
	checkGolden(t, "tournament-withdraw", log.String())
}

// TestTournamentTimer: a tournament's game counts from its start. A player
// who never moves forfeits it (a challenge would be cancelled), an unrated
// tournament's game changes no rating, and the game's summary names its
// tournament and round.
func TestTournamentTimer(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	v.cmd(addr("alice"), "lyngk tournament create T alice pw-alice -players 2-2")
	v.cmd(addr("bob"), "lyngk tournament join T bob pw-bob")
	v.now = v.now.Add(engine.DefaultForfeitAfter + time.Minute)
	out := v.tick()
	if len(out) == 0 || !strings.Contains(out[0].Body, "forfeited the game") {
		t.Fatalf("the timer: want the forfeit's board mails, got:\n%s", format(out))
	}
	d := v.tourney("T")
	if d.State != engine.TournamentFinished || d.Winner == "" {
		t.Errorf("after the forfeit: state %s, winner %q", d.State, d.Winner)
	}
	var g *engine.GameDetail
	var p engine.Player
	err := v.db.View(func(tx *store.Tx) (err error) {
		if g, err = v.e.ReadGame(tx, 101); err != nil {
			return err
		}
		p, err = v.e.ReadPlayer(tx, "alice", "lyngk")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if g.Status != engine.StatusForfeit || g.Tournament != "T" || g.TournamentRound != 1 {
		t.Errorf("game 101: status %s, tournament %q round %d; want forfeit, T, 1", g.Status, g.Tournament, g.TournamentRound)
	}
	if p.Rating != 1600 || p.Won+p.Lost+p.Tied != 0 {
		t.Errorf("alice after an unrated tournament: rating %d, %d games; want 1600, none", p.Rating, p.Won+p.Lost+p.Tied)
	}
}

// TestTournamentRobot: where the operator allows it (TournamentRobot with
// the robot player on), the creator enters the robot, and its games wait
// for it in the robot's queue like any game against it.
func TestTournamentRobot(t *testing.T) {
	v := newEnv(t, func(c *engine.Config) { c.RobotPlayer, c.TournamentRobot = true, true })
	v.signup("alice", "bob")
	// Refused, the robot's entry makes no account for it.
	v.cmd(addr("alice"), "lyngk tournament create Duo alice pw-alice -players 2-2")
	v.cmd(addr("bob"), "lyngk tournament join Duo bob pw-bob")
	before := v.dump()
	mustSay(t, v.cmd(addr("alice"), "lyngk tournament robot Duo alice pw-alice"), addr("alice"), "Tournament Duo is running")
	if after := v.dump(); after != before {
		t.Errorf("a refused entry of the robot changed the store: %s", diff(before, after))
	}
	v.cmd(addr("alice"), "lyngk tournament create R alice pw-alice -players 3-3")
	mustSay(t, v.cmd(addr("bob"), "lyngk tournament robot R bob pw-bob"), addr("bob"), "Only the creator")
	mustSay(t, v.cmd(addr("alice"), "lyngk tournament robot R alice pw-alice"), addr("alice"), "robot joined tournament R")
	mustSay(t, v.cmd(addr("alice"), "lyngk tournament robot R alice pw-alice"), addr("alice"), "robot is in tournament R already")
	v.cmd(addr("bob"), "lyngk tournament join R bob pw-bob")
	if d := v.tourney("R"); d.State != engine.TournamentRunning || len(d.Entrants) != 3 {
		t.Fatalf("R: %s with %d players", d.State, len(d.Entrants))
	}
	var turns []int
	err := v.db.View(func(tx *store.Tx) error {
		return tx.ForEach(store.BucketRobot, func(k string, _ []byte) error { turns = append(turns, len(k)); return nil })
	})
	if err != nil || len(turns) == 0 {
		t.Errorf("no game waits for the robot (%v)", err)
	}
}

// TestTournamentOldStore: a store file of the release before tournaments
// (without the buckets tournaments and tourindex) opens with every
// record as it was, the two buckets added empty, and takes tournaments.
func TestTournamentOldStore(t *testing.T) {
	v := newEnv(t, withYinsh)
	upgradeScenario(v)
	all := []string{store.BucketUsers, store.BucketGames, store.BucketTokens, store.BucketMeta, store.BucketRobot,
		store.BucketAddresses, store.BucketConfirms, store.BucketByPlayer, store.BucketRunning, store.BucketDeadlines,
		store.BucketEnded, store.BucketCounts, store.BucketRatings, store.BucketGameTokens, store.BucketExpiry, store.BucketRecipients}
	before, api := v.dump(all...), v.readAPI()
	v.db.Close()
	db, err := bolt.Open(v.path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, b := range []string{store.BucketTournaments, store.BucketTourIndex} {
			if err := tx.DeleteBucket([]byte(b)); err != nil {
				return err
			}
		}
		return nil
	})
	if err := errors.Join(err, db.Close()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Clean(v.path)); err != nil {
		t.Fatal(err)
	}
	v.open()
	if after := v.dump(all...); after != before {
		t.Errorf("the old store's records changed when opened: %s", diff(before, after))
	}
	if got := v.readAPI(); got != api {
		t.Errorf("the read API says otherwise of the old store: %s", diff(api, got))
	}
	if got := v.dump(store.BucketTournaments, store.BucketTourIndex); got != "" {
		t.Errorf("new buckets not empty: %s", got)
	}
	mustSay(t, v.cmd(addr("alice"), "lyngk tournament create New alice pw-alice"), addr("alice"), "created tournament New")
}

// TestTournamentWithdrawRoundRobin: in a round robin of 4 dave resigns
// one game, then withdraws: his two other games, running, are lost by
// forfeit at once (no game won nor Sonneborn-Berger for them), and the
// round robin goes on to its end without him.
func TestTournamentWithdrawRoundRobin(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob", "carol", "dave")
	v.cmd(addr("alice"), "lyngk tournament create RR alice pw-alice -players 4-4")
	for _, n := range []string{"bob", "carol", "dave"} {
		v.cmd(addr(n), "lyngk tournament join RR "+n+" pw-"+n)
	}
	var his []engine.TournamentGame
	for _, r := range v.tourney("RR").Rounds {
		for _, g := range r.Games {
			if g.White == "dave" || g.Black == "dave" {
				his = append(his, g)
			}
		}
	}
	if len(his) != 3 {
		t.Fatalf("dave has %d games, want 3", len(his))
	}
	v.cmd(addr("dave"), fmt.Sprintf("lyngk resign %d dave pw-dave", his[0].Board))
	out := v.cmd(addr("dave"), "lyngk tournament withdraw RR dave pw-dave")
	if len(out) != 5 {
		t.Fatalf("withdraw: want his answer and the two forfeits' board mails to both players, got %d:\n%s", len(out), format(out))
	}
	forfeits := 0
	for _, r := range v.tourney("RR").Rounds {
		for _, g := range r.Games {
			if g.Board == his[1].Board || g.Board == his[2].Board {
				if g.White == "dave" && g.Result == "-/+" || g.Black == "dave" && g.Result == "+/-" {
					forfeits++
				}
			}
		}
	}
	if forfeits != 2 {
		t.Errorf("%d of dave's running games lost by forfeit, want 2", forfeits)
	}
	for _, r := range v.tourney("RR").Rounds {
		for _, g := range r.Games {
			if g.Result == "" {
				v.cmd(addr(g.White), fmt.Sprintf("lyngk resign %d %s pw-%s", g.Board, g.White, g.White))
			}
		}
	}
	d := v.tourney("RR")
	if d.State != engine.TournamentFinished {
		t.Fatalf("state %s, want finished", d.State)
	}
	for _, s := range d.Standings {
		if s.Player == "dave" && (s.Score != 0 || s.Wins != 0 || s.Games != 3 || !s.Withdrawn) {
			t.Errorf("dave's standing: %+v", s)
		}
		if s.Player != "dave" && s.Games != 3 {
			t.Errorf("%s has %d games, want 3", s.Player, s.Games)
		}
	}
	v.checkIndexes()
}

// TestTournamentReadAPI pins what the web reads of a tournament: a doubled
// round robin of 3, every game resigned by the player to move first but
// the last, drawn; the detail as JSON (testdata/tournament-read.golden),
// each pair's two games in one crosstable cell, and the listings.
func TestTournamentReadAPI(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob", "carol")
	v.cmd(addr("alice"), "lyngk tournament create Tri alice pw-alice -players 3-3 -double -rated")
	v.cmd(addr("bob"), "lyngk tournament join Tri bob pw-bob")
	v.cmd(addr("carol"), "lyngk tournament join Tri carol pw-carol")
	var boards []engine.TournamentGame
	for _, r := range v.tourney("tri").Rounds {
		boards = append(boards, r.Games...)
	}
	if len(boards) != 6 {
		t.Fatalf("%d games, want 6", len(boards))
	}
	slices.SortFunc(boards, func(a, b engine.TournamentGame) int { return a.Board - b.Board })
	for _, g := range boards[:5] {
		v.cmd(addr(g.White), fmt.Sprintf("lyngk resign %d %s pw-%s", g.Board, g.White, g.White))
	}
	last := boards[5]
	v.cmd(addr(last.White), fmt.Sprintf("lyngk move %d %s pw-%s propose", last.Board, last.White, last.White))
	v.cmd(addr(last.Black), fmt.Sprintf("lyngk move %d %s pw-%s accept", last.Board, last.Black, last.Black))
	d := v.tourney("TRI")
	for i := range d.Crosstable {
		for j, cell := range d.Crosstable[i] {
			if n := len(strings.Fields(cell)); i != j && n != 2 || i == j && n != 0 {
				t.Errorf("crosstable[%d][%d] = %q", i, j, cell)
			}
		}
	}
	// alice lost 102 to bob, beat carol (103) and bob (105), drew 106
	// with carol: 2½. Sonneborn-Berger: bob's 2 and carol's 1½ for the
	// wins, half of carol's 1½ for the draw: 2 + 1½ + ¾ = 4¼.
	if s := d.Standings[0]; s.Player != "alice" || s.ScoreText != "2½" || s.SBText != "4¼" || s.SB != 17 {
		t.Errorf("alice's standing: %+v, want 2½ and SB 4¼", s)
	}
	j, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "tournament-read", string(j)+"\n")
	var open, done []engine.TournamentSummary
	err = v.db.View(func(tx *store.Tx) error {
		if open, err = v.e.ListTournaments(tx, "lyngk", engine.TournamentOpen, engine.TournamentRunning); err != nil {
			return err
		}
		done, err = v.e.ListTournaments(tx, "")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(open) != 0 || len(done) != 1 || done[0].Name != "Tri" || done[0].State != engine.TournamentFinished {
		t.Errorf("listings: open and running %+v, all %+v", open, done)
	}
	v.db.View(func(tx *store.Tx) error { _, err = v.e.ListTournaments(tx, "chess"); return nil })
	if !errors.Is(err, engine.ErrNoGame) {
		t.Errorf("ListTournaments of an unknown game: %v, want ErrNoGame", err)
	}
	v.db.View(func(tx *store.Tx) error { _, err = v.e.ListTournaments(tx, "lyngk", "frozen"); return nil })
	if !errors.Is(err, engine.ErrBadState) {
		t.Errorf("ListTournaments of an unknown state: %v, want ErrBadState", err)
	}
}
