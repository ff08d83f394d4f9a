package engine_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/store"
)

// upgradeScenario plays the games of the upgrade fixture on v (LYNGK and
// YINSH offered): alice, bob and carol; LYNGK 101 alice beats bob (bob
// resigns), 102 bob beats carol, 103 running, 104 declined; YINSH 105
// carol beats alice, 106 running.
func upgradeScenario(v *env) {
	v.t.Helper()
	v.signup("alice", "bob", "carol")
	games := []struct {
		word       string
		players    [2]string
		moves      int
		resign     string // the player who resigns after the moves
		decline    bool
		challenger string
	}{
		{"lyngk", [2]string{"alice", "bob"}, 4, "bob", false, "alice"},
		{"lyngk", [2]string{"bob", "carol"}, 3, "carol", false, "bob"},
		{"lyngk", [2]string{"carol", "alice"}, 5, "", false, "carol"},
		{"lyngk", [2]string{"alice", "carol"}, 0, "", true, "alice"},
		{"yinsh", [2]string{"carol", "alice"}, 13, "alice", false, "carol"},
		{"yinsh", [2]string{"bob", "alice"}, 11, "", false, "bob"},
	}
	for i, g := range games {
		board := 101 + i
		if out := v.cmd(addr(g.challenger), fmt.Sprintf("%s challenge %s %s", g.word, g.players[0], g.players[1])); len(out) != 2 {
			v.t.Fatalf("challenge %d:\n%s", board, format(out))
		}
		gm, _ := v.e.Game(g.word)
		variant, _ := gm.Variant("")
		pos, err := gm.New(board, variant)
		if err != nil {
			v.t.Fatal(err)
		}
		for range g.moves {
			name := g.players[pos.Turn()-1]
			mv := pos.Legal()[0]
			if out := v.cmd(addr(name), fmt.Sprintf("%s move %d %s pw-%s %s", g.word, board, name, name, mv)); len(out) == 0 || strings.Contains(out[0].Subject, "rror") {
				v.t.Fatalf("move %s on %d:\n%s", mv, board, format(out))
			}
			m, _, err := pos.Parse(mv)
			if err == nil {
				err = pos.Play(m)
			}
			if err != nil {
				v.t.Fatal(err)
			}
		}
		switch {
		case g.resign != "":
			v.cmd(addr(g.resign), fmt.Sprintf("%s resign %d %s pw-%s", g.word, board, g.resign, g.resign))
		case g.decline:
			v.cmd(addr(g.players[1]), fmt.Sprintf("%s decline %d %s pw-%s", g.word, board, g.players[1], g.players[1]))
		}
	}
}

// upgradeListings are the mail listings of the upgrade test: what a
// player reads of the games, the records and the ratings.
var upgradeListings = []string{"lyngk games", "yinsh games", "lyngk games alice", "lyngk history", "yinsh history",
	"lyngk standings", "yinsh standings", "lyngk ratings", "yinsh ratings",
	"lyngk show 101", "lyngk show 103", "lyngk show 104", "yinsh show 105", "yinsh show 106"}

// listings is the body of the answer to each of upgradeListings.
func (v *env) listings() string {
	v.t.Helper()
	var b strings.Builder
	for _, c := range upgradeListings {
		fmt.Fprintf(&b, "===== %s\n", c)
		for _, m := range v.cmd(addr("bob"), c) {
			b.WriteString(m.Body)
		}
	}
	return b.String()
}

