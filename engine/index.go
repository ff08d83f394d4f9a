package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The indexes of the game records (store schema version 4). Each is a
// function of the game records alone: writeGame keeps them in the
// transaction that writes the record, Upgrade builds them on an older
// store, and CheckIndexes compares them with a full scan. The standings
// (ratings) are an index of the user records, kept likewise by saveUser. store/doc.go's table
// gives the layout; what they are for:
//
//   - byplayer: a player's games, running first, newest first, then the
//     finished ones, newest first, then the games the user subscribes to
//     (listings of a player, the player page, signoff and delete);
//   - running: the running games by board (the listings of everybody);
//   - deadlines: the running games by the time the timer looks at them
//     next (game.Due), the timer's queue;
//   - ended: the finished games, the last ended first;
//   - counts: the number of games by state, of everybody and of each
//     player (metrics, and the "how many more" line of the listings);
//   - ratings: each game's standings, each key's value (since schema
//     version 7) the line of the standings;
//   - summaries (schema version 7, summaries.go): each game's line of
//     the listings, the one index with values.
const (
	bucketByPlayer  = "byplayer"
	bucketRunning   = "running"
	bucketDeadlines = "deadlines"
	bucketEnded     = "ended"
	bucketCounts    = "counts"
	// bucketRatings holds the standings of each game: a key for each
	// player with a finished game of it who has not signed off, the best
	// rating first (ratingKey), and the count "standings GAME" of them.
	bucketRatings = "ratings"
)

// The marks of byplayer's keys after the userid: they order a player's
// games running first, then finished, then subscribed.
const (
	markRunning    = "0"
	markFinished   = "1"
	markSubscribed = "2"
)

// gameIndexes are the indexes of the game records with empty values.
var gameIndexes = []string{bucketByPlayer, bucketRunning, bucketDeadlines, bucketEnded}

// indexBuckets are the buckets CheckIndexes compares, in the order it reports.
var indexBuckets = []string{bucketByPlayer, bucketRunning, bucketDeadlines, bucketEnded, bucketCounts, bucketRatings, bucketGameTokens, bucketExpiry, bucketRecipients, bucketTourIndex, bucketSummaries}

// The count keys of everybody's games (countKeys).
const (
	countGames     = "games"
	countRunning   = "running"
	countFinished  = "finished" // won or tied
	countCancelled = "cancelled"
)

// invBoard orders boards newest first: 99999999 - board, eight digits.
func invBoard(board int) string { return fmt.Sprintf("%08d", 99999999-board) }

// boardOfInv reads invBoard back.
func boardOfInv(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || len(s) != 8 {
		return 0, fmt.Errorf("engine: index key %q: not a board", s)
	}
	return 99999999 - n, nil
}

// timeKey orders times: 16 hex digits of the Unix nanoseconds, zero for
// the zero time or one before 1970.
func timeKey(t time.Time) string {
	n := int64(0)
	if !t.IsZero() && t.Unix() > 0 {
		n = t.UnixNano()
	}
	return fmt.Sprintf("%016x", n)
}

// invTimeKey orders times newest first.
func invTimeKey(t time.Time) string {
	n, _ := strconv.ParseInt(timeKey(t), 16, 64)
	return fmt.Sprintf("%016x", math.MaxInt64-n)
}

// playerPrefix starts the byplayer keys of userid key in scope.
func playerPrefix(key, scope string) string { return key + "\x00" + scope + "\x00" }

// ended is when g ended: its Ended, else its last move, else its start.
func (g *game) ended() time.Time {
	switch {
	case !g.Ended.IsZero():
		return g.Ended
	case !g.LastMove.IsZero():
		return g.LastMove
	}
	return g.Started
}

// allScope is the scope of the index keys and counts of every game; a
// game word (letters) is that game's scope.
const allScope = "*"

// scopes are the scopes of g: every game's, and its game's.
func (g *game) scopes() []string { return []string{allScope, g.Game} }

