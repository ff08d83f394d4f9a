package engine_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/store"
)

// readWorld plays, through the engine, one game of each status:
//
//	101 alice-bob    played to the end by the rules (seeded random moves)
//	102 bob-carol    resigned by bob after a move each: carol wins
//	103 alice-dave   declined by dave: cancelled
//	104 carol-alice  a move each, then a draw proposed and accepted: tie
//	105 dave-bob     a move each, then dave forfeits: bob wins
//	106 bob-carol    stack6, one move of bob: running, carol to move
//
// dave signs off after 105.
func readWorld(t *testing.T) *env {
	t.Helper()
	v := newEnv(t)
	v.signup("alice", "bob", "carol", "dave")
	ok := func(out []engine.Mail, what string) {
		t.Helper()
		if len(out) == 0 || strings.Contains(out[0].Subject, "Error") {
			t.Fatalf("%s: %s", what, format(out))
		}
	}
	move := func(board int, name, m string) {
		t.Helper()
		ok(v.cmd(addr(name), fmt.Sprintf("lyngk move %d %s pw-%s %s", board, name, name, m)), name+" "+m)
	}

	ok(v.cmd(addr("alice"), "lyngk challenge alice bob"), "challenge 101")
	pos := lyngk.New(101, lyngk.Standard)
	rng := rand.New(rand.NewPCG(3, 4))
	for pos.Status() == games.Playing {
		m := pick(rng, &pos)
		move(101, [2]string{"alice", "bob"}[pos.Turn()-1], m.String())
		if err := pos.Apply(m); err != nil {
			t.Fatal(err)
		}
	}

	ok(v.cmd(addr("bob"), "lyngk challenge bob carol"), "challenge 102")
	v.firstMoves(102, [2]string{"bob", "carol"})
	ok(v.cmd(addr("bob"), "lyngk resign 102 bob pw-bob"), "resign 102")

	ok(v.cmd(addr("alice"), "lyngk challenge alice dave"), "challenge 103")
	move(103, "dave", "decline")

	ok(v.cmd(addr("carol"), "lyngk challenge carol alice"), "challenge 104")
	v.firstMoves(104, [2]string{"carol", "alice"})
	move(104, "carol", "propose")
	move(104, "alice", "accept")

	ok(v.cmd(addr("dave"), "lyngk challenge dave bob"), "challenge 105")
	v.firstMoves(105, [2]string{"dave", "bob"})
	v.now = v.now.Add(engine.DefaultForfeitAfter + time.Hour)
	ok(v.tick(), "forfeit 105")
	ok(v.cmd(addr("dave"), "signoff dave pw-dave"), "signoff dave")

	ok(v.cmd(addr("bob"), "lyngk challenge -stack6 bob carol"), "challenge 106")
	six := lyngk.New(106, lyngk.Stack6)
	legal := six.LegalPlain(nil)
	slices.SortFunc(legal, func(a, b lyngk.Move) int { return strings.Compare(a.String(), b.String()) })
	move(106, "bob", legal[0].String())
	return v
}

// view runs fn in a read-only transaction of v's store.
func (v *env) view(fn func(tx engine.Tx) error) {
	v.t.Helper()
	if err := v.db.View(func(tx *store.Tx) error { return fn(tx) }); err != nil {
		v.t.Fatal(err)
	}
}

func boards(gs []engine.GameSummary) []int {
	var out []int
	for _, g := range gs {
		out = append(out, g.Board)
	}
	return out
}

func TestReadListGames(t *testing.T) {
	v := readWorld(t)
	for _, tc := range []struct {
		users []string
		state string
		want  []int
		err   error
	}{
		{state: "", want: []int{101, 102, 103, 104, 105, 106}},
		{state: engine.StateAll, want: []int{101, 102, 103, 104, 105, 106}},
		{state: engine.StateActive, want: []int{106}},
		{state: engine.StateFinished, want: []int{101, 102, 103, 104, 105}},
		{users: []string{"ALICE"}, state: engine.StateAll, want: []int{101, 103, 104}},
		{users: []string{"carol"}, state: engine.StateActive, want: []int{106}},
		{users: []string{"carol"}, state: engine.StateNext, want: []int{106}},
		{users: []string{"bob"}, state: engine.StateNext, want: nil},
		{users: []string{"dave"}, state: engine.StateFinished, want: []int{103, 105}}, // signed off: games stay
		{users: []string{"alice", "dave"}, state: engine.StateAll, want: []int{101, 103, 104, 105}},
		{users: []string{"zoe"}, err: engine.ErrNoUser},
		{state: "inactive", err: engine.ErrBadState},
	} {
		t.Run(fmt.Sprintf("%v/%s", tc.users, tc.state), func(t *testing.T) {
			v.view(func(tx engine.Tx) error {
				gs, err := v.e.ListGames(tx, engine.GameFilter{Users: tc.users, State: tc.state})
				if !errors.Is(err, tc.err) {
					t.Fatalf("error %v, want %v", err, tc.err)
				}
				if got := boards(gs); !slices.Equal(got, tc.want) {
					t.Errorf("boards %v, want %v", got, tc.want)
				}
				return nil
			})
		})
	}
}

