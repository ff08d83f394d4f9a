package engine_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/store"
)

// champPause is the championship's pause in these tests.
const champPause = 3 * 24 * time.Hour

// champ reads the championship of LYNGK.
func (v *env) champ() engine.ChampionshipState {
	v.t.Helper()
	var st engine.ChampionshipState
	err := v.db.View(func(tx *store.Tx) (err error) {
		st, err = engine.Championship(tx, "lyngk")
		return err
	})
	if err != nil {
		v.t.Fatal(err)
	}
	return st
}

// leagues reads the players of each league of the championship's edition
// started so far, each league sorted by userid.
func (v *env) leagues() [][]string {
	v.t.Helper()
	var out [][]string
	err := v.db.View(func(tx *store.Tx) error {
		st, err := engine.Championship(tx, "lyngk")
		if err != nil {
			return err
		}
		for _, name := range st.Leagues {
			d, err := v.e.ReadTournament(tx, name)
			if errors.Is(err, engine.ErrNoTournament) {
				continue // not started yet
			}
			if err != nil {
				return err
			}
			var ids []string
			for _, p := range d.Entrants {
				ids = append(ids, p.ID)
			}
			slices.Sort(ids)
			out = append(out, ids)
		}
		return nil
	})
	if err != nil {
		v.t.Fatal(err)
	}
	return out
}

// outcome is how a game of the championship between a and b ends in
// these tests: p09 beats everybody, then p10 everybody else; p08 loses to
// everybody else; every other game is drawn. It returns who resigns, ""
// for a draw.
func outcome(a, b string) string {
	for _, strong := range []string{"p09", "p10"} {
		switch strong {
		case a:
			return b
		case b:
			return a
		}
	}
	if a == "p08" || b == "p08" {
		return "p08"
	}
	return ""
}

// playLeagues plays every running game of the edition's leagues to its
// end the way players do, by mail (outcome: a resignation, or a draw
// proposed and accepted). It returns how many games it ended.
func (v *env) playLeagues() int {
	v.t.Helper()
	ended := 0
	for {
		var games []engine.TournamentGame
		err := v.db.View(func(tx *store.Tx) error {
			st, err := engine.Championship(tx, "lyngk")
			if err != nil {
				return err
			}
			for _, name := range st.Leagues {
				d, err := v.e.ReadTournament(tx, name)
				if err != nil {
					return err
				}
				for _, r := range d.Rounds {
					for _, g := range r.Games {
						if g.Board != 0 && g.Result == "" {
							games = append(games, g)
						}
					}
				}
			}
			return nil
		})
		if err != nil {
			v.t.Fatal(err)
		}
		if len(games) == 0 {
			return ended
		}
		for _, g := range games {
			send := func(user, what, move string) {
				v.t.Helper()
				out := v.cmd(addr(user), strings.TrimSpace(fmt.Sprintf("lyngk %s %d %s pw-%s %s", what, g.Board, user, user, move)))
				if len(out) == 0 || strings.Contains(out[0].Subject, "rror") {
					v.t.Fatalf("%s %d by %s %s: %+v", what, g.Board, user, move, out)
				}
			}
			if loser := outcome(g.White, g.Black); loser != "" {
				send(loser, "resign", "")
			} else {
				send(g.White, "move", "propose")
				send(g.Black, "move", "accept")
			}
			ended++
		}
		v.now = v.now.Add(time.Hour)
	}
}

