package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
)

// UpgradeBatch bounds the records one step of Upgrade reads: each step is
// a transaction of its own (store.Options.Upgrade), so that building the
// indexes of a million games never holds them all in memory at once.
const UpgradeBatch = 10000

// keyUpgrade is the key, in bucket meta, of the progress of an upgrade
// under way (upgradeState); it goes with the last step.
const keyUpgrade = "upgrade"

// upgradeState is the record of meta/"upgrade": the version upgraded
// from, the bucket whose records are being indexed (tokens, games, users,
// addresses, in this order) and the key after the last one read, and the
// records read so far (for the log).
type upgradeState struct {
	V      int    `json:"v"`
	From   int    `json:"from"`
	Bucket string `json:"bucket"`
	Next   string `json:"next,omitempty"`
	Read   int    `json:"read,omitempty"`
}

func (s *upgradeState) version() int { return s.V }

// Upgrade does one step of bringing the engine's records of a store
// written with schema version from up to the current version, inside a
// transaction of the store's upgrade (store.Options.Upgrade, which calls
// it until done and then writes the new version). Its progress is in
// meta/"upgrade", written in the transaction of each step, so an upgrade
// killed halfway goes on at the next start where it was. unnamed is the
// word of the game of the records that name none: the one game of the
// releases before other games were offered (cmd/lyngk passes LYNGK's).
//
// The first step converts the records of the older versions (in one
// transaction: those releases' stores were small). From version 1, which
// had no confirmation, the addresses of every account that has not signed
// off count as confirmed and go into the index of confirmed addresses.
// From version 2, every game record without its game gets unnamed, and a
// user's standing in it moves from the record's own fields (rating, won,
// lost, tied) into the per-game map; a user who never finished a game of
// it keeps none, which reads as the start rating as before. Version 4's
// prune cursor (meta/"pruned": the prune read every record then) goes.
// Then each step indexes at most UpgradeBatch records of one bucket:
// tokens (gametokens, and expiry for a finished game), from versions
// before 4 games (the indexes and counts of index.go), users (from
// versions before 4 the standings; the signups in expiry, recipients),
// addresses (expiry) and confirmation codes (expiry, new in version 6:
// from version 5 the upgrade reads them, a few days' signups). Every
// upgrade reads the games and users (from version 4 on for their lines of
// the listings, bucket summaries, and of the standings, the values of
// ratings, new in version 7). logf, when not
// nil, hears the progress (a million games take a few minutes).
func Upgrade(tx Tx, from int, unnamed string, logf func(format string, args ...any)) (done bool, err error) {
	switch {
	case from < 1 || from > 6:
		return false, fmt.Errorf("engine: no upgrade from schema version %d", from)
	case !validGameWord(unnamed):
		return false, fmt.Errorf("engine: upgrade: %q is no game word", unnamed)
	}
	var st upgradeState
	found, err := load(tx, bucketMeta, keyUpgrade, &st)
	if err != nil {
		return false, err
	}
	if !found || st.From != from {
		if err := convertRecords(tx, from, unnamed); err != nil {
			return false, err
		}
		if logf != nil {
			logf("engine: upgrade from schema version %d: building the indexes, %d records a step", from, UpgradeBatch)
		}
		st = upgradeState{V: recordVersion, From: from, Bucket: upgradeOrder(from)[0]}
		return false, save(tx, bucketMeta, keyUpgrade, &st)
	}
	n, err := indexBatch(tx, &st)
	if err != nil {
		return false, err
	}
	if st.Read += n; logf != nil && (st.Read/100000 > (st.Read-n)/100000 || st.Next == "") {
		logf("engine: upgrade: %s: %d records read", st.Bucket, st.Read)
	}
	if st.Next == "" {
		st.Read = 0
		order := upgradeOrder(from)
		i := slices.Index(order, st.Bucket)
		if i < 0 {
			return false, fmt.Errorf("engine: upgrade: meta/%s: %q is no bucket of the upgrade", keyUpgrade, st.Bucket)
		}
		st.Bucket = ""
		if i+1 < len(order) {
			st.Bucket = order[i+1]
		}
	}
	if st.Bucket == "" {
		if logf != nil {
			logf("engine: upgrade from schema version %d: indexes built", from)
		}
		return true, tx.Delete(bucketMeta, keyUpgrade)
	}
	return false, save(tx, bucketMeta, keyUpgrade, &st)
}

// upgradeOrder is the buckets whose records an upgrade from version from
// reads, in order: from version 5 the confirmation codes (version 6), and
// from 6 the games and users alone (version 7: the lines of the listings
// and of the standings).
func upgradeOrder(from int) []string {
	switch from {
	case 6:
		return []string{bucketGames, bucketUsers}
	case 5:
		return []string{bucketConfirms, bucketGames, bucketUsers}
	}
	return []string{bucketTokens, bucketGames, bucketUsers, bucketAddresses, bucketConfirms}
}

