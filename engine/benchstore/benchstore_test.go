package benchstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/benchstore"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/engine/yinsh"
	"lyngk.example/lyngk/store"
	"lyngk.example/lyngk/templates"
)

var now = time.Date(2026, time.November, 28, 12, 0, 0, 0, time.UTC)

// span is the time of the tests' stores: three months, so that many games
// ended within the 30 days whose reply tokens are kept.
const span = 90 * 24 * time.Hour

// build writes a store of n games with seed into a new file and returns
// it open.
func build(t *testing.T, n int, seed uint64) (*store.DB, benchstore.Summary) {
	t.Helper()
	set, err := templates.Load("")
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(engine.Config{Games: []games.Game{{Rules: lyngk.Rules}, {Rules: yinsh.Rules}},
		Server: "lyngk@example.net", Templates: set, Rand: rand.NewChaCha8([32]byte{byte(seed)})})
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(filepath.Join(t.TempDir(), "bench.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	sum, err := benchstore.Generate(context.Background(), e, func(fn func(engine.Tx) error) error {
		return db.Update(func(tx *store.Tx) error { return fn(tx) })
	}, benchstore.Options{Games: n, Running: -1, Seed: seed, Now: now, Span: span})
	if err != nil {
		t.Fatal(err)
	}
	return db, sum
}

// record is what the test reads of a game record.
type record struct {
	Board     int         `json:"board"`
	Game      string      `json:"game"`
	Variant   string      `json:"variant"`
	Players   [2]string   `json:"players"`
	Moves     []string    `json:"moves"`
	MoveTimes []time.Time `json:"move_times"`
	Status    string      `json:"status"`
	Winner    int         `json:"winner"`
	How       string      `json:"how"`
	Changes   int         `json:"changes"`
	Started   time.Time   `json:"started"`
	LastMove  time.Time   `json:"last_move"`
	Ended     time.Time   `json:"ended"`
	Ratings   [2]struct {
		Value int `json:"value"`
	} `json:"ratings"`
}

// standing is a user's rating and record in one game.
type standing struct {
	Rating          float64
	Won, Lost, Tied int
}

