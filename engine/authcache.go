package engine

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"sync"

	"golang.org/x/crypto/bcrypt"
)

// authCache remembers what bcrypt said about passwords, so that a player
// who moves by full command pays bcrypt's deliberate slowness (tens of
// milliseconds) once per process rather than on every move, and so that
// the verdicts of checks run before the store's write transaction
// ([Engine.Verify]) reach the transaction without a second run.
//
// It keeps, per stored hash, an HMAC-SHA256 of the password bcrypt
// accepted, and a set of (hash, HMAC) pairs it refused, under a key drawn
// from crypto/rand at start and never stored: nothing in it can be turned
// back into a password, and it lives in memory only. A changed password has
// a new hash, so an old entry can never match it. A hash accepts exactly
// one password of at most 72 bytes, so a known hash refuses every other
// password without bcrypt. Both maps are bounded; when one is full it is
// simply emptied.
type authCache struct {
	mu    sync.Mutex
	key   [32]byte
	seen  map[string][sha256.Size]byte   // bcrypt hash -> HMAC(password)
	wrong map[wrongKey]struct{}          // (hash, HMAC(password)) bcrypt refused
	made  map[[sha256.Size]byte][]string // HMAC(new password) -> hashes made for it, unused yet
}

type wrongKey struct {
	hash string
	mac  [sha256.Size]byte
}

const authCacheMax = 10000

func newAuthCache() (*authCache, error) {
	c := &authCache{seen: map[string][sha256.Size]byte{}, wrong: map[wrongKey]struct{}{},
		made: map[[sha256.Size]byte][]string{}}
	if _, err := rand.Read(c.key[:]); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *authCache) mac(password string) [sha256.Size]byte {
	h := hmac.New(sha256.New, c.key[:])
	h.Write([]byte(password))
	var out [sha256.Size]byte
	copy(out[:], h.Sum(nil))
	return out
}

// maxPassword is bcrypt's limit; no stored password is longer (see
// validPassword), so a longer one is wrong without a check.
const maxPassword = 72

// lookup answers from memory: known says whether it could, ok whether the
// password matches the hash.
func (c *authCache) lookup(hash, password string) (ok, known bool) {
	if len(password) > maxPassword {
		return false, true
	}
	m := c.mac(password)
	c.mu.Lock()
	defer c.mu.Unlock()
	if good, found := c.seen[hash]; found {
		return hmac.Equal(good[:], m[:]), true
	}
	_, bad := c.wrong[wrongKey{hash, m}]
	return false, bad
}

// check reports whether password matches the bcrypt hash, from memory when
// it can, else by running bcrypt and remembering the verdict.
func (c *authCache) check(hash, password string) bool {
	if ok, known := c.lookup(hash, password); known {
		return ok
	}
	m := c.mac(password)
	ok := bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) == nil
	c.mu.Lock()
	defer c.mu.Unlock()
	if ok {
		c.storeLocked(hash, m)
	} else {
		if len(c.wrong) >= authCacheMax {
			clear(c.wrong)
		}
		c.wrong[wrongKey{hash, m}] = struct{}{}
	}
	return ok
}

// make hashes a new password ahead of the transaction that stores it, and
// keeps the hash for take.
func (c *authCache) make(password string, cost int) {
	h, err := bcrypt.GenerateFromPassword([]byte(password), cost)
	if err != nil {
		return // too long: Handle refuses it anyway
	}
	m := c.mac(password)
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.made) >= authCacheMax {
		clear(c.made)
	}
	c.made[m] = append(c.made[m], string(h))
	c.storeLocked(string(h), m)
}

// take returns a hash made for password, once: two accounts with the same
// password get different salts.
func (c *authCache) take(password string) (string, bool) {
	m := c.mac(password)
	c.mu.Lock()
	defer c.mu.Unlock()
	hs := c.made[m]
	if len(hs) == 0 {
		return "", false
	}
	if len(hs) == 1 {
		delete(c.made, m)
	} else {
		c.made[m] = hs[1:]
	}
	return hs[0], true
}

// remember records a password just hashed. Should the transaction that
// stores the hash roll back, the entry matches no stored hash and is
// harmless.
func (c *authCache) remember(hash, password string) {
	m := c.mac(password)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.storeLocked(hash, m)
}

func (c *authCache) storeLocked(hash string, m [sha256.Size]byte) {
	if len(c.seen) >= authCacheMax {
		clear(c.seen)
	}
	c.seen[hash] = m
}