// TestChampionshipTwoEditions: the operator switches the LYNGK
// championship on; sixteen players enrol by mail (and one who enrols
// leaves, enrols again and signs off before the start: he is in no
// league). The first edition starts champPause after the switch: two
// leagues of eight by rating (all 1600: by userid), each a round robin,
// every game started at once, one league a tick. Its games are played by
// mail (outcome): in league 1 p08 loses every game and the others draw theirs,
// so p01 to p07 share the first place and are ranked by their seeds (p06
// and p07 sixth and seventh); in league 2 p09 and p10 win theirs, the
// others draw. p05 leaves during it. The second edition starts champPause after
// the last game ended, not a minute before: the first two of league 2
// (p09, p10) are promoted, the sixth and below of league 1 (p06, p07, p08)
// relegated, p05 is gone, and league 1's vacancies are filled by the next
// of league 2 (p11, p12), as tournament.NextLeagues says. The ratings
// alone would have kept p06 and p07 (who drew five games and won one) in
// league 1 before p11 and p12 (who lost two): cutting the leagues by
// rating without the last edition's standings fails this test.
func TestChampionshipTwoEditions(t *testing.T) {
	v := newEnv(t, func(c *engine.Config) { c.ChampionshipPause = champPause })
	var players []string
	for i := 1; i <= 16; i++ {
		players = append(players, fmt.Sprintf("p%02d", i))
	}
	v.signup(append(players, "quitter")...)
	join := func(id string) []engine.Mail {
		t.Helper()
		return v.cmd(addr(id), fmt.Sprintf("lyngk championship join %s pw-%s", id, id))
	}
	if out := join("p01"); len(out) != 1 || !strings.Contains(out[0].Body, "The server holds no Lyngk championship") {
		t.Fatalf("a join while the championship is off: %+v", out)
	}
	err := v.db.Update(func(tx *store.Tx) error { return engine.SetChampionship(tx, "lyngk", true) })
	if err != nil {
		t.Fatal(err)
	}
	on := v.now
	v.tick()
	if st := v.champ(); !st.On || !st.Next.Equal(on.Add(champPause)) {
		t.Fatalf("after the switch: %+v, want the first edition at %v", st, on.Add(champPause))
	}
	for _, id := range append(players, "quitter") {
		if out := join(id); len(out) != 1 || out[0].Subject != "Lyngk championship "+id || !slices.Equal(out[0].To, []string{addr(id)}) {
			t.Fatalf("join %s: %+v", id, out)
		}
	}
	if out := join("p03"); len(out) != 1 || !strings.Contains(out[0].Body, "p03 is enrolled in the Lyngk championship already") {
		t.Fatalf("a second join: %+v", out)
	}
	if out := v.cmd(addr("quitter"), "lyngk championship leave quitter pw-quitter"); len(out) != 1 || !strings.Contains(out[0].Body, "has left") {
		t.Fatalf("leave: %+v", out)
	}
	if out := v.cmd(addr("quitter"), "lyngk championship leave quitter pw-quitter"); len(out) != 1 || !strings.Contains(out[0].Body, "is not enrolled") {
		t.Fatalf("a second leave: %+v", out)
	}
	// Enrolled again, then signed off: he plays no edition.
	join("quitter")
	if out := v.cmd(addr("quitter"), "signoff quitter pw-quitter"); len(out) == 0 || strings.Contains(out[0].Subject, "rror") {
		t.Fatalf("signoff: %+v", out)
	}

	v.now = on.Add(champPause - time.Minute)
	if v.tick(); v.champ().Edition != 0 {
		t.Fatal("the first edition started before its time")
	}
	v.now = on.Add(champPause)
	// One league a tick: the top one, then the next.
	for l, league := range [][]string{players[:8], players[8:]} {
		mails := v.tick()
		st := v.champ()
		if st.Edition != 1 || len(st.Leagues) != 2 || st.Leagues[0] != "lyngk-championship-1-league-1" {
			t.Fatalf("edition 1: %+v", st)
		}
		if got := v.leagues(); len(got) != l+1 || !slices.Equal(got[l], league) {
			t.Fatalf("edition 1 after %d ticks: leagues %v, want the %d-th %v", l+1, got, l+1, league)
		}
		if len(mails) < 28*2+8 || len(mails) > 28*2+8+8 {
			t.Errorf("league %d started with %d mails, want the board mails of its 28 games and its start mails", l+1, len(mails))
		}
	}
	// A league is a tournament like any: its players look at it by mail.
	if out := v.cmd(addr("p01"), "lyngk tournament show lyngk-championship-1-league-1"); len(out) != 1 || !strings.Contains(out[0].Body, "p08") {
		t.Fatalf("tournament show of league 1: %+v", out)
	}
	if out := v.cmd(addr("p05"), "lyngk championship leave p05 pw-p05"); len(out) != 1 || !strings.Contains(out[0].Body, "p05 has left") {
		t.Fatalf("p05 leaves: %+v", out)
	}

	if n := v.playLeagues(); n != 56 {
		t.Fatalf("edition 1: %d games played, want 56", n)
	}
	last := v.now.Add(-time.Hour) // playLeagues' clock after the last resignation
	v.now = last.Add(time.Hour)
	v.tick()
	st := v.champ()
	if st.Edition != 1 || st.Next.IsZero() || !st.Next.Before(last.Add(champPause)) || st.Next.Before(last.Add(champPause-time.Hour)) {
		t.Fatalf("after edition 1: %+v, want the next edition about %v after %v", st, champPause, last)
	}
	next := st.Next
	v.now = next.Add(-time.Minute)
	if v.tick(); v.champ().Edition != 1 {
		t.Fatal("edition 2 started before its time")
	}
	v.now = next
	v.tick()
	v.tick()
	st = v.champ()
	if st.Edition != 2 || len(st.Leagues) != 2 || st.Leagues[1] != "lyngk-championship-2-league-2" {
		t.Fatalf("edition 2: %+v", st)
	}
	want := [][]string{{"p01", "p02", "p03", "p04", "p09", "p10", "p11", "p12"}, {"p06", "p07", "p08", "p13", "p14", "p15", "p16"}}
	if got := v.leagues(); !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("edition 2 leagues %v, want %v", got, want)
	}
	if slices.Contains(st.Enrolled, "p05") || slices.Contains(st.Enrolled, "quitter") || len(st.Enrolled) != 15 {
		t.Errorf("enrolled for edition 3: %v", st.Enrolled)
	}
	checkGolden(t, "championship-show", format(v.cmd(addr("p01"), "lyngk championship show")))
}

