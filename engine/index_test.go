package engine_test

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/benchstore"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/store"
)

// checkIndexes fails the test when an index of the games differs from a
// full scan of the records (what lyngk admin check reports).
func (v *env) checkIndexes() {
	v.t.Helper()
	err := v.db.View(func(tx *store.Tx) error {
		diffs, err := engine.CheckIndexes(tx)
		if len(diffs) > 0 {
			v.t.Errorf("the indexes differ from the games:\n%s", strings.Join(diffs, "\n"))
		}
		return err
	})
	if err != nil {
		v.t.Fatal(err)
	}
}

// checkSummaries holds every game's line of the listings (bucket
// summaries, which Page reads) to the summary of its record replayed
// (ReadGame): the player to move that the line reads from the record's
// length is the replay's.
func (v *env) checkSummaries() {
	v.t.Helper()
	err := v.db.View(func(tx *store.Tx) error {
		lines, _, err := v.e.Page(tx, engine.GameFilter{}, engine.Cursor{}, 1<<20)
		if err != nil {
			return err
		}
		for _, l := range lines {
			d, err := v.e.ReadGame(tx, l.Board)
			if err != nil {
				return err
			}
			if !reflect.DeepEqual(l, d.GameSummary) {
				v.t.Errorf("board %d: the listing's line %+v, the record replayed %+v", l.Board, l, d.GameSummary)
			}
		}
		return nil
	})
	if err != nil {
		v.t.Fatal(err)
	}
}

// running reads board's record and replays it: its game word, players
// and position, ok false when the game is over.
func (v *env) running(board int) (word string, players [2]string, pos games.Position, ok bool) {
	v.t.Helper()
	var info engine.GameInfo
	err := v.db.View(func(tx *store.Tx) error {
		var err error
		info, _, err = engine.GameRecord(tx, v.cfg.Games, board)
		return err
	})
	if err != nil {
		v.t.Fatal(err)
	}
	if info.Status != engine.StatusPlaying {
		return "", info.Players, nil, false
	}
	gm, _ := v.e.Game(info.Game)
	pos, err = gm.New(board, info.Variant)
	if err != nil {
		v.t.Fatal(err)
	}
	for _, s := range info.Moves {
		if s == games.Pass {
			continue
		}
		m, _, err := pos.Parse(s)
		if err == nil {
			err = pos.Play(m)
		}
		if err != nil {
			v.t.Fatalf("board %d: replay %q: %v", board, s, err)
		}
	}
	return info.Game, info.Players, pos, true
}