// readAPI is what the read API says of every game and player, as JSON.
func (v *env) readAPI() string {
	v.t.Helper()
	var b strings.Builder
	put := func(name string, val any, err error) {
		if err != nil {
			v.t.Fatalf("%s: %v", name, err)
		}
		j, err := json.Marshal(val)
		if err != nil {
			v.t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %s\n", name, j)
	}
	err := v.db.View(func(tx *store.Tx) error {
		gs, err := v.e.ListGames(tx, engine.GameFilter{})
		put("games", gs, err)
		for _, word := range []string{"", "lyngk", "yinsh"} {
			h, err := v.e.History(tx, word)
			put("history "+word, h, err)
		}
		for _, word := range []string{"lyngk", "yinsh"} {
			s, err := v.e.Standings(tx, word)
			put("standings "+word, s, err)
			for _, id := range []string{"alice", "bob", "carol"} {
				p, err := v.e.ReadPlayer(tx, id, word)
				put("player "+id+" "+word, p, err)
			}
		}
		for board := 101; board <= 106; board++ {
			d, err := v.e.ReadGame(tx, board)
			put(fmt.Sprint("game ", board), d, err)
			j, err := d.JSON()
			put(fmt.Sprint("json ", board), j, err)
		}
		return nil
	})
	if err != nil {
		v.t.Fatal(err)
	}
	return b.String()
}

// fixtureRecord is a line of testdata/upgrade/schema2.jsonl: one record of
// the engine's buckets as the release before schema version 3 wrote it.
type fixtureRecord struct {
	Bucket string          `json:"bucket"`
	Key    string          `json:"key"`
	Value  json.RawMessage `json:"value"`
}

// upgradeLyngk is the store's upgrade of these tests: the records that
// name no game are LYNGK's.
func upgradeLyngk(tx *store.Tx, from int) (bool, error) {
	return engine.Upgrade(tx, from, "lyngk", nil)
}

// upgraded is a server on the store of fixture (testdata/upgrade/: one
// record a line) at schema version, opened with the upgrade.
func upgraded(t *testing.T, fixture, version string) *env {
	t.Helper()
	v := fixtureStore(t, fixture, version)
	var err error
	if v.db, err = store.Open(v.path, store.Options{Upgrade: upgradeLyngk}); err != nil {
		t.Fatal(err)
	}
	return v
}

// fixtureStore is a server whose store, closed, holds the records of
// fixture at schema version.
func fixtureStore(t *testing.T, fixture, version string) *env {
	t.Helper()
	v := newEnv(t, withYinsh)
	if err := v.db.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join("testdata", "upgrade", fixture))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	db, err := store.Open(v.path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *store.Tx) error {
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var r fixtureRecord
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				return err
			}
			if err := tx.Put(r.Bucket, r.Key, r.Value); err != nil {
				return err
			}
		}
		return sc.Err()
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	setSchema(t, v.path, version)
	return v
}

// TestUpgradeIndexes: a store of schema version 3, made by the release
// before version 4 playing upgradeScenario (testdata/upgrade/schema3.jsonl:
// no index), is upgraded to version 4: every index agrees with the games,
// the read API says what the old release said (testdata/upgrade/read-api,
// which that release also wrote), every listing by mail reads as in a
// store where this release played the same games (the listings' new
// order in both), and the timer, which finds each running game due at
// once (the upgrade knows no timer periods), sends nothing and gives each
// its deadline.
func TestUpgradeIndexes(t *testing.T) {
	v := upgraded(t, "schema3.jsonl", "3")
	v.checkIndexes()
	checkGolden(t, filepath.Join("upgrade", "read-api"), v.readAPI())
	w := newEnv(t, withYinsh)
	upgradeScenario(w)
	if got, want := v.listings(), w.listings(); got != want {
		t.Errorf("listings after the upgrade differ from this release's for the same games: %s", diff(want, got))
	}
	dues := regexp.MustCompile(`"due":"[^"]*"`)
	if n := len(dues.FindAllString(v.dump(store.BucketGames), -1)); n != 0 {
		t.Fatalf("%d games with a deadline before the first tick", n)
	}
	v.now = w.now
	if out := v.tick(); len(out) != 0 {
		t.Errorf("the first tick after the upgrade mailed:\n%s", format(out))
	}
	v.checkIndexes()
	if n := len(dues.FindAllString(v.dump(store.BucketGames), -1)); n != 2 {
		t.Errorf("%d games with a deadline after the first tick, want the 2 running", n)
	}
}

