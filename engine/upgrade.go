package engine

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Upgrade brings the engine's records of a store written with schema
// version from up to the current version, inside the store's upgrade
// transaction (store.Options.Upgrade). unnamed is the word of the game of
// the records that name none: the one game of the releases before other
// games were offered (cmd/lyngk passes LYNGK's).
//
// From version 1, which had no confirmation, the addresses of every
// account that has not signed off count as confirmed and go into the index
// of confirmed addresses. From version 2, every game record without its
// game gets unnamed, and a user's standing in it moves from the record's
// own fields (rating, won, lost, tied) into the per-game map; a user who
// never finished a game of it keeps none, which reads as the start rating
// as before. From version 3, the indexes of the game records (index.go) are
// built from a full scan, written in key order; logf, when not nil, hears
// the progress (a million games take a few minutes). From version 4, the
// expiry indexes (expire.go) and the recipients of a broadcast
// (message.go) are built alike, and the prune's cursor of
// version 4 (meta/"pruned": the prune read every record then) goes.
func Upgrade(tx Tx, from int, unnamed string, logf func(format string, args ...any)) error {
	switch {
	case from < 1 || from > 4:
		return fmt.Errorf("engine: no upgrade from schema version %d", from)
	case !validGameWord(unnamed):
		return fmt.Errorf("engine: upgrade: %q is no game word", unnamed)
	}
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
	if err := tx.Delete(bucketMeta, keyPruned); err != nil {
		return err
	}
	if from == 4 {
		return buildIndexes(tx, indexesOf5, logf)
	}
	return buildIndexes(tx, indexBuckets, logf)
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