// indexKeys are the keys g puts into each index but counts; their values
// are empty. Each listing's order is a key range: byplayer USERID 0x00
// SCOPE 0x00 MARK, running SCOPE 0x00, ended SCOPE 0x00.
func indexKeys(g *game) map[string][]string {
	out := map[string][]string{}
	mark := markRunning
	if g.over() {
		mark = markFinished
	}
	inv := invBoard(g.Board)
	add := func(bucket, key string) {
		if !slices.Contains(out[bucket], key) {
			out[bucket] = append(out[bucket], key)
		}
	}
	for _, scope := range g.scopes() {
		for _, p := range g.Players {
			add(bucketByPlayer, playerPrefix(strings.ToLower(p), scope)+mark+inv)
		}
		for _, s := range g.Subscribers {
			add(bucketByPlayer, playerPrefix(s, scope)+markSubscribed+inv)
		}
		if g.over() {
			add(bucketEnded, scope+"\x00"+invTimeKey(g.ended())+gameKey(g.Board))
		} else {
			add(bucketRunning, scope+"\x00"+inv)
		}
	}
	if !g.over() {
		add(bucketDeadlines, timeKey(g.Due)+gameKey(g.Board))
	}
	return out
}

// countKeys are the counts g adds one to: every game and its state (the
// metrics); then in each scope its state, of everybody and of each
// player (countRunning or countFinished, cancelled games among the
// finished).
func countKeys(g *game) []string {
	out := []string{countGames}
	switch {
	case g.Status == StatusCancelled:
		out = append(out, countCancelled)
	case g.over():
		out = append(out, countFinished)
	default:
		out = append(out, countRunning)
	}
	state := countRunning
	if g.over() {
		state = countFinished
	}
	for _, scope := range g.scopes() {
		out = append(out, scopeCount("", scope, state))
		for _, p := range g.Players {
			if k := scopeCount(strings.ToLower(p), scope, state); !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	return out
}

// scopeCount is the count key of the games in scope and state (countRunning
// or countFinished) of player key, of everybody for "".
func scopeCount(key, scope, state string) string {
	if key == "" {
		return "scope " + scope + " " + state
	}
	return "player " + key + " " + scope + " " + state
}

// indexGame moves g's index entries from those of old (nil: a new record)
// to its own, writing only what changed.
func indexGame(tx Tx, old, g *game) error {
	if err := indexTokenExpiry(tx, old, g); err != nil {
		return err
	}
	if err := indexSummary(tx, old, g); err != nil {
		return err
	}
	var was map[string][]string
	var wasCounts []string
	if old != nil {
		was, wasCounts = indexKeys(old), countKeys(old)
	}
	now := indexKeys(g)
	for _, bucket := range gameIndexes {
		for _, k := range was[bucket] {
			if !slices.Contains(now[bucket], k) {
				if err := tx.Delete(bucket, k); err != nil {
					return err
				}
			}
		}
		for _, k := range now[bucket] {
			if !slices.Contains(was[bucket], k) {
				if err := tx.Put(bucket, k, nil); err != nil {
					return err
				}
			}
		}
	}
	delta := map[string]int{}
	for _, k := range wasCounts {
		delta[k]--
	}
	for _, k := range countKeys(g) {
		delta[k]++
	}
	return addCounts(tx, delta)
}

// addCounts adds each delta to its count, in key order so that the writes
// are the same from run to run; a zero delta writes nothing.
func addCounts(tx Tx, delta map[string]int) error {
	for _, k := range slices.Sorted(maps.Keys(delta)) {
		if delta[k] == 0 {
			continue
		}
		n, err := count(tx, k)
		if err != nil {
			return err
		}
		if err := putCount(tx, k, n+delta[k]); err != nil {
			return err
		}
	}
	return nil
}

// count reads a count; an absent one is zero.
func count(tx Tx, key string) (int, error) {
	b, err := tx.Get(bucketCounts, key)
	if err != nil || b == nil {
		return 0, err
	}
	n, err := strconv.Atoi(string(b))
	if err != nil {
		return 0, fmt.Errorf("engine: counts/%s: %q is no count", key, b)
	}
	return n, nil
}

// putCount writes a count in decimal ASCII; zero deletes it, so that a
// player without games leaves no count behind.
func putCount(tx Tx, key string, n int) error {
	if n == 0 {
		return tx.Delete(bucketCounts, key)
	}
	return tx.Put(bucketCounts, key, []byte(strconv.Itoa(n)))
}

// errEnough ends a scan of an index that has found what it looks for.
var errEnough = errors.New("engine: enough")

// scanPrefix calls fn with the rest of each key of bucket that starts with
// prefix, in key order, until fn returns errEnough (not an error) or
// another error (returned).
func scanPrefix(tx Tx, bucket, prefix string, fn func(rest string) error) error {
	err := tx.Scan(bucket, prefix, func(key string, _ []byte) error {
		rest, ok := strings.CutPrefix(key, prefix)
		if !ok {
			return errEnough
		}
		return fn(rest)
	})
	if errors.Is(err, errEnough) {
		return nil
	}
	return err
}

// GameCounts are the numbers of game records by state (the metrics).
type GameCounts struct {
	Games     int // every game record
	Running   int
	Finished  int // won or tied
	Cancelled int
}

// Counts reads the counts of every game, without reading a game.
func Counts(tx Tx) (GameCounts, error) {
	var c GameCounts
	for _, f := range []struct {
		key string
		n   *int
	}{{countGames, &c.Games}, {countRunning, &c.Running}, {countFinished, &c.Finished}, {countCancelled, &c.Cancelled}} {
		n, err := count(tx, f.key)
		if err != nil {
			return c, err
		}
		*f.n = n
	}
	return c, nil
}

// wantIndexes computes every index and count from a full scan of the
// records they index: what CheckIndexes compares with.
func wantIndexes(tx Tx) (map[string]map[string]string, error) {
	want := map[string]map[string]string{}
	for _, b := range indexBuckets {
		want[b] = map[string]string{}
	}
	counts := map[string]int{}
	err := tx.ForEach(bucketGames, func(key string, val []byte) error {
		g := new(game)
		if err := json.Unmarshal(val, g); err != nil {
			return fmt.Errorf("engine: games/%s: %w", key, err)
		}
		for bucket, keys := range indexKeys(g) {
			for _, k := range keys {
				want[bucket][k] = ""
			}
		}
		for _, k := range countKeys(g) {
			counts[k]++
		}
		v, err := summaryValue(g)
		want[bucketSummaries][key] = string(v)
		return err
	})
	if err != nil {
		return nil, err
	}
	err = tx.ForEach(bucketUsers, func(key string, val []byte) error {
		u := new(user)
		if err := json.Unmarshal(val, u); err != nil {
			return fmt.Errorf("engine: users/%s: %w", key, err)
		}
		if k := recipientKey(u); k != "" {
			want[bucketRecipients][k] = ""
		}
		for _, k := range ratingKeys(u) {
			want[bucketRatings][k] = string(ratingValue(u, wordOfRating(k)))
			counts[standingsCount(wordOfRating(k))]++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for k, c := range counts {
		want[bucketCounts][k] = strconv.Itoa(c)
	}
	err = tx.ForEach(bucketTournaments, func(key string, val []byte) error {
		t := new(tourney)
		if err := json.Unmarshal(val, t); err != nil {
			return fmt.Errorf("engine: tournaments/%s: %w", key, err)
		}
		for _, k := range t.indexKeys() {
			want[bucketTourIndex][k] = ""
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return want, wantExpiry(tx, want)
}

// CheckIndexes compares every index and count with a full scan of the
// records they index (lyngk admin check: the one full scan left, for
// operators). It returns one line for each difference, none when the
// indexes are right.
func CheckIndexes(tx Tx) ([]string, error) {
	want, err := wantIndexes(tx)
	if err != nil {
		return nil, err
	}
	var diffs []string
	for _, bucket := range indexBuckets {
		got := map[string]string{}
		err := tx.ForEach(bucket, func(key string, val []byte) error {
			got[key] = string(val)
			return nil
		})
		if err != nil {
			return nil, err
		}
		for _, k := range slices.Sorted(maps.Keys(want[bucket])) {
			switch v, ok := got[k]; {
			case !ok:
				diffs = append(diffs, fmt.Sprintf("%s: missing %q", bucket, k))
			case v != want[bucket][k]:
				diffs = append(diffs, fmt.Sprintf("%s: %q is %q, the games say %q", bucket, k, v, want[bucket][k]))
			}
		}
		for _, k := range slices.Sorted(maps.Keys(got)) {
			if _, ok := want[bucket][k]; !ok {
				diffs = append(diffs, fmt.Sprintf("%s: %q is of no game", bucket, k))
			}
		}
	}
	return diffs, nil
}

// ownGames reads the games user key plays while they run and those he
// subscribes to (signoff and delete), by board: what the user's byplayer
// keys name, not every game.
func (r *request) ownGames(key string) ([]*game, error) {
	var boards []int
	for _, mark := range []string{markRunning, markSubscribed} {
		err := scanPrefix(r.tx, bucketByPlayer, playerPrefix(key, allScope)+mark, func(rest string) error {
			n, err := boardOfInv(rest)
			boards = append(boards, n)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	slices.Sort(boards)
	var gs []*game
	for _, b := range slices.Compact(boards) {
		g, ok, err := r.loadGame(b)
		if err != nil {
			return nil, err
		}
		if ok {
			gs = append(gs, g)
		}
	}
	return gs, nil
}

// ratingKey orders a game's standings: the game's word, 0x00, the rating
// inverted (the best first; 16 hex digits of its float64 bits made to sort
// as numbers), then the lower-cased userid (the first in order among
// equal ratings).
func ratingKey(word string, rating float64, key string) string {
	bits := math.Float64bits(rating)
	if rating >= 0 {
		bits ^= 1 << 63
	} else {
		bits = ^bits
	}
	return fmt.Sprintf("%s\x00%016x%s", word, ^bits, key)
}

// ratingKeys are u's lines of the standings: one for each game of which u
// has a finished game, unless u signed off.
func ratingKeys(u *user) []string {
	if u == nil || !u.Left.IsZero() {
		return nil
	}
	var out []string
	for word, s := range u.Games {
		if s.rated() > 0 {
			out = append(out, ratingKey(word, s.Rating, strings.ToLower(u.ID)))
		}
	}
	slices.Sort(out)
	return out
}

// standingLine is the value of a key of the standings (store schema
// version 7): what a line of the standings shows of the player, so that
// a page of them reads its keys and not the players' records.
type standingLine struct {
	ID      string    `json:"id"`
	Robot   bool      `json:"robot,omitempty"`
	Created time.Time `json:"created"`
	Rating  float64   `json:"r"`
	Won     int       `json:"w,omitempty"`
	Lost    int       `json:"l,omitempty"`
	Tied    int       `json:"t,omitempty"`
}

// ratingValue is the value of u's key of game word's standings.
func ratingValue(u *user, word string) []byte {
	s := u.in(word)
	b, _ := json.Marshal(standingLine{ID: u.ID, Robot: u.Robot, Created: u.Created.UTC(), Rating: s.Rating,
		Won: s.Won, Lost: s.Lost, Tied: s.Tied}) // no type of it fails
	return b
}

// wordOfRating is the game word of a key of the standings.
func wordOfRating(k string) string { return k[:strings.IndexByte(k, 0)] }

// standingsCount is the count key of game word's standings.
func standingsCount(word string) string { return "standings " + word }

// indexUser moves u's lines of the standings from those of old (nil: a
// new record) to its own.
func indexUser(tx Tx, old, u *user) error {
	if err := moveKey(tx, bucketExpiry, signupExpiry(old), signupExpiry(u)); err != nil {
		return err
	}
	if err := moveKey(tx, bucketRecipients, recipientKey(old), recipientKey(u)); err != nil {
		return err
	}
	was, now := ratingKeys(old), ratingKeys(u)
	for _, k := range was {
		if !slices.Contains(now, k) {
			if err := tx.Delete(bucketRatings, k); err != nil {
				return err
			}
		}
	}
	for _, k := range now {
		v := ratingValue(u, wordOfRating(k))
		if slices.Contains(was, k) && string(ratingValue(old, wordOfRating(k))) == string(v) {
			continue
		}
		if err := tx.Put(bucketRatings, k, v); err != nil {
			return err
		}
	}
	delta := map[string]int{}
	for _, k := range was {
		delta[standingsCount(k[:strings.IndexByte(k, 0)])]--
	}
	for _, k := range now {
		delta[standingsCount(k[:strings.IndexByte(k, 0)])]++
	}
	return addCounts(tx, delta)
}
