package engine

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/engine/lyngkpicture"
	"lyngk.example/lyngk/store"
	"lyngk.example/lyngk/templates"
)

// The store of the scale benchmarks: n games, a player per 10 games, the
// player "busy" in 10 % of them, 2 % running (no move yet), the others
// won by a resignation, a game an hour. Written through the engine's own
// record code (saveUser, the address index, writeGame with its indexes),
// a thousand games a transaction.
type scaleStore struct {
	db  *store.DB
	e   *Engine
	now time.Time
}

var scaleStart = time.Date(2020, time.January, 1, 0, 0, 0, 0, time.UTC)

func newScaleStore(b *testing.B, n int) *scaleStore {
	b.Helper()
	set, err := templates.Load("")
	if err != nil {
		b.Fatal(err)
	}
	e, err := New(Config{Games: []games.Game{{Rules: lyngk.Rules, Picture: lyngkpicture.Pictures, Input: lyngkpicture.Pictures}},
		Server: "lyngk@example.net", Templates: set, BcryptCost: bcrypt.MinCost})
	if err != nil {
		b.Fatal(err)
	}
	db, err := store.Open(filepath.Join(b.TempDir(), "lyngk.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	hash, err := bcrypt.GenerateFromPassword([]byte("pw"), bcrypt.MinCost)
	if err != nil {
		b.Fatal(err)
	}
	players := []string{"busy"}
	for i := range max(n/10, 2) {
		players = append(players, fmt.Sprintf("p%d", i))
	}
	err = db.Update(func(tx *store.Tx) error {
		r := &request{e: e, tx: tx, now: scaleStart}
		for _, p := range players {
			a := p + "@players.example"
			if err := r.saveUser(&user{ID: p, Hash: string(hash), Addresses: []string{a}, Created: scaleStart}); err != nil {
				return err
			}
			if err := r.index(a, p, true); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	for lo := 0; lo < n; lo += 1000 {
		err := db.Update(func(tx *store.Tx) error {
			r := &request{e: e, tx: tx, now: scaleStart}
			for i := lo; i < min(lo+1000, n); i++ {
				board, err := r.nextBoard()
				if err != nil {
					return err
				}
				a, c := players[1+i%(len(players)-1)], players[1+(i*7+3)%(len(players)-1)]
				if i%10 == 0 {
					a = "busy"
				}
				if a == c {
					c = players[1+(i+1)%(len(players)-1)]
				}
				at := scaleStart.Add(time.Duration(i) * time.Hour)
				g := &game{Board: board, Game: lyngk.Rules.Name(), Variant: "standard", Players: [2]string{a, c},
					Moves: []string{}, MoveTimes: []time.Time{}, Status: StatusPlaying, Started: at}
				if i%50 != 49 {
					g.Moves, g.MoveTimes = []string{moveResign}, []time.Time{at}
					g.Status, g.Winner, g.How, g.LastMove, g.Ended = StatusWon, 2, EndResign, at, at
					if err := r.updateRatings(g); err != nil {
						return err
					}
				}
				if err := r.saveGame(g); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return &scaleStore{db: db, e: e, now: scaleStart.Add(time.Duration(n) * time.Hour)}
}

// errRollBack ends a benchmark's transaction without committing it: the
// store stays as set up, and no fsync is measured.
var errRollBack = errors.New("roll back")

// handle runs a mail from busy in a transaction that is rolled back.
func (s *scaleStore) handle(b *testing.B, subject string) int {
	var n int
	err := s.db.Update(func(tx *store.Tx) error {
		out, failed, err := s.e.Handle(tx, Inbound{MessageID: "bench@players.example", From: "busy@players.example", Subject: subject}, s.now)
		if failed != nil {
			b.Fatal(failed)
		}
		if err != nil {
			return err
		}
		n = len(out)
		return errRollBack
	})
	if !errors.Is(err, errRollBack) {
		b.Fatal(err)
	}
	return n
}

// BenchmarkScale measures what one operation costs on stores of 1,000,
// 10,000 and 100,000 games (scaleStore): each reads the indexes, so an
// operation costs what it returns (busy's listings grow to the cut,
// MaxListed, and stay there), whatever the store holds
// (deploy/BENCHMARKS.md). The old code read every game for each of them.
func BenchmarkScale(b *testing.B) {
	for _, n := range []int{1000, 10000, 100000} {
		s := newScaleStore(b, n)
		view := func(f func(tx *store.Tx) error) {
			if err := s.db.View(f); err != nil {
				b.Fatal(err)
			}
		}
		// Page 5 of the web's /games starts after the last game of page 4.
		var page4 []GameSummary
		view(func(tx *store.Tx) (err error) {
			page4, _, err = s.e.Page(tx, GameFilter{}, Cursor{Skip: 3 * 50}, 50)
			return err
		})
		ops := []struct {
			name string
			run  func()
		}{
			{"games-busy", func() { s.handle(b, "lyngk games busy") }},
			{"history-busy", func() { s.handle(b, "lyngk history busy") }},
			{"games-player", func() { s.handle(b, "lyngk games p1") }},
			{"standings", func() { s.handle(b, "lyngk standings") }},
			{"show-busy", func() { s.handle(b, "lyngk show busy all") }},
			{"games-stranger", func() {
				err := s.db.Update(func(tx *store.Tx) error {
					_, _, err := s.e.Handle(tx, Inbound{MessageID: "s@x.example", From: "x@elsewhere.example", Subject: "lyngk games busy"}, s.now)
					return cmpOr(err, errRollBack)
				})
				if !errors.Is(err, errRollBack) {
					b.Fatal(err)
				}
			}},
			{"web-front", func() {
				view(func(tx *store.Tx) error {
					if _, _, err := s.e.Page(tx, GameFilter{State: StateActive}, Cursor{}, 50); err != nil {
						return err
					}
					_, _, err := s.e.Page(tx, GameFilter{State: StateFinished}, Cursor{}, 20)
					return err
				})
			}},
			{"web-games-page5", func() {
				view(func(tx *store.Tx) error {
					_, _, err := s.e.Page(tx, GameFilter{}, Cursor{After: page4[len(page4)-1].Board, Before: 4 * 50}, 50)
					return err
				})
			}},
			{"web-player", func() {
				view(func(tx *store.Tx) error {
					_, _, err := s.e.Page(tx, GameFilter{Users: []string{"busy"}}, Cursor{}, 50)
					return err
				})
			}},
			{"tick-nothing-due", func() {
				err := s.db.Update(func(tx *store.Tx) error {
					// The prune reads the expiry index up to now: the
					// setup's first tick deleted what had expired.
					err := s.e.Prune(tx, scaleStart)
					if err == nil {
						_, _, err = s.e.Tick(tx, scaleStart)
					}
					return cmpOr(err, errRollBack)
				})
				if !errors.Is(err, errRollBack) {
					b.Fatal(err)
				}
			}},
			{"metrics", func() {
				view(func(tx *store.Tx) error {
					_, err := Counts(tx)
					return err
				})
			}},
		}
		for _, op := range ops {
			b.Run(fmt.Sprintf("%s/%dk", op.name, n/1000), func(b *testing.B) {
				for b.Loop() {
					op.run()
				}
			})
		}
	}
}

// cmpOr is the first error that is not nil.
func cmpOr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkUpgradeIndexes measures the work of the upgrade from schema 3
// on a store of 100,000 games: every step of Upgrade (one scan of the
// tokens, games, users and addresses, UpgradeBatch records a step, the
// index keys written over those the store holds), in one transaction
// rolled back.
func BenchmarkUpgradeIndexes(b *testing.B) {
	s := newScaleStore(b, 100000)
	for b.Loop() {
		err := s.db.Update(func(tx *store.Tx) error {
			for done := false; !done; {
				var err error
				if done, err = Upgrade(tx, 3, "lyngk", nil); err != nil {
					return err
				}
			}
			return errRollBack
		})
		if !errors.Is(err, errRollBack) {
			b.Fatal(err)
		}
	}
}