// TestIndexesRandomPlay plays random mails (challenges of both games,
// moves, declines, resignations, subscriptions, vacations, signups never
// confirmed, a signoff and a delete), random moves on the play page (the
// web's click path, engine.PlayToken, with the reply tokens of the board
// mails sent: the player's turn, a stale token refused, a resignation),
// and timer runs days apart (reminders, forfeits, cancelled games, vacations'
// rechecks: six weeks after the last vacation no game runs; and the
// prune's expiries: reply tokens, signups, confirmation codes), and finds
// after every tenth step and at the end every index equal to a full scan
// of the records (what lyngk admin check reports): every write keeps its
// indexes in its transaction. At the end every confirmation code and
// signup never confirmed has expired and gone.
func TestIndexesRandomPlay(t *testing.T) {
	v := newEnv(t, withYinsh)
	names := []string{"alice", "bob", "carol", "dave", "erin", "frank"}
	v.signup(names...)
	rnd := rand.New(rand.NewPCG(7, 32))
	pick := func() string { return names[rnd.IntN(len(names))] }
	var tokens []string // of the board mails sent, the latest 200
	keep := func(out []engine.Mail) {
		for _, m := range out {
			local, _, _ := strings.Cut(m.MessageID, "@")
			if tok, ok := strings.CutPrefix(local, "lyngk."); ok {
				tokens = append(tokens, tok)
			}
		}
		tokens = tokens[max(0, len(tokens)-200):]
	}
	cmd := func(from, subject string) []engine.Mail {
		out := v.cmd(from, subject)
		keep(out)
		return out
	}
	boards, web, unconfirmed := 0, 0, 0
	for step := range 500 {
		switch k := rnd.IntN(25); {
		case k < 3 || boards == 0:
			a, b := pick(), pick()
			if a == b {
				continue
			}
			word := []string{"lyngk", "yinsh"}[rnd.IntN(2)]
			if out := cmd(addr(a), fmt.Sprintf("%s challenge %s %s", word, a, b)); len(out) == 2 {
				boards++
			}
		case k < 14:
			board := 101 + rnd.IntN(boards)
			word, players, pos, ok := v.running(board)
			if !ok {
				continue
			}
			name := players[pos.Turn()-1]
			legal := pos.Legal()
			cmd(addr(name), fmt.Sprintf("%s move %d %s pw-%s %s", word, board, name, name, legal[rnd.IntN(len(legal))]))
		case k < 15:
			board := 101 + rnd.IntN(boards)
			if word, players, _, ok := v.running(board); ok {
				p := players[rnd.IntN(2)]
				verb := []string{"resign", "decline"}[rnd.IntN(2)]
				cmd(addr(p), fmt.Sprintf("%s %s %d %s pw-%s", word, verb, board, p, p))
			}
		case k < 16:
			board, n := 101+rnd.IntN(boards), pick()
			cmd(addr(n), fmt.Sprintf("lyngk subscribe %d %s pw-%s", board, n, n))
			cmd(addr(n), fmt.Sprintf("yinsh subscribe %d %s pw-%s", board, n, n))
		case k < 17:
			n := pick()
			cmd(addr(n), fmt.Sprintf("vacation %s pw-%s %s", n, n, []string{"on", "off"}[rnd.IntN(2)]))
		case k < 18:
			unconfirmed++
			n := fmt.Sprintf("new%d", unconfirmed)
			cmd(addr(n), fmt.Sprintf("signup %s pw-%s", n, n))
		case k < 23:
			if len(tokens) == 0 {
				continue
			}
			// Mostly one of the latest, some still the player's turn.
			tok := tokens[len(tokens)-1-rnd.IntN(min(len(tokens), 12))]
			var tv *engine.TokenView
			if err := v.db.View(func(tx *store.Tx) (err error) { tv, err = v.e.TokenGame(tx, tok); return err }); err != nil {
				continue // a token the mail path refuses too: game over, pruned
			}
			move := "b1-b2" // not this player's turn: refused, nothing written
			switch {
			case tv.YourTurn && rnd.IntN(10) == 0:
				move = "resign"
			case tv.YourTurn:
				move = tv.Legal[rnd.IntN(len(tv.Legal))]
			}
			out, refused := v.playWeb(tok, move)
			if refused == nil {
				web++
			}
			keep(out)
		default:
			v.now = v.now.Add(time.Duration(rnd.IntN(10*24)) * time.Hour)
			keep(v.tick())
		}
		if step%10 == 9 {
			v.checkIndexes()
			v.checkSummaries()
		}
	}
	cmd(addr("carol"), "signoff carol pw-carol")
	cmd(addr("dave"), "delete dave pw-dave")
	for _, n := range names {
		cmd(addr(n), fmt.Sprintf("vacation %s pw-%s off", n, n))
	}
	for range 8 {
		v.now = v.now.Add(5 * 24 * time.Hour)
		v.tick()
	}
	v.checkIndexes()
	v.checkSummaries()
	var c engine.GameCounts
	err := v.db.View(func(tx *store.Tx) error {
		var err error
		c, err = engine.Counts(tx)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if c.Games != boards || c.Running != 0 || c.Finished == 0 || c.Cancelled == 0 {
		t.Errorf("counts %+v after %d challenges and six weeks of timers: want every game over, some finished, some cancelled", c, boards)
	}
	if web < 20 || unconfirmed < 5 {
		t.Errorf("%d moves on the play page applied, %d signups never confirmed: the test shows little", web, unconfirmed)
	}
	if n := v.keys(store.BucketConfirms); n != 0 {
		t.Errorf("%d confirmation codes left six weeks after the last signup", n)
	}
	if users := v.dump(store.BucketUsers); strings.Contains(users, "users/new") {
		t.Errorf("signups never confirmed kept six weeks on:\n%s", users)
	}
}

// challenges makes n games of alice and bob that nobody moves in, over
// days: bob takes MaxUnasked challenges a day.
func (v *env) challenges(n int) {
	v.t.Helper()
	v.signup("alice", "bob")
	for i := range n {
		if i%engine.MaxUnasked == 0 {
			v.now = v.now.Add(25 * time.Hour)
		}
		if out := v.cmd(addr("alice"), "lyngk challenge alice bob"); len(out) != 2 {
			v.t.Fatalf("challenge: %s", format(out))
		}
	}
}

// keys counts the records of bucket.
func (v *env) keys(bucket string) int {
	v.t.Helper()
	n := 0
	err := v.db.View(func(tx *store.Tx) error {
		return tx.ForEach(bucket, func(string, []byte) error { n++; return nil })
	})
	if err != nil {
		v.t.Fatal(err)
	}
	return n
}

// TestPruneBatch: a tick reads PruneBatch tokens and accounts at most,
// and the pass goes on at the next tick where it stopped: the tokens of
// games over for TokenKeep go over two ticks. The old prune read every
// token and account in one transaction.
func TestPruneBatch(t *testing.T) {
	v := newEnv(t)
	v.challenges(engine.PruneBatch/4 + 5) // four tokens a game
	v.now = v.now.Add(22 * 24 * time.Hour)
	for range (engine.PruneBatch/4+5)/engine.TickBatch + 1 { // cancels them, TickBatch a tick
		v.tick()
		v.now = v.now.Add(time.Minute)
	}
	tokens := v.keys(store.BucketTokens)
	if tokens <= engine.PruneBatch {
		t.Fatalf("%d tokens: the test needs more than PruneBatch", tokens)
	}
	v.now = v.now.Add(engine.TokenKeep + time.Hour)
	v.tick()
	if n := v.keys(store.BucketTokens); n != tokens-engine.PruneBatch {
		t.Fatalf("%d tokens left after the first tick, want %d", n, tokens-engine.PruneBatch)
	}
	v.now = v.now.Add(time.Minute)
	v.tick()
	if n := v.keys(store.BucketTokens); n != 0 {
		t.Fatalf("%d tokens left after the second tick, want none", n)
	}
}

// TestTimerBatch: a tick looks at TickBatch games at most, the earliest
// due first, and the next tick at the rest: with TickBatch+3 games whose
// players never moved, the first tick after 21 days cancels TickBatch of
// them, the second the other three. The old timer read every game in one
// transaction.
func TestTimerBatch(t *testing.T) {
	v := newEnv(t)
	v.challenges(engine.TickBatch + 3)
	running := func() int {
		t.Helper()
		var c engine.GameCounts
		err := v.db.View(func(tx *store.Tx) error {
			var err error
			c, err = engine.Counts(tx)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return c.Running
	}
	v.now = v.now.Add(22 * 24 * time.Hour)
	v.tick()
	if n := running(); n != 3 {
		t.Fatalf("%d games running after the first tick, want 3", n)
	}
	v.now = v.now.Add(time.Minute)
	v.tick()
	if n := running(); n != 0 {
		t.Fatalf("%d games running after the second tick, want none", n)
	}
	v.checkIndexes()
}

// TestListingCut: a listing by mail shows the running games first, then
// the finished ones, newest first, at most Config.Listed (here 3), says
// how many more there are and the command that lists them, and that
// command lists the rest, and the standings and ratings show the best
// three of five players and how many more (testdata/listing-cut.golden).
// The old listing
// showed every game oldest first and was cut at 64 KB, the running games
// of a busy player out of sight.
func TestListingCut(t *testing.T) {
	v := newEnv(t, func(c *engine.Config) { c.Listed = 3 })
	v.signup("alice", "bob")
	for i := range 5 {
		v.cmd(addr("alice"), "lyngk challenge alice bob")
		if i == 0 || i == 2 {
			v.firstMoves(101+i, [2]string{"alice", "bob"})
			v.cmd(addr("bob"), fmt.Sprintf("lyngk resign %d bob pw-bob", 101+i))
		}
	}
	v.signup("carol", "dave", "erin")
	for i, p := range [][2]string{{"carol", "dave"}, {"erin", "dave"}} {
		v.cmd(addr(p[0]), fmt.Sprintf("lyngk challenge %s %s", p[0], p[1]))
		v.firstMoves(106+i, p)
		v.cmd(addr(p[1]), fmt.Sprintf("lyngk resign %d %s pw-%s", 106+i, p[1], p[1]))
	}
	var b strings.Builder
	for _, c := range []string{"lyngk games alice", "lyngk games alice all after 102", "lyngk games", "lyngk games after 101",
		"lyngk history", "lyngk history alice bob", "lyngk games alice inactive", "lyngk games alice active after 104",
		"lyngk standings", "lyngk ratings"} {
		out := v.cmd(addr("bob"), c)
		if len(out) != 1 {
			t.Fatalf("%s:\n%s", c, format(out))
		}
		fmt.Fprintf(&b, "===== %s\n%s", c, out[0].Body)
	}
	checkGolden(t, "listing-cut", b.String())
}

// TestStrangerListingNotRead: a listing a stranger asks for is answered to
// nobody, and not read at all: with a game record and its listing line
// (bucket summaries) that do not decode, the stranger's "games alice"
// fails nothing, where a player's fails.
func TestStrangerListingNotRead(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	err := v.db.Update(func(tx *store.Tx) error {
		return cmp.Or(tx.Put(store.BucketGames, "00000101", []byte("{")), tx.Put(store.BucketSummaries, "00000101", []byte("{")))
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"lyngk games alice", "lyngk history alice", "lyngk show alice", "all show alice"} {
		if out, failed := v.mailFailing(engine.Inbound{From: "stranger@elsewhere.example", Subject: c, MessageID: "s-" + c}); failed != nil || len(out) != 0 {
			t.Errorf("a stranger's %q: failed %v, answered:\n%s", c, failed, format(out))
		}
	}
	if _, failed := v.mailFailing(engine.Inbound{From: addr("bob"), Subject: "lyngk games alice", MessageID: "p"}); failed == nil {
		t.Error("a player's listing of an undecodable game did not fail: the test shows nothing")
	}
}

// visitTx counts the records each scan of a bucket visits.
type visitTx struct {
	engine.Tx
	visits map[string]int
}

func (c visitTx) ForEach(bucket string, fn func(key string, val []byte) error) error {
	return c.Scan(bucket, "", fn)
}

func (c visitTx) Scan(bucket, from string, fn func(key string, val []byte) error) error {
	return c.Tx.Scan(bucket, from, func(key string, val []byte) error {
		c.visits[bucket]++
		return fn(key, val)
	})
}

// TestPruneReadsExpired: the prune reads the expiry index up to now and
// the tokens of the games that expired, no other token, account, address
// or confirmation code: with a finished game over for TokenKeep, alice's
// and bob's confirmation codes of their signups a month ago, sixty running
// games' tokens (of the last six days) and an unconfirmed signup of the
// day with its code, a tick visits no record of tokens, users, addresses
// or confirms, the three expiry keys due and one past them, and the
// expired game's tokens; the running games' tokens and zed's code are
// kept, alice's and bob's codes deleted. The old prune walked PruneBatch
// records of tokens, users and addresses a tick, whatever had expired,
// and before schema 6 every confirmation code.
func TestPruneReadsExpired(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	v.firstMoves(101, [2]string{"alice", "bob"})
	v.cmd(addr("bob"), "lyngk resign 101 bob pw-bob")
	before := v.keys(store.BucketTokens)
	v.now = v.now.Add(engine.TokenKeep + time.Hour)
	for i := range 60 {
		if i%engine.MaxUnasked == 0 {
			v.now = v.now.Add(25 * time.Hour)
		}
		if out := v.cmd(addr("alice"), "lyngk challenge alice bob"); len(out) != 2 {
			t.Fatalf("challenge: %s", format(out))
		}
	}
	v.cmd(addr("zed"), "signup zed pw-zed")
	running := v.keys(store.BucketTokens) - before
	tx := visitTx{visits: map[string]int{}}
	err := v.db.Update(func(stx *store.Tx) error {
		tx.Tx = stx
		if err := v.e.Prune(tx, v.now); err != nil {
			return err
		}
		_, _, err := v.e.Tick(tx, v.now)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{store.BucketTokens, store.BucketUsers, store.BucketAddresses, store.BucketConfirms} {
		if n := tx.visits[b]; n != 0 {
			t.Errorf("the tick visited %d records of %s, want none", n, b)
		}
	}
	if n := tx.visits[store.BucketExpiry]; n > 4 {
		t.Errorf("the tick visited %d expiry keys, want 4 at most (the three due, the next)", n)
	}
	if n := v.keys(store.BucketConfirms); n != 1 {
		t.Errorf("%d confirmation codes after the tick, want zed's alone", n)
	}
	if n := tx.visits[store.BucketGameTokens]; n > before+1 {
		t.Errorf("the tick visited %d gametokens keys, want %d at most (board 101's, the next)", n, before+1)
	}
	if n := v.keys(store.BucketTokens); n != running {
		t.Errorf("%d tokens after the tick, want the running games' %d", n, running)
	}
	if !strings.Contains(v.dump(store.BucketUsers), "/zed=") {
		t.Error("zed's signup of the day went")
	}
	v.checkIndexes()
}

// TestPruneBadExpiryKey: an expiry key too short to name anything (a
// damaged store) is deleted by the prune, which neither crashes nor stops
// at it: the signup expired after it goes too.
func TestPruneBadExpiryKey(t *testing.T) {
	v := newEnv(t)
	v.cmd(addr("zed"), "signup zed pw-zed")
	err := v.db.Update(func(tx *store.Tx) error {
		for _, k := range []string{"0000000000000000", "00000"} {
			if err := tx.Put(store.BucketExpiry, k, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	v.now = v.now.Add(engine.SignupKeep + time.Hour)
	v.tick()
	if got := v.dump(store.BucketExpiry, store.BucketUsers); got != "" {
		t.Errorf("left after the prune:\n%s", got)
	}
}

// getTx counts the records read by Get, by bucket.
type getTx struct {
	engine.Tx
	gets map[string]int
}

func (c getTx) Get(bucket, key string) ([]byte, error) {
	c.gets[bucket]++
	return c.Tx.Get(bucket, key)
}

// TestListingReadsItsLines: a listing by mail reads the lines it shows
// (bucket summaries), not the game records: with 60 running games of
// alice, "games alice" reads 60 summaries and no game; "show alice",
// whose mail has room for MaxMails-1 boards, reads the records of the
// boards it mails alone (twice each: the board, and its reply token's
// game; one more board is read that the mail has no room for), and "all
// show alice" likewise. The old listings read the 60 records (and
// replayed each for the player to move), the summary of the boards left
// out the records of 20 of them.
func TestListingReadsItsLines(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	err := v.db.Update(func(tx *store.Tx) error {
		for range 60 {
			if _, err := v.e.BulkChallenge(tx, "lyngk", "", [2]string{"alice", "bob"}, v.now, false); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"lyngk games alice", "lyngk show alice", "all show alice"} {
		tx := getTx{gets: map[string]int{}}
		var out []engine.Mail
		err := v.db.Update(func(stx *store.Tx) error {
			tx.Tx = stx
			var failed error
			out, failed, err = v.e.Handle(tx, engine.Inbound{From: addr("bob"), Subject: c, MessageID: c + "@players.example"}, v.now)
			return cmp.Or(failed, err)
		})
		if err != nil {
			t.Fatal(err)
		}
		boards := 0
		for _, m := range out {
			if strings.Contains(m.Subject, " Board ") {
				boards++
			}
		}
		t.Logf("%s: %d mails, %d boards, reads %v", c, len(out), boards, tx.gets)
		switch {
		case c == "lyngk games alice" && (tx.gets[store.BucketGames] != 0 || tx.gets[store.BucketSummaries] != 60 ||
			strings.Count(out[0].Body, "alice") < 60):
			t.Errorf("%s read %d game records and %d lines for a listing of 60", c, tx.gets[store.BucketGames], tx.gets[store.BucketSummaries])
		case c != "lyngk games alice" && (boards != engine.MaxMails-1 || tx.gets[store.BucketGames] > 2*(boards+1)):
			t.Errorf("%s read %d game records for %d boards mailed (want %d)", c, tx.gets[store.BucketGames], boards, engine.MaxMails-1)
		}
	}
}

// TestListingAfterCounted: a listing after a board counts the games after
// it from the index keys, MaxCounted of them at most: with 5,600 games of
// alice, "games alice after" the newest lists 500 and says "Over 5000
// more", reading no more than the page's keys and MaxCounted+1; after a
// board near the end it says the exact number; for two users, whose
// games the counts cannot add (a game of both is one), likewise. The old
// listing read every key after the board.
func TestListingAfterCounted(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	const n = 5600
	err := v.db.Update(func(tx *store.Tx) error {
		for range n {
			if _, err := v.e.BulkChallenge(tx, "lyngk", "", [2]string{"alice", "bob"}, v.now, false); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	newest := 100 + n
	for _, c := range []struct {
		subject, more string
	}{
		{fmt.Sprintf("lyngk games alice all after %d", newest), "Over 5000 more games not listed."},
		{fmt.Sprintf("lyngk games alice all after %d", 700), "99 more games not listed."},
		{"lyngk games alice", "5100 more games not listed."},
		{"lyngk games alice bob", "Over 5000 more games not listed."},
	} {
		tx := visitTx{visits: map[string]int{}}
		var out []engine.Mail
		err := v.db.Update(func(stx *store.Tx) error {
			tx.Tx = stx
			var failed error
			out, failed, err = v.e.Handle(tx, engine.Inbound{From: addr("bob"), Subject: c.subject, MessageID: c.subject + "@players.example"}, v.now)
			return cmp.Or(failed, err)
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %v keys visited", c.subject, tx.visits)
		if len(out) != 1 || !strings.Contains(out[0].Body, "\n"+c.more+" To list them") {
			t.Errorf("%s: want %q in:\n%s", c.subject, c.more, out[0].Body[max(0, len(out[0].Body)-300):])
		}
		users := strings.Count(c.subject, "alice") + strings.Count(c.subject, "bob")
		if keys := tx.visits[store.BucketByPlayer]; keys > users*(2*engine.MaxListed+engine.MaxCounted+10) {
			t.Errorf("%s: %d index keys read, want at most the page's and MaxCounted+1 a user", c.subject, keys)
		}
	}
}

// TestStandingsReadTheirLines: the standings by mail read their lines
// from the index of the standings (each key's value), not the players'
// records: with 40 players of bench-store's games, "lyngk standings" and
// "ratings" read the user records of the sender alone. The old standings
// read a record a line.
func TestStandingsReadTheirLines(t *testing.T) {
	v := newEnv(t, withYinsh)
	_, err := benchstore.Generate(context.Background(), v.e, func(fn func(engine.Tx) error) error {
		return v.db.Update(func(tx *store.Tx) error { return fn(tx) })
	}, benchstore.Options{Games: 400, Players: 40, Running: 0, Seed: 2, Now: v.now})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{"lyngk standings", "lyngk ratings"} {
		tx := getTx{gets: map[string]int{}}
		var out []engine.Mail
		err := v.db.Update(func(stx *store.Tx) error {
			tx.Tx = stx
			var failed error
			out, failed, err = v.e.Handle(tx, engine.Inbound{From: "player1@" + benchstore.Domain, Subject: c, MessageID: c + "@players.example"}, v.now)
			return cmp.Or(failed, err)
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: reads %v", c, tx.gets)
		if len(out) != 1 || strings.Count(out[0].Body, "player") < 30 || tx.gets[store.BucketUsers] > 2 {
			t.Errorf("%s read %d user records:\n%s", c, tx.gets[store.BucketUsers], out[0].Body)
		}
	}
}
