package engine

import (
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strings"
	"time"
)

// Expiry of what nobody needs any more: the store must not keep
// every reply token (about 1.7 KB a move), every unconfirmed signup and
// every confirmation code for good. Tick runs pruneStale, which reads the expiry index up to now:
// what expired and nothing else.
const (
	// TokenKeep is how long the reply tokens of a finished game are kept
	// after its end: a reply to its board mails is answered "game over"
	// until then, and as an unknown board mail after.
	TokenKeep = 30 * 24 * time.Hour
	// SignupKeep is how long an account that never confirmed an address
	// is kept: then it is deleted and its userid is free again (its
	// confirmation codes are gone already, after confirmKeep).
	SignupKeep = confirmKeep
)

// PruneBatch bounds the records (tokens, accounts, addresses) one
// pruneStale deletes, so that no Tick holds the write lock long however
// much expired at once: the rest goes at the next ticks, a minute apart.
// A tick prunes what expired since the last, about 15 tokens a minute at
// a million games over ten years, so 50 keeps up with more than three
// times that; a backlog (the server down for an hour) drains at 50 a
// minute. At 200 the tick after an hour's pause held the write lock
// 29.5 ms at a million games, over daemon.WriteBound (deploy/BENCHMARKS.md).
const PruneBatch = 50

// The expiry indexes (store schema version 5), kept in the transaction of
// the records they index, like index.go's:
//
//   - gametokens: a key for each reply token, its board first (gameKey,
//     then the token), so that a game's tokens are a key range;
//   - expiry: a key for each thing the prune deletes, by the time it
//     expires (timeKey), then its kind and name: a finished game that has
//     tokens (expiryTokens, its board: expires TokenKeep after its end),
//     an account that confirmed no address (expirySignup, its userid:
//     SignupKeep after its creation), an address confirmed for nobody
//     (expiryAddress, the address: confirmWindow after its window's
//     start), and, since schema version 6, a confirmation code
//     (expiryConfirm, the code: confirmKeep after it was sent; a record
//     that does not decode at the zero time, at once).
//
// The expiry key of a game is there while the game is over and has a
// token: saveToken adds it for the first token of a finished game,
// indexTokenExpiry when a game with tokens ends, pruneStale deletes it
// with the last token.
const (
	bucketGameTokens = "gametokens"
	bucketExpiry     = "expiry"
	expiryTokens     = "t"
	expirySignup     = "u"
	expiryAddress    = "a"
	expiryConfirm    = "c"
)

// keyPruned is the key, in bucket meta, of the prune's cursor of schema
// version 4, which the upgrade deletes.
const keyPruned = "pruned"

// tokenExpiry is g's key in expiry if g is over and has a token, "" if
// it runs.
func tokenExpiry(g *game) string {
	if g == nil || !g.over() {
		return ""
	}
	return timeKey(g.Ended.Add(TokenKeep)) + expiryTokens + gameKey(g.Board)
}

// signupExpiry is u's key in expiry while u is an account that never
// confirmed an address, "" otherwise.
func signupExpiry(u *user) string {
	if u == nil || u.Robot || len(u.Addresses) > 0 || !u.Left.IsZero() || !u.Deleted.IsZero() || u.rated() > 0 {
		return ""
	}
	return timeKey(u.Created.Add(SignupKeep)) + expirySignup + strings.ToLower(u.ID)
}

// addressExpiry is the key in expiry of the address record a of address
// key while it is confirmed for nobody, "" otherwise.
func addressExpiry(key string, a *address) string {
	if a == nil || len(a.Users) > 0 {
		return ""
	}
	return timeKey(a.Start.Add(confirmWindow)) + expiryAddress + key
}

// confirmExpiry is the key in expiry of confirmation code code, whose
// record is c (nil: one that does not decode, pruned at once).
func confirmExpiry(code string, c *confirmation) string {
	var sent time.Time
	if c != nil {
		sent = c.Sent.Add(confirmKeep)
	}
	return timeKey(sent) + expiryConfirm + code
}

// confirmExpiryOf is confirmExpiry of the stored record val.
func confirmExpiryOf(code string, val []byte) string {
	c := new(confirmation)
	if json.Unmarshal(val, c) != nil {
		c = nil
	}
	return confirmExpiry(code, c)
}

// saveConfirm is every write of a confirmation code's record: the record
// and its key in expiry (the code's time never changes).
func saveConfirm(tx Tx, code string, c *confirmation) error {
	if err := save(tx, bucketConfirms, code, c); err != nil {
		return err
	}
	return tx.Put(bucketExpiry, confirmExpiry(code, c), nil)
}

// moveKey replaces the key was of bucket, an index of empty values, by
// now ("": none).
func moveKey(tx Tx, bucket, was, now string) error {
	if was == now {
		return nil
	}
	if was != "" {
		if err := tx.Delete(bucket, was); err != nil {
			return err
		}
	}
	if now != "" {
		return tx.Put(bucket, now, nil)
	}
	return nil
}

// hasTokens says whether board has a reply token.
func hasTokens(tx Tx, board int) (bool, error) {
	found := false
	err := scanPrefix(tx, bucketGameTokens, gameKey(board), func(string) error {
		found = true
		return errEnough
	})
	return found, err
}

// indexTokenExpiry moves the expiry key of g's tokens from old's (nil: a
// new record) to g's, if g has tokens (writeGame).
func indexTokenExpiry(tx Tx, old, g *game) error {
	was, now := tokenExpiry(old), tokenExpiry(g)
	if was == now {
		return nil
	}
	if now != "" {
		has, err := hasTokens(tx, g.Board)
		if err != nil {
			return err
		}
		if !has {
			now = ""
		}
	}
	return moveKey(tx, bucketExpiry, was, now)
}

