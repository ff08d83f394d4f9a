// Package bounded is a cache of bounded size, safe for concurrent use:
// the engine's pictures, a picture's sprites and compressed bands.
package bounded

import "sync"

// Cache is a bounded cache by key: when what it holds reaches half its
// budget, that becomes the old generation and the one before is dropped,
// so it holds at most about budget bytes and keeps what is in use. It is
// safe for concurrent use; a value is made at most once per miss (two
// goroutines missing the same key at once may both make it).
type Cache[V any] struct {
	budget   int
	size     func(V) int
	mu       sync.Mutex
	cur, old map[string]V
	curSize  int
	hits     int
	misses   int
}

// New makes a cache of about budget bytes, size telling each value's.
func New[V any](budget int, size func(V) int) *Cache[V] {
	return &Cache[V]{budget: budget, size: size, cur: map[string]V{}}
}

// Get returns the value of key, made by make if it is not held.
func (c *Cache[V]) Get(key string, make func() V) V {
	if v, ok := c.Lookup(key); ok {
		return v
	}
	v := make()
	c.Put(key, v)
	return v
}

// Lookup returns the value held for key.
func (c *Cache[V]) Lookup(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.cur[key]; ok {
		c.hits++
		return v, true
	}
	v, ok := c.old[key]
	if ok {
		c.hits++
		c.add(key, v)
	} else {
		c.misses++
	}
	return v, ok
}

// Stats returns how many lookups found their key and how many did not.
func (c *Cache[V]) Stats() (hits, misses int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits, c.misses
}

// Put holds v for key.
func (c *Cache[V]) Put(key string, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.cur[key]; !ok {
		c.add(key, v)
	}
}

// Len is the number of values held.
func (c *Cache[V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(c.cur)
	for k := range c.old {
		if _, ok := c.cur[k]; !ok {
			n++
		}
	}
	return n
}

func (c *Cache[V]) add(key string, v V) {
	c.cur[key] = v
	c.curSize += c.size(v) + len(key)
	if c.curSize >= c.budget/2 {
		c.old, c.cur, c.curSize = c.cur, map[string]V{}, 0
	}
}
