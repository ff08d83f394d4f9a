package engine

import (
	"errors"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
)

// pending holds back the writes of one mail until the mail has been
// handled whole (see [Engine.Handle]), so that a mail that fails halfway (a
// template that does not render, a record that does not decode, a panic)
// changes nothing. Reads see the mail's own writes. It also tells the two
// kinds of failure apart: an error the store returned is remembered in
// storeErr and aborts the caller's transaction; any other error belongs to
// the mail.
type pending struct {
	tx       Tx
	writes   map[string]map[string][]byte // bucket → key → value; nil: deleted
	storeErr error                        // the first error the store returned
}

func newPending(tx Tx) *pending {
	return &pending{tx: tx, writes: make(map[string]map[string][]byte)}
}

var _ Tx = (*pending)(nil)

// fromStore remembers err as a failure of the store and returns it.
func (p *pending) fromStore(err error) error {
	if err != nil && p.storeErr == nil {
		p.storeErr = err
	}
	return err
}

func (p *pending) Get(bucket, key string) ([]byte, error) {
	if v, ok := p.writes[bucket][key]; ok {
		return slices.Clone(v), nil // nil for a pending delete, as the store says for an absent key
	}
	v, err := p.tx.Get(bucket, key)
	return v, p.fromStore(err)
}

func (p *pending) Put(bucket, key string, val []byte) error {
	b := p.writes[bucket]
	if b == nil {
		b = make(map[string][]byte)
		p.writes[bucket] = b
	}
	v := slices.Clone(val)
	if v == nil {
		v = []byte{} // nil marks a delete
	}
	b[key] = v
	return nil
}

// Delete drops key when the mail has been handled whole.
func (p *pending) Delete(bucket, key string) error {
	b := p.writes[bucket]
	if b == nil {
		b = make(map[string][]byte)
		p.writes[bucket] = b
	}
	b[key] = nil
	return nil
}

// errStop ends the store's iteration when fn failed; fn's own error is
// returned instead.
var errStop = errors.New("engine: iteration stopped")

// ForEach visits the stored keys and the pending ones in key order, a
// pending value in place of a stored one, and skips pending deletes.
func (p *pending) ForEach(bucket string, fn func(key string, val []byte) error) error {
	return p.Scan(bucket, "", fn)
}

// Scan is ForEach from the first key at or after from.
func (p *pending) Scan(bucket, from string, fn func(key string, val []byte) error) error {
	w := p.writes[bucket]
	keys := slices.DeleteFunc(slices.Sorted(maps.Keys(w)), func(k string) bool { return k < from })
	i := 0
	var fnErr error
	call := func(k string, v []byte) bool {
		if v == nil {
			return true
		}
		fnErr = fn(k, v)
		return fnErr == nil
	}
	err := p.tx.Scan(bucket, from, func(k string, v []byte) error {
		for ; i < len(keys) && keys[i] < k; i++ {
			if !call(keys[i], w[keys[i]]) {
				return errStop
			}
		}
		if v == nil {
			v = []byte{} // a stored empty value (the indexes'), not a pending delete
		}
		if i < len(keys) && keys[i] == k {
			v = w[k]
			i++
		}
		if !call(k, v) {
			return errStop
		}
		return nil
	})
	if fnErr != nil {
		return fnErr
	}
	if err != nil {
		return p.fromStore(err)
	}
	for ; i < len(keys); i++ {
		if !call(keys[i], w[keys[i]]) {
			return fnErr
		}
	}
	return nil
}

// commit writes the pending values to the store, in a fixed order.
func (p *pending) commit() error {
	for _, bucket := range slices.Sorted(maps.Keys(p.writes)) {
		if err := p.commitBucket(bucket); err != nil {
			return err
		}
	}
	return nil
}

func (p *pending) commitBucket(bucket string) error {
	w := p.writes[bucket]
	for _, key := range slices.Sorted(maps.Keys(w)) {
		var err error
		if w[key] == nil {
			err = p.tx.Delete(bucket, key)
		} else {
			err = p.tx.Put(bucket, key, w[key])
		}
		if err != nil {
			return p.fromStore(err)
		}
	}
	delete(p.writes, bucket)
	return nil
}

// guard runs f and turns a panic into an error that carries the stack.
func guard(f func() error) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("engine: panic: %v\n%s", v, debug.Stack())
		}
	}()
	return f()
}
