package localmail

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// The local mailboxes live in one bbolt file, LocalConfig.Dir/mail.db, apart
// from the game store (mailer imports none of our packages, and the two
// have nothing to commit together):
//
//	meta                 "version" → "1"; "uidvalidity" → the last
//	                     UIDVALIDITY issued (4 bytes, big-endian)
//	users/ADDR/MAILBOX   one bucket per mailbox of each lower-cased address:
//	                     "uidvalidity", "uidnext" (4 bytes each), "subscribed"
//	                     ("1" or absent), "special" (its RFC 6154 attribute)
//	  msgs               UID (4 bytes, big-endian) → JSON {flags, date, size}
//	  bodies             UID → the raw mail, apart, so that a flag change does
//	                     not rewrite it
//
// A new mailbox's UIDVALIDITY is the time of its creation in seconds, or the
// last one issued plus one if that is later, so a mailbox deleted and made
// again, or a mail.db removed and started afresh, never repeats one; UIDs
// come from uidnext and are never given twice (RFC 9051 §2.3.1.1). Every
// change is one bbolt transaction (with fsync) before it is told to any
// session.
const localBoxesVersion = "1"

var (
	bucketBoxMeta  = []byte("meta")
	bucketBoxUsers = []byte("users")
	bucketMsgs     = []byte("msgs")
	bucketBodies   = []byte("bodies")
)

// specialUse are the mailboxes every local address has, with their RFC 6154
// attributes, so that clients find where to keep drafts, sent mail and
// deleted mail.
var specialUse = []specialBox{{"INBOX", ""}, {"Drafts", imap.MailboxAttrDrafts}, {"Sent", imap.MailboxAttrSent}, {"Trash", imap.MailboxAttrTrash}}

type specialBox struct {
	name string
	attr imap.MailboxAttr
}

// boxDelim is the hierarchy delimiter of mailbox names.
const boxDelim = '/'

// boxMsg is the record of one mail in a mailbox (the body is apart).
type boxMsg struct {
	UID   imap.UID    `json:"-"`
	Flags []imap.Flag `json:"flags,omitempty"`
	Date  time.Time   `json:"date"`
	Size  int64       `json:"size"`
}

// localBoxes is the mailbox store. mu orders every change with the updates
// it queues for the sessions (their trackers), and every read with both.
// Neither mu nor a bbolt transaction is ever held while writing to a
// client: one that stops reading would hold up every delivery.
type localBoxes struct {
	db *bolt.DB
	mu sync.RWMutex
	// trackers tell the sessions that have a mailbox selected what changed
	// in it: run-time state, by user + "\x00" + mailbox, made on first
	// SELECT.
	trackers map[string]*imapserver.MailboxTracker
}

var errBoxLocked = errors.New("localmail: local mailboxes in use by another process")

func openBoxes(path string) (*localBoxes, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("%w: %s", errBoxLocked, path)
	}
	if err != nil {
		return nil, fmt.Errorf("localmail: local mailboxes: %w", err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucketIfNotExists(bucketBoxMeta)
		if err != nil {
			return err
		}
		if _, err := tx.CreateBucketIfNotExists(bucketBoxUsers); err != nil {
			return err
		}
		switch v := meta.Get([]byte("version")); {
		case v == nil:
			return meta.Put([]byte("version"), []byte(localBoxesVersion))
		case string(v) != localBoxesVersion:
			return fmt.Errorf("version %q, this binary knows %q", v, localBoxesVersion)
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("localmail: local mailboxes %s: %w", path, err)
	}
	return &localBoxes{db: db, trackers: make(map[string]*imapserver.MailboxTracker)}, nil
}

func (x *localBoxes) close() error { return x.db.Close() }

func u32(b []byte) uint32 {
	if len(b) != 4 {
		return 0
	}
	return binary.BigEndian.Uint32(b)
}

func be32(n uint32) []byte { return binary.BigEndian.AppendUint32(nil, n) }

// boxName is the stored form of a mailbox name: INBOX in any case is INBOX
// (RFC 9051 §5.1), a trailing delimiter is dropped.
func boxName(name string) string {
	name = strings.TrimRight(name, string(boxDelim))
	if strings.EqualFold(name, "INBOX") {
		return "INBOX"
	}
	return name
}

var (
	errNoMailbox = &imap.Error{Type: imap.StatusResponseTypeNo, Code: imap.ResponseCodeNonExistent, Text: "No such mailbox"}
	errTryCreate = &imap.Error{Type: imap.StatusResponseTypeNo, Code: imap.ResponseCodeTryCreate, Text: "No such mailbox"}
	errExists    = &imap.Error{Type: imap.StatusResponseTypeNo, Code: imap.ResponseCodeAlreadyExists, Text: "Mailbox already exists"}
)

// ensureUser creates the address's special-use mailboxes that are missing.
func (x *localBoxes) ensureUser(user string) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	complete := false
	if err := x.db.View(func(tx *bolt.Tx) error {
		ub := userBucket(tx, user)
		complete = ub != nil && !slices.ContainsFunc(specialUse, func(s specialBox) bool { return ub.Bucket([]byte(s.name)) == nil })
		return nil
	}); err != nil || complete {
		return err
	}
	return x.db.Update(func(tx *bolt.Tx) error {
		ub, err := tx.Bucket(bucketBoxUsers).CreateBucketIfNotExists([]byte(user))
		if err != nil {
			return err
		}
		for _, s := range specialUse {
			if ub.Bucket([]byte(s.name)) != nil {
				continue
			}
			if err := createBox(tx, ub, s.name, s.attr); err != nil {
				return err
			}
		}
		return nil
	})
}

