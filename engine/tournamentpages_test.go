package engine_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/store"
)

// countingTx counts what a read costs: the records read (Get) and the
// index keys walked (each key a Scan hands on).
type countingTx struct {
	engine.Tx
	gets, keys int
}

func (c *countingTx) Get(bucket, key string) ([]byte, error) {
	c.gets++
	return c.Tx.Get(bucket, key)
}

func (c *countingTx) Scan(bucket, from string, fn func(key string, val []byte) error) error {
	return c.Tx.Scan(bucket, from, func(key string, val []byte) error {
		c.keys++
		return fn(key, val)
	})
}

// TestTournamentPage: the lists of the web's /tournaments page through,
// two at a time, over both games: every open tournament once, in the
// order of game word and name, each page reading its two records and at
// most five index keys (its two, one past it, one past each game's part)
// whatever the store holds; a bad cursor, state or game is refused.
func TestTournamentPage(t *testing.T) {
	v := newEnv(t, withYinsh)
	v.signup("alice", "bob", "carol")
	made := map[string][]string{"lyngk": {"a1", "c3", "e5"}, "yinsh": {"b2", "d4"}}
	creators := []string{"alice", "alice", "bob", "bob", "carol"}
	i := 0
	for _, word := range []string{"lyngk", "yinsh"} {
		for _, name := range made[word] {
			u := creators[i]
			i++
			out := v.cmd(addr(u), fmt.Sprintf("%s tournament create %s %s pw-%s", word, name, u, u))
			if len(out) != 1 || strings.Contains(out[0].Subject, "rror") {
				t.Fatalf("create %s: %+v", name, out)
			}
		}
	}
	var got []string
	after := ""
	for page := 0; ; page++ {
		var list []engine.TournamentSummary
		var next string
		c := &countingTx{}
		err := v.db.View(func(tx *store.Tx) (err error) {
			c.Tx = tx
			list, next, err = v.e.TournamentPage(c, "", engine.TournamentOpen, after, 2)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if c.gets != len(list) || c.keys > 2+1+2 { // the page, one past it, one past each game's part
			t.Errorf("page %d: %d records and %d index keys read for %d tournaments", page+1, c.gets, c.keys, len(list))
		}
		for _, s := range list {
			got = append(got, s.Game+":"+s.Name)
		}
		if next == "" {
			break
		}
		if page > 5 {
			t.Fatal("the pages do not end")
		}
		after = next
	}
	if want := "lyngk:a1 lyngk:c3 lyngk:e5 yinsh:b2 yinsh:d4"; strings.Join(got, " ") != want {
		t.Errorf("the pages hold %v, want %s", got, want)
	}
	for _, tc := range []struct {
		game, state, after string
		want               error
	}{
		{"", "open", "lyngk", engine.ErrBadCursor},
		{"", "open", "chess:x", engine.ErrBadCursor},
		{"yinsh", "open", "lyngk:a1", engine.ErrBadCursor},
		{"", "open", "lyngk:" + strings.Repeat("x", engine.MaxTournamentCursor), engine.ErrBadCursor},
		{"", "bogus", "", engine.ErrBadState},
		{"chess", "open", "", engine.ErrNoGame},
	} {
		err := v.db.View(func(tx *store.Tx) error {
			_, _, err := v.e.TournamentPage(tx, tc.game, engine.TournamentState(tc.state), tc.after, 2)
			return err
		})
		if !errors.Is(err, tc.want) {
			t.Errorf("TournamentPage(%q, %q, %q) = %v, want %v", tc.game, tc.state, tc.after, err, tc.want)
		}
	}
}