// TestUpgradeFirstGame: a store of schema version 2, made by the release
// before version 3 playing upgradeScenario (testdata/upgrade/schema2.jsonl:
// game records of LYNGK without their game, LYNGK's standing in the user
// record's top-level fields), is upgraded to version 3: every game record
// names its game, every standing is in the per-game map, and the read API
// says of every game and player what the old release said
// (testdata/upgrade/read-api.golden, written by it), and every listing by
// mail reads as in a store where this release played the same games.
func TestUpgradeFirstGame(t *testing.T) {
	v := upgraded(t, "schema2.jsonl", "2")
	records := v.dump(store.BucketUsers, store.BucketGames)
	for _, l := range strings.Split(strings.TrimSpace(records), "\n") {
		key, val, _ := strings.Cut(l, "=")
		var rec map[string]json.RawMessage
		if err := json.Unmarshal([]byte(val), &rec); err != nil {
			t.Fatal(err)
		}
		if _, ok := rec["game"]; strings.HasPrefix(key, "games/") && !ok {
			t.Errorf("a game record without its game after the upgrade: %s", l)
		}
		if _, ok := rec["rating"]; strings.HasPrefix(key, "users/") && ok {
			t.Errorf("a standing outside the per-game map after the upgrade: %s", l)
		}
	}
	checkGolden(t, filepath.Join("upgrade", "read-api"), v.readAPI())
	v.checkIndexes()

	w := newEnv(t, withYinsh)
	upgradeScenario(w)
	// Password hashes are salted: alike only in form. A running game's
	// next deadline is the timer's to set at its first look (the upgrade
	// knows no timer periods).
	hashes := regexp.MustCompile(`"hash":"[^"]*"`)
	dues := regexp.MustCompile(`,"due":"[^"]*"`)
	unsalted := func(s string) string { return dues.ReplaceAllString(hashes.ReplaceAllString(s, `"hash":"…"`), "") }
	if got, want := unsalted(records), unsalted(w.dump(store.BucketUsers, store.BucketGames)); got != want {
		t.Errorf("upgraded records differ from this release's for the same games: %s", diff(want, got))
	}
	got, want := v.listings(), w.listings()
	if got != want {
		t.Errorf("listings after the upgrade differ from this release's for the same games: %s", diff(want, got))
	}
	if !strings.Contains(got, "carol") {
		t.Errorf("the listings name no player:\n%s", got)
	}
}

// TestUpgradeExpiry: a store of schema version 4 (the indexes of the
// games, no expiry index nor recipients, the prune's cursor in
// meta/pruned), made here by playing upgradeScenario and an unconfirmed
// signup, then dropping those indexes, is upgraded to the current
// version: admin check said what was
// missing before, the upgrade builds the very keys this release writes as
// it plays, the cursor goes, and the prune then deletes the finished
// games' tokens, the signup and its address by them. The release before
// refused a version 4 file.
func TestUpgradeExpiry(t *testing.T) {
	v := newEnv(t, withYinsh)
	upgradeScenario(v)
	v.cmd(addr("zed"), "signup zed pw-zed")
	want := v.dump(store.BucketGameTokens, store.BucketExpiry, store.BucketRecipients)
	for _, kind := range []string{"t00000101", "uzed", "a" + addr("zed")} {
		if !regexp.MustCompile(`(?m)^expiry/[0-9a-f]{16}` + regexp.QuoteMeta(kind) + `=$`).MatchString(want) {
			t.Fatalf("no expiry key of %s:\n%s", kind, want)
		}
	}
	err := v.db.Update(func(tx *store.Tx) error {
		for _, b := range []string{store.BucketGameTokens, store.BucketExpiry, store.BucketRecipients} {
			var keys []string
			if err := tx.ForEach(b, func(k string, _ []byte) error { keys = append(keys, k); return nil }); err != nil {
				return err
			}
			for _, k := range keys {
				if err := tx.Delete(b, k); err != nil {
					return err
				}
			}
		}
		return tx.Put(store.BucketMeta, "pruned", []byte(`{"v":1,"start":"2026-11-21T22:52:00Z","bucket":"users"}`))
	})
	if err != nil {
		t.Fatal(err)
	}
	var diffs []string
	if err := v.db.View(func(tx *store.Tx) (err error) { diffs, err = engine.CheckIndexes(tx); return err }); err != nil {
		t.Fatal(err)
	}
	if len(diffs) != strings.Count(want, "\n") {
		t.Errorf("admin check before the upgrade: %d lines, want one for each of the %d keys dropped:\n%s", len(diffs), strings.Count(want, "\n"), strings.Join(diffs, "\n"))
	}
	for _, d := range diffs {
		if !strings.HasPrefix(d, "gametokens: missing ") && !strings.HasPrefix(d, "expiry: missing ") && !strings.HasPrefix(d, "recipients: missing ") {
			t.Errorf("admin check before the upgrade: %s", d)
		}
	}
	v.db.Close()
	setSchema(t, v.path, "4")
	if v.db, err = store.Open(v.path, store.Options{Upgrade: upgradeLyngk}); err != nil {
		t.Fatal(err)
	}
	if got := v.dump(store.BucketGameTokens, store.BucketExpiry, store.BucketRecipients); got != want {
		t.Errorf("the indexes of version 5 after the upgrade differ from those written in play: %s", diff(want, got))
	}
	if strings.Contains(v.dump(store.BucketMeta), "meta/pruned=") {
		t.Error("the prune's cursor of version 4 is kept")
	}
	v.checkIndexes()
	v.now = v.now.Add(engine.TokenKeep + time.Hour)
	// The running games 103 and 106 end at the first tick (the timer
	// cancels them): their tokens expire TokenKeep later. The rest goes,
	// PruneBatch a tick, within a few ticks.
	expired := func() (left []string) {
		for l := range strings.Lines(v.dump(store.BucketExpiry)) {
			if !strings.Contains(l, "t00000103=") && !strings.Contains(l, "t00000106=") {
				left = append(left, l)
			}
		}
		return left
	}
	for range 10 {
		v.tick()
		if len(expired()) == 0 {
			break
		}
	}
	for _, l := range expired() {
		t.Errorf("expired key left after the prune: %s", l)
	}
	if got := v.dump(store.BucketUsers, store.BucketAddresses); strings.Contains(got, "zed") {
		t.Errorf("zed's signup kept past SignupKeep:\n%s", got)
	}
	v.checkIndexes()
}