// createBox makes mailbox name with a fresh UIDVALIDITY, subscribed.
func createBox(tx *bolt.Tx, ub *bolt.Bucket, name string, attr imap.MailboxAttr) error {
	meta := tx.Bucket(bucketBoxMeta)
	v := max(uint32(time.Now().Unix()), u32(meta.Get([]byte("uidvalidity")))+1)
	if err := meta.Put([]byte("uidvalidity"), be32(v)); err != nil {
		return err
	}
	b, err := ub.CreateBucket([]byte(name))
	if err != nil {
		return err
	}
	for _, kv := range [][2][]byte{{[]byte("uidvalidity"), be32(v)}, {[]byte("uidnext"), be32(1)}, {[]byte("subscribed"), []byte("1")}} {
		if err := b.Put(kv[0], kv[1]); err != nil {
			return err
		}
	}
	if attr != "" {
		if err := b.Put([]byte("special"), []byte(attr)); err != nil {
			return err
		}
	}
	if _, err := b.CreateBucket(bucketMsgs); err != nil {
		return err
	}
	_, err = b.CreateBucket(bucketBodies)
	return err
}

// userBucket and box find an address's bucket and one of its mailboxes
// (nil if missing).
func userBucket(tx *bolt.Tx, user string) *bolt.Bucket {
	return tx.Bucket(bucketBoxUsers).Bucket([]byte(user))
}

func box(tx *bolt.Tx, user, name string) *bolt.Bucket {
	ub := userBucket(tx, user)
	if ub == nil {
		return nil
	}
	return ub.Bucket([]byte(boxName(name)))
}

// messages reads the records of a mailbox in UID order (sequence order).
func messages(b *bolt.Bucket) ([]boxMsg, error) {
	var out []boxMsg
	err := b.Bucket(bucketMsgs).ForEach(func(k, v []byte) error {
		m := boxMsg{UID: imap.UID(u32(k))}
		if err := json.Unmarshal(v, &m); err != nil {
			return fmt.Errorf("localmail: local message %d: %w", m.UID, err)
		}
		out = append(out, m)
		return nil
	})
	return out, err
}

// count is the number of mails in mailbox b.
func count(b *bolt.Bucket) int {
	n := 0
	c := b.Bucket(bucketMsgs).Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		n++
	}
	return n
}

func putMsg(b *bolt.Bucket, m boxMsg) error {
	v, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return b.Bucket(bucketMsgs).Put(be32(uint32(m.UID)), v)
}

// addMsg appends a mail to mailbox b under the next UID.
func addMsg(b *bolt.Bucket, m boxMsg, body []byte) (imap.UID, error) {
	uid := u32(b.Get([]byte("uidnext")))
	if err := b.Put([]byte("uidnext"), be32(uid+1)); err != nil {
		return 0, err
	}
	m.UID = imap.UID(uid)
	m.Size = int64(len(body))
	if err := putMsg(b, m); err != nil {
		return 0, err
	}
	return m.UID, b.Bucket(bucketBodies).Put(be32(uid), body)
}

// delMsg removes a mail from mailbox b.
func delMsg(b *bolt.Bucket, uid imap.UID) error {
	if err := b.Bucket(bucketMsgs).Delete(be32(uint32(uid))); err != nil {
		return err
	}
	return b.Bucket(bucketBodies).Delete(be32(uint32(uid)))
}

func body(b *bolt.Bucket, uid imap.UID) []byte {
	return b.Bucket(bucketBodies).Get(be32(uint32(uid)))
}

// trackerLocked returns the tracker of a mailbox, if any session has
// selected it since the start; x.mu is held.
func (x *localBoxes) trackerLocked(user, name string) *imapserver.MailboxTracker {
	return x.trackers[user+"\x00"+boxName(name)]
}

// appendMail stores a mail in a mailbox and tells the sessions.
func (x *localBoxes) appendMail(user, name string, data []byte, flags []imap.Flag, date time.Time) (*imap.AppendData, error) {
	if date.IsZero() {
		date = time.Now()
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	var res imap.AppendData
	var n int
	err := x.db.Update(func(tx *bolt.Tx) error {
		b := box(tx, user, name)
		if b == nil {
			return errTryCreate
		}
		uid, err := addMsg(b, boxMsg{Flags: canonicalFlags(flags), Date: date}, data)
		res = imap.AppendData{UID: uid, UIDValidity: u32(b.Get([]byte("uidvalidity")))}
		n = count(b)
		return err
	})
	if err != nil {
		return nil, err
	}
	if t := x.trackerLocked(user, name); t != nil {
		t.QueueNumMessages(uint32(n))
	}
	return &res, nil
}

// systemFlags are spelled as RFC 9051 does, whatever case a client uses.
var systemFlags = []imap.Flag{imap.FlagSeen, imap.FlagAnswered, imap.FlagFlagged, imap.FlagDeleted, imap.FlagDraft}

func canonicalFlags(flags []imap.Flag) []imap.Flag {
	var out []imap.Flag
	for _, f := range flags {
		for _, s := range systemFlags {
			if strings.EqualFold(string(f), string(s)) {
				f = s
			}
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	slices.Sort(out)
	return out
}

func hasFlag(flags []imap.Flag, f imap.Flag) bool {
	return slices.ContainsFunc(flags, func(g imap.Flag) bool { return strings.EqualFold(string(g), string(f)) })
}
