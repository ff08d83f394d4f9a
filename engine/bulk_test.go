package engine_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/store"
)

// storedGame is what the test reads of a game record.
type storedGame struct {
	Board     int         `json:"board"`
	Moves     []string    `json:"moves"`
	MoveTimes []time.Time `json:"move_times"`
	Status    string      `json:"status"`
	How       string      `json:"how"`
	Players   [2]string   `json:"players"`
	Started   time.Time   `json:"started"`
	Ended     time.Time   `json:"ended"`
}

// TestBulkAsCommands: the bulk hooks of lyngk bench-store leave the
// records the commands leave. Six games between alice and bob are played
// by mail and by the timer (played out by the rules, resigned, forfeited,
// never moved by bob, declined, still running); the same games, at the
// same times, go through BulkAccount, BulkChallenge and BulkPlay into a
// second store. Game records are byte for byte the same, the players'
// ratings and records too, and the reply tokens that the timer kept name
// the same boards, players, positions and times (less the lines of the
// mails, which bulk writing composes none of).
func TestBulkAsCommands(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	r := rand.New(rand.NewPCG(7, 7))
	move := func(board int, pos *lyngk.Game) {
		t.Helper()
		legal := pos.Legal(nil)
		m := legal[r.IntN(len(legal))]
		name := []string{"alice", "bob"}[pos.Turn()-1]
		if out := v.cmd(addr(name), fmt.Sprintf("lyngk move %d %s pw-%s %s", board, name, name, m)); len(out) == 0 || strings.Contains(out[0].Subject, "rror") {
			t.Fatalf("move %s on %d: %s", m, board, format(out))
		}
		if err := pos.Apply(m); err != nil {
			t.Fatal(err)
		}
	}
	game := func(board, moves int) *lyngk.Game {
		t.Helper()
		v.cmd(addr("alice"), "lyngk challenge alice bob")
		pos := lyngk.New(board, lyngk.Standard)
		for i := 0; (moves < 0 || i < moves) && pos.Status() == games.Playing && pos.Turn() != 0; i++ {
			move(board, &pos)
		}
		return &pos
	}
	game(101, -1) // played out
	pos := game(102, 4)
	name := []string{"alice", "bob"}[pos.Turn()-1]
	v.cmd(addr(name), fmt.Sprintf("lyngk resign 102 %s pw-%s", name, name))
	game(103, 3)
	v.now = v.now.Add(engine.DefaultForfeitAfter + time.Minute)
	v.tick() // forfeits 103
	game(104, 1)
	v.now = v.now.Add(engine.DefaultForfeitAfter + time.Minute)
	v.tick() // cancels 104: bob never moved
	for range 4 {
		v.tick() // the prune of 101's and 102's tokens, PruneBatch a tick
	}
	game(105, 0)
	v.cmd(addr("bob"), "lyngk decline 105 bob pw-bob")
	game(106, 3) // running

	var played []storedGame
	var users map[string]string
	byCommands := records(t, v.db)
	for _, val := range byCommands[store.BucketGames] {
		var g storedGame
		if err := json.Unmarshal([]byte(val), &g); err != nil {
			t.Fatal(err)
		}
		played = append(played, g)
	}
	slices.SortFunc(played, func(a, b storedGame) int { return a.Board - b.Board })
	users = byCommands[store.BucketUsers]

	w := newEnv(t)
	err := w.db.Update(func(tx *store.Tx) error {
		for _, id := range []string{"alice", "bob"} {
			if err := w.e.BulkAccount(tx, id, addr(id), "hash", start); err != nil {
				return err
			}
		}
		// Each game ends before the next starts: the order of the ends
		// is the order of the boards.
		for _, g := range played {
			// The tokens the timer has not pruned: of the games running
			// or ended within TokenKeep, as bench-store writes them.
			keep := g.Status == "playing" || v.now.Sub(g.Ended) < engine.TokenKeep
			board, err := w.e.BulkChallenge(tx, "lyngk", "", g.Players, g.Started, keep)
			if err != nil || board != g.Board {
				return fmt.Errorf("board %d, not %d: %v", board, g.Board, err)
			}
			moves, times := g.Moves, g.MoveTimes
			end := engine.EndRules
			switch g.How {
			case "resign", "forfeit", "declined":
				end = engine.Ending(g.How)
			case "timeout":
				end = engine.EndForfeit
			}
			if n := len(moves); n > 0 && (moves[n-1] == "resign" || moves[n-1] == "Forfeit") {
				moves, times = moves[:n-1], times[:n-1]
			}
			if err := w.e.BulkPlay(tx, board, moves, times, end, g.Ended, keep); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	byBulk := records(t, w.db)
	for k, want := range byCommands[store.BucketGames] {
		if got := byBulk[store.BucketGames][k]; got != want {
			t.Errorf("game %s:\nby commands %s\nby bulk     %s", k, want, got)
		}
	}
	for k, want := range users {
		if got, want := standings(t, byBulk[store.BucketUsers][k]), standings(t, want); got != want {
			t.Errorf("user %s: by bulk %s, by commands %s", k, got, want)
		}
	}
	if got, want := tokens(t, byBulk[store.BucketTokens]), tokens(t, byCommands[store.BucketTokens]); !slices.Equal(got, want) {
		t.Errorf("tokens by bulk:\n%s\nby commands:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := len(byBulk[store.BucketGames]); got != 6 {
		t.Errorf("%d games by bulk, want 6", got)
	}
}

// records reads buckets users, games and tokens of db: key to value.
func records(t *testing.T, db *store.DB) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	err := db.View(func(tx *store.Tx) error {
		for _, b := range []string{store.BucketUsers, store.BucketGames, store.BucketTokens} {
			out[b] = map[string]string{}
			if err := tx.ForEach(b, func(k string, val []byte) error {
				out[b][k] = string(val)
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// standings is the games field of a user record, as JSON.
func standings(t *testing.T, rec string) string {
	t.Helper()
	var u struct {
		Games json.RawMessage `json:"games"`
	}
	if err := json.Unmarshal([]byte(rec), &u); err != nil {
		t.Fatal(err)
	}
	return string(u.Games)
}

// tokens are the token records less their keys and mail lines, sorted.
func tokens(t *testing.T, recs map[string]string) []string {
	t.Helper()
	var out []string
	for _, rec := range recs {
		var tok struct {
			Board, Moves, Changes int
			User                  string
			Sent                  time.Time
		}
		if err := json.Unmarshal([]byte(rec), &tok); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("board %d %s moves %d changes %d sent %s", tok.Board, tok.User, tok.Moves, tok.Changes, tok.Sent.Format(time.RFC3339)))
	}
	slices.Sort(out)
	return out
}