// convertRecords is Upgrade's first step: the records of the versions
// before 3 converted, version 4's prune cursor deleted.
func convertRecords(tx Tx, from int, unnamed string) error {
	r := &request{tx: tx}
	if from == 1 {
		err := eachKey(tx, bucketUsers, func(key string) error {
			u, _, err := r.loadUser(key)
			if err != nil || !u.Left.IsZero() {
				return err
			}
			for _, a := range u.Addresses {
				if err := r.index(a, key, true); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	if from <= 2 {
		if err := upgradeGames(tx, r, unnamed); err != nil {
			return err
		}
	}
	return tx.Delete(bucketMeta, keyPruned)
}

// indexBatch indexes at most UpgradeBatch records of st.Bucket from
// st.Next on, moves st.Next past them ("" when the bucket is done) and
// says how many it read. The counts of the batch are added to those
// written: the index buckets were empty when the upgrade began, and
// each batch commits with the progress that says it is done.
func indexBatch(tx Tx, st *upgradeState) (int, error) {
	n := 0
	counts := map[string]int{}
	games := map[int]*game{} // of the batch's tokens; nil: none
	err := tx.Scan(st.Bucket, st.Next, func(key string, val []byte) error {
		if n == UpgradeBatch {
			return errEnough
		}
		n++
		st.Next = key + "\x00"
		put := func(bucket, k string) error { return tx.Put(bucket, k, nil) }
		switch st.Bucket {
		case bucketTokens:
			var t token
			if json.Unmarshal(val, &t) != nil {
				return nil // not the index's: tokenGame refuses it
			}
			if err := put(bucketGameTokens, gameKey(t.Board)+key); err != nil {
				return err
			}
			g, ok := games[t.Board]
			if !ok {
				g = new(game)
				if found, err := load(tx, bucketGames, gameKey(t.Board), g); err != nil {
					return err
				} else if !found {
					g = nil
				}
				games[t.Board] = g
			}
			if k := tokenExpiry(g); k != "" {
				return put(bucketExpiry, k)
			}
		case bucketGames:
			g := new(game)
			if err := json.Unmarshal(val, g); err != nil {
				return fmt.Errorf("engine: games/%s: %w", key, err)
			}
			v, err := summaryValue(g)
			if err != nil {
				return err
			}
			if err := tx.Put(bucketSummaries, key, v); err != nil {
				return err
			}
			if st.From >= 4 {
				return nil // the indexes are there
			}
			for bucket, keys := range indexKeys(g) {
				for _, k := range keys {
					if err := put(bucket, k); err != nil {
						return err
					}
				}
			}
			for _, k := range countKeys(g) {
				counts[k]++
			}
		case bucketUsers:
			u := new(user)
			if err := json.Unmarshal(val, u); err != nil {
				return fmt.Errorf("engine: users/%s: %w", key, err)
			}
			for _, k := range ratingKeys(u) {
				if err := tx.Put(bucketRatings, k, ratingValue(u, wordOfRating(k))); err != nil {
					return err
				}
				if st.From < 4 {
					counts[standingsCount(wordOfRating(k))]++
				}
			}
			if k := signupExpiry(u); k != "" {
				if err := put(bucketExpiry, k); err != nil {
					return err
				}
			}
			if k := recipientKey(u); k != "" {
				return put(bucketRecipients, k)
			}
		case bucketAddresses:
			a := new(address)
			if json.Unmarshal(val, a) == nil {
				if k := addressExpiry(key, a); k != "" {
					return put(bucketExpiry, k)
				}
			}
		case bucketConfirms:
			return put(bucketExpiry, confirmExpiryOf(key, val))
		}
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		return 0, err
	}
	if err == nil {
		st.Next = ""
	}
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		c, err := count(tx, k)
		if err != nil {
			return 0, err
		}
		if err := putCount(tx, k, c+counts[k]); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// upgradeGames names the game of every record and moves the users'
// standings into the per-game map (version 2 to 3).
func upgradeGames(tx Tx, r *request, unnamed string) error {
	err := eachKey(tx, bucketUsers, func(key string) error {
		u, _, err := r.loadUser(key)
		if err != nil {
			return err
		}
		// The standing of version 2's records: the user record's own
		// fields, which type user no longer has.
		b, err := tx.Get(bucketUsers, key)
		if err != nil {
			return err
		}
		var s standing
		if err := json.Unmarshal(b, &s); err != nil {
			return fmt.Errorf("engine: users/%s: %w", key, err)
		}
		if s.rated() > 0 && u.Games[unnamed] == nil {
			u.set(unnamed, s)
		}
		u.V = recordVersion
		return save(tx, bucketUsers, key, u)
	})
	if err != nil {
		return err
	}
	return eachKey(tx, bucketGames, func(key string) error {
		board, err := strconv.Atoi(key)
		if err != nil {
			return fmt.Errorf("engine: games/%s: not a board number", key)
		}
		g, _, err := r.loadGame(board)
		if err != nil || g.Game != "" {
			return err
		}
		g.Game = unnamed
		return save(tx, bucketGames, key, g)
	})
}

// eachKey calls f with each key of bucket, read before the first call, so
// that f may write the bucket.
func eachKey(tx Tx, bucket string, f func(key string) error) error {
	var keys []string
	err := tx.ForEach(bucket, func(key string, _ []byte) error {
		keys = append(keys, key)
		return nil
	})
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := f(k); err != nil {
			return err
		}
	}
	return nil
}