// TestGenerateValid: a store of 200 games holds what was asked (2 %
// running, a tenth YINSH, the busy player in a tenth, 20 players, all
// confirmed); every game replays through its rules to the state its
// record says, at times in order and never after the present; every
// rating is the Elo of the finished games taken in the order of their
// ends (K 40 for the first 10 games, 20 after); and the running games and
// those that ended within 30 days have the reply tokens of all their
// board mails, no other game.
func TestGenerateValid(t *testing.T) {
	db, sum := build(t, 200, 42)
	var recs []record
	users := map[string]map[string]*standing{}
	tokens := map[int]int{}
	err := db.View(func(tx *store.Tx) error {
		if err := tx.ForEach(store.BucketGames, func(_ string, val []byte) error {
			var r record
			if err := json.Unmarshal(val, &r); err != nil {
				return err
			}
			recs = append(recs, r)
			return nil
		}); err != nil {
			return err
		}
		if err := tx.ForEach(store.BucketTokens, func(_ string, val []byte) error {
			var tok struct{ Board int }
			if err := json.Unmarshal(val, &tok); err != nil {
				return err
			}
			tokens[tok.Board]++
			return nil
		}); err != nil {
			return err
		}
		return tx.ForEach(store.BucketUsers, func(key string, val []byte) error {
			var u struct {
				Addresses []string
				Games     map[string]*standing
			}
			if err := json.Unmarshal(val, &u); err != nil {
				return err
			}
			if !slices.Equal(u.Addresses, []string{key + "@" + benchstore.Domain}) {
				return fmt.Errorf("user %s: addresses %q", key, u.Addresses)
			}
			ok, err := engine.ConfirmedAddress(tx, key+"@"+benchstore.Domain)
			if !ok || err != nil {
				return fmt.Errorf("user %s: address not confirmed (%v)", key, err)
			}
			users[key] = u.Games
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, r := range recs {
		count[r.Game]++
		if r.Status == "playing" {
			count["running"]++
		}
		if slices.Contains(r.Players[:], benchstore.Busy) {
			count["busy"]++
		}
	}
	want := map[string]int{"lyngk": 180, "yinsh": 20, "running": 4, "busy": 20}
	for k, n := range want {
		if count[k] != n {
			t.Errorf("%d games %s, want %d", count[k], k, n)
		}
	}
	if len(users) != 20 || sum.Players != 20 {
		t.Errorf("%d users (summary %d), want 20", len(users), sum.Players)
	}
	if sum.Running["lyngk"]+sum.Running["yinsh"] != 4 || sum.Finished["lyngk"]+sum.Finished["yinsh"] != 196 {
		t.Errorf("summary %+v", sum)
	}
	hows := map[string]int{}
	for _, r := range recs {
		replay(t, r)
		hows[r.Status+" "+r.How]++
		kept := r.Status == "playing" || now.Sub(r.Ended) < engine.TokenKeep
		// A token for each player of every board mail: the new game's,
		// and one after each change.
		if want := 2 * (1 + r.Changes); kept && tokens[r.Board] != want || !kept && tokens[r.Board] != 0 {
			t.Errorf("board %d (%s, ended %v, %d changes): %d tokens", r.Board, r.Status, r.Ended, r.Changes, tokens[r.Board])
		}
		if kept && slices.Contains(r.Moves, games.Pass) {
			hows["passes"]++
		}
	}
	if hows["passes"] == 0 {
		t.Errorf("no game with a pass and its tokens among %v", hows)
	}
	for _, k := range []string{"won ", "won resign", "won forfeit", "cancelled timeout", "cancelled declined", "playing "} {
		if hows[k] == 0 {
			t.Errorf("no game %q among %v", k, hows)
		}
	}
	checkRatings(t, recs, users)
}

// replay plays r's moves through its game's rules and checks the record's
// state and times.
func replay(t *testing.T, r record) {
	t.Helper()
	rules := map[string]games.Rules{"lyngk": lyngk.Rules, "yinsh": yinsh.Rules}[r.Game]
	pos, err := rules.New(r.Board, r.Variant)
	if err != nil {
		t.Fatal(err)
	}
	prev := r.Started
	for i, s := range r.Moves {
		if r.MoveTimes[i].Before(prev) || r.MoveTimes[i].After(now) {
			t.Errorf("board %d: move %d at %v, after %v", r.Board, i+1, r.MoveTimes[i], prev)
		}
		prev = r.MoveTimes[i]
		if s == games.Pass || s == "resign" || s == "Forfeit" {
			continue
		}
		m, _, err := pos.Parse(s)
		if err == nil {
			err = pos.Play(m)
		}
		if err != nil {
			t.Fatalf("board %d: move %d %q: %v", r.Board, i+1, s, err)
		}
	}
	if got := pos.Moves(); !slices.Equal(got, r.Moves[:len(got)]) {
		t.Errorf("board %d: the rules record %q, the store %q", r.Board, got, r.Moves)
	}
	switch {
	case r.Status == "playing":
		if pos.Outcome() != games.Playing {
			t.Errorf("board %d: running, but the replay is over", r.Board)
		}
	case r.How == "":
		if pos.Outcome().String() != r.Status || pos.Winner() != r.Winner {
			t.Errorf("board %d: %s by %d, the replay %s by %d", r.Board, r.Status, r.Winner, pos.Outcome(), pos.Winner())
		}
	default:
		if pos.Outcome() != games.Playing || r.Ended.After(now) || r.Ended.Before(r.LastMove) {
			t.Errorf("board %d: %s %s at %v, replay %s, last move %v", r.Board, r.Status, r.How, r.Ended, pos.Outcome(), r.LastMove)
		}
	}
	if r.How == "forfeit" && r.Ended.Sub(r.MoveTimes[len(r.MoveTimes)-2]) < engine.DefaultForfeitAfter {
		t.Errorf("board %d: forfeited %v after the last move", r.Board, r.Ended.Sub(r.MoveTimes[len(r.MoveTimes)-2]))
	}
}

// checkRatings recomputes every player's Elo rating and record from the
// finished games in the order of their ends.
func checkRatings(t *testing.T, recs []record, users map[string]map[string]*standing) {
	t.Helper()
	var done []record
	for _, r := range recs {
		if r.Status == "won" || r.Status == "tie" {
			done = append(done, r)
		}
	}
	slices.SortStableFunc(done, func(a, b record) int { return a.Ended.Compare(b.Ended) })
	mine := map[string]*standing{}
	get := func(game, id string) *standing {
		k := game + " " + strings.ToLower(id)
		if mine[k] == nil {
			mine[k] = &standing{Rating: 1600}
		}
		return mine[k]
	}
	for _, r := range done {
		a, b := get(r.Game, r.Players[0]), get(r.Game, r.Players[1])
		score := map[int]float64{0: 0.5, 1: 1, 2: 0}[r.Winner]
		k := func(s *standing) float64 {
			if s.Won+s.Lost+s.Tied < 10 {
				return 40
			}
			return 20
		}
		e := 1 / (1 + math.Pow(10, (b.Rating-a.Rating)/400))
		ka, kb := k(a), k(b)
		a.Rating += ka * (score - e)
		b.Rating += kb * ((1 - score) - (1 - e))
		for i, s := range []*standing{a, b} {
			switch {
			case r.Winner == 0:
				s.Tied++
			case r.Winner == i+1:
				s.Won++
			default:
				s.Lost++
			}
			if got := r.Ratings[i].Value; got != int(math.Round(s.Rating)) {
				t.Errorf("board %d: player %d rated %d after, want %d", r.Board, i+1, got, int(math.Round(s.Rating)))
			}
		}
	}
	for k, want := range mine {
		game, id, _ := strings.Cut(k, " ")
		got := users[id][game]
		if got == nil || math.Abs(got.Rating-want.Rating) > 1e-9 || got.Won != want.Won || got.Lost != want.Lost || got.Tied != want.Tied {
			t.Errorf("%s in %s: %+v, want %+v", id, game, got, want)
		}
	}
	for id, gs := range users {
		for game := range gs {
			if mine[game+" "+id] == nil {
				t.Errorf("%s has a standing in %s without a finished game", id, game)
			}
		}
	}
}

// TestGenerateDeterministic: the same seed and present give the same
// store, record for record (the games listing, the ratings, the tokens);
// another seed another.
func TestGenerateDeterministic(t *testing.T) {
	a, _ := build(t, 200, 7)
	b, _ := build(t, 200, 7)
	c, _ := build(t, 200, 8)
	da, db, dc := dump(t, a), dump(t, b), dump(t, c)
	if da != db {
		t.Errorf("seed 7 twice: the stores differ")
	}
	if da == dc {
		t.Errorf("seeds 7 and 8 made the same store")
	}
}

// dump is every engine record of db.
func dump(t *testing.T, db *store.DB) string {
	t.Helper()
	var b strings.Builder
	err := db.View(func(tx *store.Tx) error {
		for _, name := range []string{store.BucketUsers, store.BucketGames, store.BucketTokens, store.BucketMeta, store.BucketAddresses} {
			if err := tx.ForEach(name, func(k string, val []byte) error {
				fmt.Fprintf(&b, "%s/%s=%s\n", name, k, val)
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
	return b.String()
}
