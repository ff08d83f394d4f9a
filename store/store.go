package store

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Engine-owned buckets: the engine chooses keys and encodes values.
const (
	BucketUsers     = "users"
	BucketGames     = "games"
	BucketTokens    = "tokens"
	BucketRate      = "rate"
	BucketStrangers = "strangers"
	BucketMeta      = "meta"
	BucketRobot     = "robot"
	// BucketAddresses and BucketConfirms came with schema version 2.
	BucketAddresses = "addresses"
	BucketConfirms  = "confirms"
	// BucketBounces came later; Open adds it to an older file.
	BucketBounces = "bounces"
	// The indexes of the game records (schema version 4): the engine
	// writes them in the transaction that writes the record.
	BucketByPlayer  = "byplayer"
	BucketRunning   = "running"
	BucketDeadlines = "deadlines"
	BucketEnded     = "ended"
	BucketCounts    = "counts"
	BucketRatings   = "ratings"
	// The expiry indexes (schema version 5): a finished game's reply
	// tokens, and what the prune deletes by the time it expires (since
	// version 6 the confirmation codes too).
	BucketGameTokens = "gametokens"
	BucketExpiry     = "expiry"
	// BucketRecipients (schema version 5): the players who take messages.
	BucketRecipients = "recipients"
	// BucketSummaries (schema version 7): each game's line of the
	// listings, kept by the engine with the game record.
	BucketSummaries = "summaries"
	// BucketTournaments and BucketTourIndex came later (tournaments);
	// Open adds them, empty, to an older file.
	BucketTournaments = "tournaments"
	BucketTourIndex   = "tourindex"
	// BucketReviews came later; Open adds it to an older file: the
	// robot's reviews of ended games not yet made, with the game-over
	// mails held for them.
	BucketReviews = "reviews"
)

// Store-owned buckets, reachable only through the typed methods.
const (
	bucketSeen   = "seen"
	bucketOutbox = "outbox"
	bucketDead   = "dead"
	bucketHourly = "hourly"
	bucketDaily  = "daily"
	bucketSent   = "sent"
	bucketSentAt = "sentat"
)

// buckets lists every bucket of the file; doc.go describes keys and values.
// generic marks the ones the engine may reach through Get/Put/....
var buckets = []struct {
	name    string
	generic bool
}{
	{BucketUsers, true},
	{BucketGames, true},
	{BucketTokens, true},
	{BucketRate, true},
	{BucketStrangers, true},
	{BucketMeta, true},
	{BucketRobot, true},
	{BucketAddresses, true},
	{BucketConfirms, true},
	{BucketBounces, true},
	{BucketByPlayer, true},
	{BucketRunning, true},
	{BucketDeadlines, true},
	{BucketEnded, true},
	{BucketCounts, true},
	{BucketRatings, true},
	{BucketGameTokens, true},
	{BucketExpiry, true},
	{BucketRecipients, true},
	{BucketSummaries, true},
	{BucketTournaments, true},
	{BucketTourIndex, true},
	{BucketReviews, true},
	{bucketSeen, false},
	{bucketOutbox, false},
	{bucketDead, false},
	{bucketHourly, false},
	{bucketDaily, false},
	{bucketSent, false},
	{bucketSentAt, false},
}

// obsoleteBuckets were created by earlier releases and are never read:
// [Open] removes them. "mailboxes" was meant for the IMAP poller's position,
// which the poller keeps in memory (it re-reads unseen mail after a restart),
// so no release ever wrote to it.
var obsoleteBuckets = []string{"mailboxes"}

// schemaKey in BucketMeta holds the schema version, written as decimal ASCII.
const (
	schemaKey     = "schema"
	schemaVersion = 7
)

// DefaultTimeout is how long Open waits for the file lock when
// Options.Timeout is not set.
const DefaultTimeout = 2 * time.Second

var (
	// ErrNoBucket: the bucket name is not one the caller may use.
	ErrNoBucket = errors.New("store: no such bucket")
	// ErrSchema: the file was written with a schema version this binary
	// does not know.
	ErrSchema = errors.New("store: unsupported schema version")
	// ErrLocked: another process (or another Open in this one) holds the
	// file and did not let go within Options.Timeout.
	ErrLocked = errors.New("store: database is locked")
	// ErrNotFound: no queued mail with that ID.
	ErrNotFound = errors.New("store: not found")
	// ErrReserved: the key belongs to the store, not to the engine.
	ErrReserved = errors.New("store: reserved key")
	// ErrBadLimits: a setting of [Limits] is out of range.
	ErrBadLimits = errors.New("store: bad limits")
)

// DB is an open store file. It is safe for concurrent use; bbolt serialises
// writers and lets readers run alongside.
type DB struct {
	bolt *bolt.DB
	path string
	lim  Limits
}

