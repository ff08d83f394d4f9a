package engine

import (
	"encoding/json"
	"time"
)

// Expiry of what nobody needs any more: the store must not keep
// every reply token (about 1.7 KB a move) and every unconfirmed signup for
// good. Tick runs pruneStale at most once per pruneEvery.
const (
	// TokenKeep is how long the reply tokens of a finished game are kept
	// after its end: a reply to its board mails is answered "game over"
	// until then, and as an unknown board mail after.
	TokenKeep = 30 * 24 * time.Hour
	// SignupKeep is how long an account that never confirmed an address
	// is kept: then it is deleted and its userid is free again (its
	// confirmation codes are gone already, after confirmKeep).
	SignupKeep = confirmKeep
	// pruneEvery paces pruneStale: it reads every token and account.
	pruneEvery = time.Hour
)

// keyPruned is the key, in bucket meta, of the time pruneStale last ran.
const keyPruned = "pruned"

// pruneStale deletes the tokens of games over for TokenKeep (and of games
// that no longer exist), and the accounts that never confirmed an address
// within SignupKeep; over is the end of each finished game by board, kept
// the boards of every other game record (running, or not readable).
func pruneStale(tx Tx, now time.Time, over map[int]time.Time, kept map[int]bool) error {
	var last rateCount
	if _, err := load(tx, bucketMeta, keyPruned, &last); err != nil {
		return err
	}
	if now.Sub(last.Start) < pruneEvery && !now.Before(last.Start) {
		return nil
	}
	var tokens, users []string
	err := tx.ForEach(bucketTokens, func(key string, val []byte) error {
		var t struct {
			Board int `json:"board"`
		}
		if json.Unmarshal(val, &t) != nil {
			return nil // not ours to judge: tokenGame refuses it
		}
		if ended, ok := over[t.Board]; ok && now.Sub(ended) >= TokenKeep || !ok && !kept[t.Board] {
			tokens = append(tokens, key)
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = tx.ForEach(bucketUsers, func(key string, val []byte) error {
		var u user
		if json.Unmarshal(val, &u) != nil {
			return nil
		}
		if !u.Robot && len(u.Addresses) == 0 && u.Left.IsZero() && u.Deleted.IsZero() && u.rated() == 0 &&
			now.Sub(u.Created) >= SignupKeep {
			users = append(users, key)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, k := range tokens {
		if err := tx.Delete(bucketTokens, k); err != nil {
			return err
		}
	}
	for _, k := range users {
		if err := tx.Delete(bucketUsers, k); err != nil {
			return err
		}
	}
	return save(tx, bucketMeta, keyPruned, &rateCount{V: recordVersion, Start: now})
}
