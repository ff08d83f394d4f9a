package engine

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"sync"

	"golang.org/x/crypto/bcrypt"
)

// authCache remembers passwords that bcrypt has already accepted, so that a
// player who moves by full command pays bcrypt's deliberate slowness (tens
// of milliseconds) once per process rather than on every move; without it
// the password check alone would take most of a reply's time budget and cap
// the server at a few dozen moves per second.
//
// It keeps, per stored hash, an HMAC-SHA256 of the password under a key
// drawn from crypto/rand at start and never stored: nothing in it can be
// turned back into a password, and it lives in memory only. A changed
// password has a new hash, so an old entry can never match it. The cache
// is bounded; when full it is simply emptied.
type authCache struct {
	mu   sync.Mutex
	key  [32]byte
	seen map[string][sha256.Size]byte // bcrypt hash -> HMAC(password)
}

const authCacheMax = 10000

func newAuthCache() (*authCache, error) {
	c := &authCache{seen: map[string][sha256.Size]byte{}}
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

// check reports whether password matches the bcrypt hash.
func (c *authCache) check(hash, password string) bool {
	m := c.mac(password)
	c.mu.Lock()
	known, ok := c.seen[hash]
	c.mu.Unlock()
	if ok && hmac.Equal(known[:], m[:]) {
		return true
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) != nil {
		return false
	}
	c.store(hash, m)
	return true
}

// remember records a password just hashed. Should the transaction that
// stores the hash roll back, the entry matches no stored hash and is
// harmless.
func (c *authCache) remember(hash, password string) { c.store(hash, c.mac(password)) }

func (c *authCache) store(hash string, m [sha256.Size]byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.seen) >= authCacheMax {
		clear(c.seen)
	}
	c.seen[hash] = m
}