func TestReadGame(t *testing.T) {
	v := readWorld(t)
	var ended101 time.Time
	for _, tc := range []struct {
		board  int
		status engine.Status
		winner int
		how    engine.Ending
		toMove string
		last   string // last entry of the move list
	}{
		{board: 101, status: "won"}, // winner checked against the replay below
		{board: 102, status: engine.StatusResigned, winner: 2, how: "resign", last: "resign"},
		{board: 103, status: engine.StatusCancelled, how: "declined"},
		{board: 104, status: engine.StatusTie, how: "draw"},
		{board: 105, status: engine.StatusForfeit, winner: 2, how: "forfeit", last: "Forfeit"},
		{board: 106, status: engine.StatusPlaying, toMove: "carol"},
	} {
		t.Run(fmt.Sprint(tc.board), func(t *testing.T) {
			v.view(func(tx engine.Tx) error {
				d, err := v.e.ReadGame(tx, tc.board)
				if err != nil {
					t.Fatal(err)
				}
				gp, err := d.Position(-1)
				if err != nil {
					t.Fatal(err)
				}
				pos, _ := lyngk.Of(gp)
				if tc.board == 101 {
					// The random game may end in a win or a tie.
					tc.status, tc.winner = engine.Status(pos.Status().String()), pos.Winner()
					ended101 = d.Ended
				}
				if d.Status != tc.status || d.Winner != tc.winner || d.How != tc.how || d.ToMoveID() != tc.toMove {
					t.Errorf("status %q winner %d how %q to move %q, want %q %d %q %q",
						d.Status, d.Winner, d.How, d.ToMoveID(), tc.status, tc.winner, tc.how, tc.toMove)
				}
				if tc.last != "" && d.MoveList[len(d.MoveList)-1] != tc.last {
					t.Errorf("move list %v does not end with %q", d.MoveList, tc.last)
				}
				if d.Moves != len(d.MoveList) || len(d.MoveTimes) != len(d.MoveList) {
					t.Errorf("%d moves, %d in the list, %d times", d.Moves, len(d.MoveList), len(d.MoveTimes))
				}
				if d.Over() == d.Ended.IsZero() || d.LastActivity.Before(d.Started) {
					t.Errorf("over %v, ended %v, started %v, last activity %v", d.Over(), d.Ended, d.Started, d.LastActivity)
				}
				for p := range 2 {
					var names []string
					for _, c := range pos.Claims(p + 1) {
						names = append(names, c.Name())
					}
					var labels []string
					for _, l := range d.Sides[p].Labels {
						labels = append(labels, l.Name)
					}
					if d.Sides[p].Count != pos.Removed(p+1) || !slices.Equal(labels, names) {
						t.Errorf("player %d: removed %d claims %v, the position says %d %v",
							p+1, d.Sides[p].Count, labels, pos.Removed(p+1), names)
					}
				}
				// Every earlier position is the replay of the moves before it.
				replay := lyngk.New(tc.board, pos.Variant())
				for k := 0; k <= len(d.MoveList); k++ {
					p, err := d.Position(k)
					if err != nil {
						t.Fatal(err)
					}
					if p.Board(d.Players) != replay.Board(d.Players) {
						t.Fatalf("position after move %d differs from the replay", k)
					}
					if k < len(d.MoveList) {
						if s := d.MoveList[k]; s != "--" && s != "resign" && s != "Forfeit" {
							m, _, err := lyngk.ParseMove(s)
							if err != nil {
								t.Fatal(err)
							}
							if err := replay.Apply(m); err != nil {
								t.Fatal(err)
							}
						}
					}
				}
				if _, err := d.Position(len(d.MoveList) + 1); err == nil {
					t.Error("a position after the last move")
				}
				return nil
			})
		})
	}
	v.view(func(tx engine.Tx) error {
		if _, err := v.e.ReadGame(tx, 107); !errors.Is(err, engine.ErrNoGame) {
			t.Errorf("board 107: %v, want ErrNoGame", err)
		}
		// History: finished games, the last ended first.
		h, err := v.e.History(tx, "", "bob")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := boards(h), []int{105, 102, 101}; !slices.Equal(got, want) {
			t.Errorf("history of bob %v, want %v", got, want)
		}
		if h[2].Ended != ended101 {
			t.Errorf("ended %v, want %v", h[2].Ended, ended101)
		}
		return nil
	})
}