// TestChampionshipBadInput: a join or leave that is wrong (no password,
// a wrong one, an unknown userid, a full championship, a leave of nobody
// enrolled) gets an error mail and changes nothing; the 1,000 players
// bound holds (MaxChampionshipPlayers); a stranger's show gets no answer.
func TestChampionshipBadInput(t *testing.T) {
	v := newEnv(t, func(c *engine.Config) { c.ChampionshipPause = champPause })
	v.signup("alice", "bob")
	err := v.db.Update(func(tx *store.Tx) error { return engine.SetChampionship(tx, "lyngk", true) })
	if err != nil {
		t.Fatal(err)
	}
	v.cmd(addr("bob"), "lyngk championship join bob pw-bob")
	dump := v.dump("meta")
	for _, tc := range []struct{ from, subject, want string }{
		{"alice", "lyngk championship join alice", "lyngk championship join USERID PASSWORD"},
		{"alice", "lyngk championship join alice pw-bob", "Wrong password"},
		{"alice", "lyngk championship join nobody pw-x", "nobody"},
		{"alice", "lyngk championship leave alice pw-alice", "alice is not enrolled in the Lyngk championship"},
		{"alice", "lyngk championship leave alice pw-alice extra", "lyngk championship leave USERID PASSWORD"},
		{"bob", "lyngk championship join bob pw-bob", "bob is enrolled in the Lyngk championship already"},
		{"alice", "lyngk championship show now", "lyngk championship show"},
	} {
		out := v.cmd(addr(tc.from), tc.subject)
		if len(out) != 1 || !strings.Contains(out[0].Subject, "error") || !strings.Contains(out[0].Body, tc.want) {
			t.Errorf("%s: %+v, want an error saying %q", tc.subject, out, tc.want)
		}
	}
	if got := v.dump("meta"); got != dump {
		t.Errorf("bad input changed the store:\n%s\nwas\n%s", got, dump)
	}
	if out := v.cmd("stranger@elsewhere.example", "lyngk championship show"); len(out) != 0 {
		t.Errorf("a stranger's show was answered: %+v", out)
	}
	// Full: the record as the engine writes it, with its 1,000 players.
	err = v.db.Update(func(tx *store.Tx) error {
		var ids []string
		for i := range engine.MaxChampionshipPlayers {
			ids = append(ids, fmt.Sprintf(`"u%d"`, i))
		}
		return tx.Put(store.BucketMeta, "championship lyngk", []byte(`{"v":1,"game":"lyngk","on":true,"enrolled":[`+strings.Join(ids, ",")+`]}`))
	})
	if err != nil {
		t.Fatal(err)
	}
	out := v.cmd(addr("alice"), "lyngk championship join alice pw-alice")
	if len(out) != 1 || !strings.Contains(out[0].Body, "has its 1000 players") {
		t.Errorf("the 1,001st join: %+v", out)
	}
	if st := v.champ(); len(st.Enrolled) != engine.MaxChampionshipPlayers || slices.Contains(st.Enrolled, "alice") {
		t.Errorf("after the 1,001st join: %d enrolled", len(st.Enrolled))
	}
}