// saveToken is every write of a token record: the record, its key in
// gametokens and, for the first token of a finished game, the game's key
// in expiry.
func saveToken(tx Tx, tok string, rec *token) error {
	has, err := hasTokens(tx, rec.Board)
	if err != nil {
		return err
	}
	if err := save(tx, bucketTokens, tok, rec); err != nil {
		return err
	}
	if err := tx.Put(bucketGameTokens, gameKey(rec.Board)+tok, nil); err != nil {
		return err
	}
	if has {
		return nil
	}
	g := new(game)
	if found, err := load(tx, bucketGames, gameKey(rec.Board), g); err != nil || !found {
		return err
	}
	if k := tokenExpiry(g); k != "" {
		return tx.Put(bucketExpiry, k, nil)
	}
	return nil
}

// saveAddress is every write of an address record: the record and its
// key in expiry.
func saveAddress(tx Tx, key string, a *address) error {
	var old *address
	if b, err := tx.Get(bucketAddresses, key); err != nil {
		return err
	} else if b != nil {
		old = new(address)
		if json.Unmarshal(b, old) != nil {
			old = nil
		}
	}
	if err := save(tx, bucketAddresses, key, a); err != nil {
		return err
	}
	return moveKey(tx, bucketExpiry, addressExpiry(key, old), addressExpiry(key, a))
}

// pruneStale deletes, at most PruneBatch records a call, what expired by
// now, reading the expiry index up to now and nothing else: the tokens of
// games over for TokenKeep, the accounts that never confirmed an address
// within SignupKeep, the records of addresses confirmed for nobody
// whose day of confirmation mails is over (nothing of such an address is
// kept: a deleted account's, one a signup named and never confirmed), and
// the confirmation codes sent confirmKeep ago, used or not.
func pruneStale(tx Tx, now time.Time) error {
	end := timeKey(now)
	var due []string
	err := tx.Scan(bucketExpiry, "", func(key string, _ []byte) error {
		if len(due) == PruneBatch || len(key) >= len(end) && key[:len(end)] > end {
			return errEnough
		}
		due = append(due, key)
		return nil
	})
	if err != nil && !errors.Is(err, errEnough) {
		return err
	}
	budget := PruneBatch
	for _, k := range due {
		if budget == 0 {
			break
		}
		var kind, name string // none for a key too short: of nothing, deleted
		if len(k) > len(end) {
			kind, name = k[len(end):len(end)+1], k[len(end)+1:]
		}
		if kind == expiryTokens {
			n, all, err := pruneTokens(tx, name, budget)
			if err != nil {
				return err
			}
			budget -= n
			if !all {
				break
			}
		} else {
			bucket := map[string]string{expirySignup: bucketUsers, expiryAddress: bucketAddresses, expiryConfirm: bucketConfirms}[kind]
			if bucket != "" {
				if err := tx.Delete(bucket, name); err != nil {
					return err
				}
			}
			budget--
		}
		if err := tx.Delete(bucketExpiry, k); err != nil {
			return err
		}
	}
	return nil
}

// pruneTokens deletes at most budget tokens of the game of board key
// (gameKey), and says how many and whether they were its last.
func pruneTokens(tx Tx, board string, budget int) (n int, all bool, err error) {
	var keys []string
	all = true
	err = scanPrefix(tx, bucketGameTokens, board, func(tok string) error {
		if len(keys) == budget {
			all = false
			return errEnough
		}
		keys = append(keys, tok)
		return nil
	})
	if err != nil {
		return 0, false, err
	}
	for _, tok := range keys {
		if err := tx.Delete(bucketTokens, tok); err != nil {
			return 0, false, err
		}
		if err := tx.Delete(bucketGameTokens, board+tok); err != nil {
			return 0, false, err
		}
	}
	return len(keys), all, nil
}

// wantExpiry adds to want the expiry indexes that the token, game, user,
// address and confirmation records call for (CheckIndexes).
func wantExpiry(tx Tx, want map[string]map[string]string) error {
	boards := map[int]bool{}
	err := tx.ForEach(bucketTokens, func(key string, val []byte) error {
		var t token
		if err := json.Unmarshal(val, &t); err != nil {
			return nil // not the index's: tokenGame refuses it
		}
		boards[t.Board] = true
		want[bucketGameTokens][gameKey(t.Board)+key] = ""
		return nil
	})
	if err != nil {
		return err
	}
	for _, b := range slices.Sorted(maps.Keys(boards)) {
		g := new(game)
		found, err := load(tx, bucketGames, gameKey(b), g)
		if err != nil {
			return err
		}
		if k := tokenExpiry(g); found && k != "" {
			want[bucketExpiry][k] = ""
		}
	}
	err = tx.ForEach(bucketUsers, func(key string, val []byte) error {
		u := new(user)
		if json.Unmarshal(val, u) == nil {
			if k := signupExpiry(u); k != "" {
				want[bucketExpiry][k] = ""
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = tx.ForEach(bucketAddresses, func(key string, val []byte) error {
		a := new(address)
		if json.Unmarshal(val, a) == nil {
			if k := addressExpiry(key, a); k != "" {
				want[bucketExpiry][k] = ""
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	return tx.ForEach(bucketConfirms, func(code string, val []byte) error {
		want[bucketExpiry][confirmExpiryOf(code, val)] = ""
		return nil
	})
}
