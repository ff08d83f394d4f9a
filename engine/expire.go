package engine

import (
	"encoding/json"
	"errors"
	"time"
)

// Expiry of what nobody needs any more: the store must not keep
// every reply token (about 1.7 KB a move) and every unconfirmed signup for
// good. Tick runs pruneStale, a pass at most once per pruneEvery.
const (
	// TokenKeep is how long the reply tokens of a finished game are kept
	// after its end: a reply to its board mails is answered "game over"
	// until then, and as an unknown board mail after.
	TokenKeep = 30 * 24 * time.Hour
	// SignupKeep is how long an account that never confirmed an address
	// is kept: then it is deleted and its userid is free again (its
	// confirmation codes are gone already, after confirmKeep).
	SignupKeep = confirmKeep
	// pruneEvery paces pruneStale's passes over every token and account.
	pruneEvery = time.Hour
)

// keyPruned is the key, in bucket meta, of pruneStale's progress
// (pruneState).
const keyPruned = "pruned"

// PruneBatch bounds the records (tokens and accounts) one pruneStale
// reads, so that no Tick holds the write lock long whatever the store
// holds: a pass over every token and account takes as many ticks as it
// needs, a minute apart, and starts again pruneEvery after the last one
// started.
const PruneBatch = 200

// pruneState is the record of meta/"pruned": when the last pass started,
// and where a pass under way goes on (the bucket, tokens, users, then
// addresses, and
// the key after the last one read). A record written before passes were
// split has Start alone: no pass under way.
type pruneState struct {
	V      int       `json:"v"`
	Start  time.Time `json:"start"`
	Bucket string    `json:"bucket,omitempty"`
	Next   string    `json:"next,omitempty"`
}

func (p *pruneState) version() int { return p.V }

// pruneStale deletes the tokens of games over for TokenKeep (and of games
// that no longer exist), the accounts that never confirmed an address
// within SignupKeep, and the records of addresses confirmed for nobody
// whose day of confirmation mails is over (nothing of such an address is
// kept: a deleted account's, one a signup named and never confirmed), at
// most PruneBatch records read a call.
func pruneStale(tx Tx, now time.Time) error {
	var st pruneState
	if _, err := load(tx, bucketMeta, keyPruned, &st); err != nil {
		return err
	}
	if st.Bucket == "" {
		if now.Sub(st.Start) < pruneEvery && !now.Before(st.Start) {
			return nil
		}
		st = pruneState{Start: now, Bucket: bucketTokens}
	}
	games := map[int]*game{} // the games of the batch's tokens; nil: none
	budget := PruneBatch
	for budget > 0 && st.Bucket != "" {
		var drop []string
		done := true
		err := tx.Scan(st.Bucket, st.Next, func(key string, val []byte) error {
			if budget == 0 {
				done = false
				return errEnough
			}
			budget--
			st.Next = key + "\x00"
			stale, err := isStale(tx, st.Bucket, val, now, games)
			if stale {
				drop = append(drop, key)
			}
			return err
		})
		if err != nil && !errors.Is(err, errEnough) {
			return err
		}
		for _, k := range drop {
			if err := tx.Delete(st.Bucket, k); err != nil {
				return err
			}
		}
		if done {
			st.Next = ""
			st.Bucket = map[string]string{bucketTokens: bucketUsers, bucketUsers: bucketAddresses}[st.Bucket]
		}
	}
	st.V = recordVersion
	return save(tx, bucketMeta, keyPruned, &st)
}

// isStale judges one record of pruneStale: a token of a game over for
// TokenKeep or of no game, an account that never confirmed an address
// within SignupKeep. A record that does not decode is not the prune's to
// judge (tokenGame refuses such a token). games caches the games read.
func isStale(tx Tx, bucket string, val []byte, now time.Time, games map[int]*game) (bool, error) {
	if bucket == bucketAddresses {
		var a address
		return json.Unmarshal(val, &a) == nil && len(a.Users) == 0 && now.Sub(a.Start) >= confirmWindow, nil
	}
	if bucket == bucketUsers {
		var u user
		if json.Unmarshal(val, &u) != nil {
			return false, nil
		}
		return !u.Robot && len(u.Addresses) == 0 && u.Left.IsZero() && u.Deleted.IsZero() && u.rated() == 0 &&
			now.Sub(u.Created) >= SignupKeep, nil
	}
	var t struct {
		Board int `json:"board"`
	}
	if json.Unmarshal(val, &t) != nil {
		return false, nil
	}
	g, ok := games[t.Board]
	if !ok {
		b, err := tx.Get(bucketGames, gameKey(t.Board))
		if err != nil {
			return false, err
		}
		if b != nil {
			g = new(game)
			if json.Unmarshal(b, g) != nil {
				g.Status = StatusPlaying // unreadable: kept, as a running game's
			}
		}
		games[t.Board] = g
	}
	return g == nil || g.over() && now.Sub(g.Ended) >= TokenKeep, nil
}