func TestReadPlayersAndStandings(t *testing.T) {
	v := readWorld(t)
	v.view(func(tx engine.Tx) error {
		st, err := v.e.Standings(tx, "lyngk")
		if err != nil {
			t.Fatal(err)
		}
		// dave signed off: out of the standings, still a player on record.
		var ids []string
		for i, s := range st {
			ids = append(ids, s.ID)
			if s.Rank != i+1 || (i > 0 && s.Rating > st[i-1].Rating) || !s.Provisional {
				t.Errorf("row %d: %+v", i, s)
			}
			p, err := v.e.ReadPlayer(tx, strings.ToUpper(s.ID), "lyngk")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(p, s.Player) {
				t.Errorf("ReadPlayer %+v, standings %+v", p, s.Player)
			}
		}
		slices.Sort(ids)
		if want := []string{"alice", "bob", "carol"}; !slices.Equal(ids, want) {
			t.Errorf("standings of %v, want %v", ids, want)
		}
		bob, err := v.e.ReadPlayer(tx, "bob", "lyngk")
		if err != nil {
			t.Fatal(err)
		}
		// 101 by the rules (any result), 102 resigned: lost, 105 won by forfeit.
		if bob.Games() != 3 || bob.Lost < 1 || bob.Won < 1 || bob.SignedOff || bob.Robot {
			t.Errorf("bob %+v", bob)
		}
		dave, err := v.e.ReadPlayer(tx, "dave", "lyngk")
		if err != nil {
			t.Fatal(err)
		}
		if !dave.SignedOff || dave.Lost != 1 || dave.Games() != 1 || dave.Rating >= 1600 {
			t.Errorf("dave %+v", dave)
		}
		if _, err := v.e.ReadPlayer(tx, "zoe", "lyngk"); !errors.Is(err, engine.ErrNoUser) {
			t.Errorf("zoe: %v, want ErrNoUser", err)
		}
		// Every game is named: no game stands for a first one.
		if _, err := v.e.ReadPlayer(tx, "bob", ""); !errors.Is(err, engine.ErrNoGame) {
			t.Errorf("bob in no game: %v, want ErrNoGame", err)
		}
		if _, err := v.e.Standings(tx, ""); !errors.Is(err, engine.ErrNoGame) {
			t.Errorf("standings of no game: %v, want ErrNoGame", err)
		}
		return nil
	})
}

// TestGameVersion: the version moves with each change of the game anybody
// can see, and not with what only reads it or is between the players (a
// pending proposal).
func TestGameVersion(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob", "carol")
	version := func() uint64 {
		t.Helper()
		var n uint64
		v.view(func(tx engine.Tx) error {
			var err error
			n, err = engine.GameVersion(tx, 101)
			return err
		})
		return n
	}
	seen := map[uint64]string{}
	changed := func(what string) {
		t.Helper()
		n := version()
		if prev, ok := seen[n]; ok {
			t.Errorf("after %s the version is that after %s", what, prev)
		}
		seen[n] = what
	}
	same := func(what, from, subject string) {
		t.Helper()
		before := version()
		if out := v.cmd(addr(from), subject); len(out) == 0 || strings.Contains(out[0].Subject, "Error") {
			t.Fatalf("%s: %s", what, format(out))
		}
		if version() != before {
			t.Errorf("%s changed the version", what)
		}
	}
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	changed("challenge")
	v.firstMoves(101, [2]string{"alice", "bob"})
	changed("two moves")
	same("show by a stranger", "carol", "lyngk show 101")
	same("show by a player", "alice", "lyngk show 101")
	same("subscribe", "carol", "lyngk subscribe 101 carol pw-carol")
	same("undo request", "bob", "lyngk move 101 bob pw-bob undo")
	v.cmd(addr("alice"), "lyngk move 101 alice pw-alice accept")
	changed("take-back")
	v.cmd(addr("bob"), "lyngk resign 101 bob pw-bob")
	changed("resign")
	v.view(func(tx engine.Tx) error {
		if _, err := engine.GameVersion(tx, 102); !errors.Is(err, engine.ErrNoGame) {
			t.Errorf("board 102: %v, want ErrNoGame", err)
		}
		return nil
	})
}