// Options configure Open.
type Options struct {
	// Timeout bounds the wait for the file lock; zero or negative means
	// DefaultTimeout. bbolt itself would wait forever, which turns a second
	// daemon on the same file into a silent hang.
	Timeout time.Duration
	// Limits bound the mail let out and how long records are kept.
	Limits Limits
	// Upgrade brings the engine's records of a file written with an older
	// schema version (from) up to the current one, one bounded step a
	// call: Open calls it, each time in a transaction of its own, until it
	// says done, and writes the new version in the transaction of that
	// last step. Until then the file keeps its old version, so a crash
	// leaves it to be upgraded again at the next Open: Upgrade keeps its
	// progress in the transactions of its steps and goes on where it was.
	// Nil refuses an older file with ErrSchema, leaving it as it was.
	Upgrade func(tx *Tx, from int) (done bool, err error)
}

func boltOptions(opt Options) *bolt.Options {
	o := *bolt.DefaultOptions
	o.Timeout = opt.Timeout
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	return &o
}

// Open opens or creates the store file at path (mode 0600: it holds password
// hashes), creates any missing bucket and checks the schema version.
func Open(path string, opt Options) (*DB, error) {
	if err := opt.Limits.Validate(); err != nil {
		return nil, err
	}
	bo := boltOptions(opt)
	bdb, err := bolt.Open(path, 0o600, bo)
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("%w: %s: no lock within %v; is another lyngk running on it?", ErrLocked, path, bo.Timeout)
	}
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	for done := false; !done; {
		err := bdb.Update(func(btx *bolt.Tx) error {
			var err error
			done, err = initSchema(btx, path, opt.Upgrade)
			return err
		})
		if err != nil {
			bdb.Close()
			if errors.Is(err, ErrSchema) {
				return nil, err
			}
			return nil, fmt.Errorf("store: open %s: %w", path, err)
		}
	}
	return &DB{bolt: bdb, path: path, lim: opt.Limits.WithDefaults()}, nil
}

// initSchema checks the version before creating anything, so a file from a
// newer release, or an older one nobody can upgrade, is left exactly as it
// was. An older file gets a step of its upgrade in this same transaction,
// and its new version with the last step: done says the file is current.
func initSchema(btx *bolt.Tx, path string, upgrade func(*Tx, int) (bool, error)) (done bool, err error) {
	if meta := btx.Bucket([]byte(BucketMeta)); meta != nil {
		if v := meta.Get([]byte(schemaKey)); v != nil {
			n, err := strconv.ParseUint(string(v), 10, 32)
			switch {
			case err != nil:
				return false, fmt.Errorf("%w: %s: unreadable version %q", ErrSchema, path, v)
			case n > schemaVersion:
				return false, fmt.Errorf("%w: %s has version %d, this binary knows up to %d (written by a newer lyngk?)", ErrSchema, path, n, schemaVersion)
			case n < 1 || (n < schemaVersion && upgrade == nil):
				return false, fmt.Errorf("%w: %s has version %d, this binary knows %d and was given no upgrade", ErrSchema, path, n, schemaVersion)
			}
			if err := createBuckets(btx); err != nil {
				return false, err
			}
			if n == schemaVersion {
				return true, nil
			}
			done, err := upgrade(&Tx{tx: btx}, int(n))
			if err != nil || !done {
				if err != nil {
					err = fmt.Errorf("upgrade from schema version %d: %w", n, err)
				}
				return false, err
			}
			return true, meta.Put([]byte(schemaKey), []byte(strconv.Itoa(schemaVersion)))
		}
	}
	if err := createBuckets(btx); err != nil {
		return false, err
	}
	return true, btx.Bucket([]byte(BucketMeta)).Put([]byte(schemaKey), []byte(strconv.Itoa(schemaVersion)))
}

func createBuckets(btx *bolt.Tx) error {
	for _, b := range buckets {
		if _, err := btx.CreateBucketIfNotExists([]byte(b.name)); err != nil {
			return fmt.Errorf("create bucket %s: %w", b.name, err)
		}
	}
	for _, name := range obsoleteBuckets {
		if btx.Bucket([]byte(name)) == nil {
			continue
		}
		if err := btx.DeleteBucket([]byte(name)); err != nil {
			return fmt.Errorf("remove obsolete bucket %s: %w", name, err)
		}
	}
	return nil
}

// Close releases the file and its lock.
func (db *DB) Close() error {
	if err := db.bolt.Close(); err != nil {
		return fmt.Errorf("store: close %s: %w", db.path, err)
	}
	return nil
}

// Path is the file the store was opened from.
func (db *DB) Path() string { return db.path }