// TestUpgradeConfirmExpiry: a store of schema version 5 (its expiry index
// without the confirmation codes), made here by playing upgradeScenario
// and an unconfirmed signup, then dropping the codes' keys, is upgraded to
// version 6: admin check said which keys were missing before, the upgrade
// builds the very keys this release writes as it plays, every listing
// reads as before, and the prune
// then deletes every code by them 7 days after it was sent, reading no
// record of confirms. Version 5's prune read every code every minute.
func TestUpgradeConfirmExpiry(t *testing.T) {
	v := newEnv(t, withYinsh)
	upgradeScenario(v)
	v.cmd(addr("zed"), "signup zed pw-zed")
	want, listings := v.dump(store.BucketExpiry), v.listings()
	codes := regexp.MustCompile(`(?m)^expiry/([0-9a-f]{16}c[0-9a-z]+)=$`).FindAllStringSubmatch(want, -1)
	if n := strings.Count(v.dump(store.BucketConfirms), "\n"); len(codes) != n || n == 0 {
		t.Fatalf("%d expiry keys of confirmation codes, want one for each of the %d codes:\n%s", len(codes), n, want)
	}
	err := v.db.Update(func(tx *store.Tx) error {
		for _, c := range codes {
			if err := tx.Delete(store.BucketExpiry, c[1]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var diffs []string
	if err := v.db.View(func(tx *store.Tx) (err error) { diffs, err = engine.CheckIndexes(tx); return err }); err != nil {
		t.Fatal(err)
	}
	if len(diffs) != len(codes) {
		t.Errorf("admin check before the upgrade: %d lines, want one for each of the %d keys dropped:\n%s", len(diffs), len(codes), strings.Join(diffs, "\n"))
	}
	v.db.Close()
	setSchema(t, v.path, "5")
	if v.db, err = store.Open(v.path, store.Options{Upgrade: upgradeLyngk}); err != nil {
		t.Fatal(err)
	}
	if got := v.dump(store.BucketExpiry); got != want {
		t.Errorf("the expiry index of version 6 after the upgrade differs from the one written in play: %s", diff(want, got))
	}
	if got := v.listings(); got != listings {
		t.Errorf("the listings after the upgrade differ: %s", diff(listings, got))
	}
	v.checkIndexes()
	v.now = v.now.Add(7*24*time.Hour + time.Hour)
	tx := visitTx{visits: map[string]int{}}
	if err := v.db.Update(func(stx *store.Tx) error {
		tx.Tx = stx
		if err := v.e.Prune(tx, v.now); err != nil {
			return err
		}
		_, _, err := v.e.Tick(tx, v.now)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := v.dump(store.BucketConfirms); got != "" || tx.visits[store.BucketConfirms] != 0 {
		t.Errorf("after the prune (%d records of confirms visited), codes kept past 7 days:\n%s", tx.visits[store.BucketConfirms], got)
	}
	v.checkIndexes()
}

// TestUpgradeResumes: the upgrade of the schema 3 fixture is killed after
// its first step, its second, and so on (a step that fails: its
// transaction rolls back, as a crash's would), and the next start goes on
// where it was: every index equals a full scan, the counts are not
// doubled, and the listings read as after an upgrade never killed. The
// old upgrade was one transaction; it was not resumable, nor bounded.
func TestUpgradeResumes(t *testing.T) {
	whole := upgraded(t, "schema3.jsonl", "3")
	want := whole.listings()
	boom := errors.New("killed")
	for kill := 1; ; kill++ {
		v := fixtureStore(t, "schema3.jsonl", "3")
		steps := 0
		db, err := store.Open(v.path, store.Options{Upgrade: func(tx *store.Tx, from int) (bool, error) {
			if steps++; steps == kill {
				return false, boom
			}
			return upgradeLyngk(tx, from)
		}})
		if err == nil {
			v.db = db
			if kill < 4 {
				t.Fatalf("the upgrade took %d steps, want one for the records and one a bucket", kill-1)
			}
			break
		}
		if !errors.Is(err, boom) {
			t.Fatal(err)
		}
		if v.db, err = store.Open(v.path, store.Options{Upgrade: upgradeLyngk}); err != nil {
			t.Fatal(err)
		}
		v.checkIndexes()
		if got := v.listings(); got != want {
			t.Errorf("killed at step %d: the listings differ: %s", kill, diff(want, got))
		}
	}
}

// TestUpgradeSummaries: a store of schema version 6 has no lines of the
// listings (bucket summaries) and empty values in the standings' index;
// admin check says each line is missing and each value differs, and the
// upgrade to version 7 writes them from the game and user records,
// UpgradeBatch records a step, saying how far it is in the log: the same
// values play wrote, the listings and standings unchanged, the indexes
// clean.
func TestUpgradeSummaries(t *testing.T) {
	v := newEnv(t, withYinsh)
	upgradeScenario(v)
	want, listings := v.dump(store.BucketSummaries), v.listings()
	wantRatings := v.dump(store.BucketRatings)
	ratings := strings.Count(wantRatings, "\n")
	games := strings.Count(v.dump(store.BucketGames), "\n")
	if n := strings.Count(want, "\n"); n != games || n == 0 {
		t.Fatalf("%d lines of the listings for %d games:\n%s", n, games, want)
	}
	err := v.db.Update(func(tx *store.Tx) error {
		for _, l := range strings.Split(strings.TrimSpace(want), "\n") {
			k, _, _ := strings.Cut(strings.TrimPrefix(l, store.BucketSummaries+"/"), "=")
			if err := tx.Delete(store.BucketSummaries, k); err != nil {
				return err
			}
		}
		for _, l := range strings.Split(strings.TrimSpace(wantRatings), "\n") {
			k, _, _ := strings.Cut(strings.TrimPrefix(l, store.BucketRatings+"/"), "=")
			if err := tx.Put(store.BucketRatings, k, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var diffs []string
	if err := v.db.View(func(tx *store.Tx) (err error) { diffs, err = engine.CheckIndexes(tx); return err }); err != nil {
		t.Fatal(err)
	}
	if len(diffs) != games+ratings || ratings == 0 || !strings.HasPrefix(diffs[0], "ratings: ") || !strings.HasPrefix(diffs[len(diffs)-1], "summaries: missing") {
		t.Errorf("admin check before the upgrade: %d lines, want one for each of the %d games and %d lines of the standings:\n%s",
			len(diffs), games, ratings, strings.Join(diffs, "\n"))
	}
	v.db.Close()
	setSchema(t, v.path, "6")
	var log strings.Builder
	if v.db, err = store.Open(v.path, store.Options{Upgrade: func(tx *store.Tx, from int) (bool, error) {
		return engine.Upgrade(tx, from, "lyngk", func(format string, args ...any) { fmt.Fprintf(&log, format+"\n", args...) })
	}}); err != nil {
		t.Fatal(err)
	}
	if got := v.dump(store.BucketSummaries); got != want {
		t.Errorf("the lines of version 7 after the upgrade differ from those written in play: %s", diff(want, got))
	}
	if got := v.dump(store.BucketRatings); got != wantRatings {
		t.Errorf("the standings of version 7 after the upgrade differ from those written in play: %s", diff(wantRatings, got))
	}
	if got := v.listings(); got != listings {
		t.Errorf("the listings after the upgrade differ: %s", diff(listings, got))
	}
	if !strings.Contains(log.String(), fmt.Sprintf("engine: upgrade: games: %d records read", games)) {
		t.Errorf("the upgrade's log:\n%s", log.String())
	}
	v.checkIndexes()
}