// Update runs fn in one read-write transaction and commits it if fn returns
// nil. If fn returns an error (or panics) nothing it wrote is kept, and that
// same error is returned unwrapped so callers can match their own values.
func (db *DB) Update(fn func(*Tx) error) error {
	var fnErr error
	err := db.bolt.Update(func(btx *bolt.Tx) error {
		fnErr = fn(&Tx{tx: btx, lim: db.lim})
		return fnErr
	})
	if fnErr != nil {
		return fnErr
	}
	if err != nil {
		return fmt.Errorf("store: update: %w", err)
	}
	return nil
}

// View runs fn in a read-only transaction: a consistent snapshot, read
// alongside the writer. Keep it short: a writer that has to grow the file
// waits for the open readers.
func (db *DB) View(fn func(*Tx) error) error {
	var fnErr error
	err := db.bolt.View(func(btx *bolt.Tx) error {
		fnErr = fn(&Tx{tx: btx, lim: db.lim})
		return fnErr
	})
	if fnErr != nil {
		return fnErr
	}
	if err != nil {
		return fmt.Errorf("store: view: %w", err)
	}
	return nil
}

// Tx is one transaction. It is valid only inside the function given to
// Update or View and must not be used from other goroutines.
type Tx struct {
	tx  *bolt.Tx
	lim Limits
}

// generic returns an engine-owned bucket; Open created them all.
func (tx *Tx) generic(name string) (*bolt.Bucket, error) {
	for _, b := range buckets {
		if b.name == name && b.generic {
			return tx.tx.Bucket([]byte(name)), nil
		}
	}
	return nil, fmt.Errorf("%w: %q", ErrNoBucket, name)
}

// own returns a store-owned bucket; Open created them all.
func (tx *Tx) own(name string) *bolt.Bucket { return tx.tx.Bucket([]byte(name)) }

func reserved(bucket, key string) error {
	if bucket == BucketMeta && key == schemaKey {
		return fmt.Errorf("%w: %s/%s", ErrReserved, bucket, key)
	}
	return nil
}

// Get returns a copy of the value (bbolt's own memory is only valid while
// the transaction lives), or nil, nil when the key is absent.
func (tx *Tx) Get(bucket, key string) ([]byte, error) {
	b, err := tx.generic(bucket)
	if err != nil {
		return nil, err
	}
	return bytes.Clone(b.Get([]byte(key))), nil
}

// Put stores val under key, replacing any old value.
func (tx *Tx) Put(bucket, key string, val []byte) error {
	b, err := tx.generic(bucket)
	if err != nil {
		return err
	}
	if err := reserved(bucket, key); err != nil {
		return err
	}
	if err := b.Put([]byte(key), val); err != nil {
		return fmt.Errorf("store: put %s/%q: %w", bucket, key, err)
	}
	return nil
}

// Delete removes key; deleting an absent key is not an error.
func (tx *Tx) Delete(bucket, key string) error {
	b, err := tx.generic(bucket)
	if err != nil {
		return err
	}
	if err := reserved(bucket, key); err != nil {
		return err
	}
	if err := b.Delete([]byte(key)); err != nil {
		return fmt.Errorf("store: delete %s/%q: %w", bucket, key, err)
	}
	return nil
}

// ForEach calls fn for every record of bucket in key order (bytewise) with a
// copy of the value, and stops at the first error, which it returns as is.
// Unlike bbolt's own ForEach, fn may Put and Delete in the same bucket: keys
// after the current one that fn adds are visited, keys it deletes are not.
func (tx *Tx) ForEach(bucket string, fn func(key string, val []byte) error) error {
	b, err := tx.generic(bucket)
	if err != nil {
		return err
	}
	return scan(b, "", fn)
}

// scan calls fn for each record of b from the key from on, in key order;
// fn may change the bucket.
func scan(b *bolt.Bucket, from string, fn func(key string, val []byte) error) error {
	c := b.Cursor()
	k, v := c.Seek([]byte(from))
	for k != nil {
		key := string(k)
		if err := fn(key, bytes.Clone(v)); err != nil {
			return err
		}
		// fn may have changed the bucket under the cursor; finding our
		// place again from the root is what makes that safe.
		k, v = c.Seek([]byte(key))
		if k != nil && string(k) == key {
			k, v = c.Next()
		}
	}
	return nil
}

// Scan is ForEach from the first key at or after from: the way to read a
// range of an index without visiting the keys before it. fn stops the
// scan by returning an error, which Scan returns as is.
func (tx *Tx) Scan(bucket, from string, fn func(key string, val []byte) error) error {
	b, err := tx.generic(bucket)
	if err != nil {
		return err
	}
	return scan(b, from, fn)
}
