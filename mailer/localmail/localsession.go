package localmail

import (
	"bufio"
	"bytes"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	gomessage "github.com/emersion/go-message"
	"github.com/emersion/go-message/mail"
	"github.com/emersion/go-message/textproto"
	bolt "go.etcd.io/bbolt"

	"lyngk.example/lyngk/mailer/internal/idle"
)

// localIMAPSession is one IMAP connection to the local mailboxes, which live
// in bbolt (see localbox.go). go-imap's imapmemserver could not be used:
// it numbers the mails of a mailbox from UID 1 whenever they are loaded,
// so persisting around it would hand out old UIDs again after a restart.
// The fetch, search and list helpers follow imapmemserver's (MIT licence).
type localIMAPSession struct {
	l    *Local
	x    *localBoxes
	conn *imapserver.Conn
	user string     // lower-cased address; "" before login
	sel  *selection // nil when no mailbox is selected
}

// selection is the selected mailbox of a session.
type selection struct {
	name     string
	st       *imapserver.SessionTracker
	readOnly bool
	saved    imap.UIDSet // SEARCHRES
}

var (
	_ imapserver.SessionIMAP4rev2      = (*localIMAPSession)(nil)
	_ imapserver.SessionAppendLimit    = (*localIMAPSession)(nil)
	_ imapserver.SessionUnauthenticate = (*localIMAPSession)(nil)
)

func (s *localIMAPSession) Close() error {
	s.unselect()
	s.l.dropConn(s.conn)
	return nil
}

func (s *localIMAPSession) Login(username, password string) error {
	if !s.l.login(username, password) {
		return imapserver.ErrAuthFailed
	}
	user := strings.ToLower(username)
	if err := s.x.ensureUser(user); err != nil {
		return err
	}
	s.user = user
	return nil
}

func (s *localIMAPSession) Unauthenticate() error {
	s.unselect()
	s.user = ""
	return nil
}

func (s *localIMAPSession) AppendLimit() uint32 { return localMaxMessage }

func (s *localIMAPSession) Namespace() (*imap.NamespaceData, error) {
	return &imap.NamespaceData{Personal: []imap.NamespaceDescriptor{{Delim: boxDelim}}}, nil
}

func (s *localIMAPSession) unselect() {
	if s.sel != nil {
		s.x.mu.Lock()
		s.sel.st.Close()
		s.x.mu.Unlock()
		s.sel = nil
	}
}

func (s *localIMAPSession) Select(name string, opts *imap.SelectOptions) (*imap.SelectData, error) {
	s.unselect()
	name = boxName(name)
	s.x.mu.Lock()
	defer s.x.mu.Unlock()
	var data imap.SelectData
	var n uint32
	err := s.x.db.View(func(tx *bolt.Tx) error {
		b := box(tx, s.user, name)
		if b == nil {
			return errNoMailbox
		}
		ms, err := messages(b)
		if err != nil {
			return err
		}
		n = uint32(len(ms))
		flags := slices.Clone(systemFlags)
		for i, m := range ms {
			for _, f := range m.Flags {
				if !slices.Contains(flags, f) {
					flags = append(flags, f)
				}
			}
			if data.FirstUnseenSeqNum == 0 && !hasFlag(m.Flags, imap.FlagSeen) {
				data.FirstUnseenSeqNum = uint32(i + 1)
			}
		}
		data.Flags = flags
		data.PermanentFlags = append(slices.Clone(flags), imap.FlagWildcard)
		data.NumMessages = n
		data.UIDNext = imap.UID(u32(b.Get([]byte("uidnext"))))
		data.UIDValidity = u32(b.Get([]byte("uidvalidity")))
		return nil
	})
	if err != nil {
		return nil, err
	}
	key := s.user + "\x00" + name
	t := s.x.trackers[key]
	if t == nil {
		t = imapserver.NewMailboxTracker(n)
		s.x.trackers[key] = t
	}
	s.sel = &selection{name: name, st: t.NewSession(), readOnly: opts != nil && opts.ReadOnly}
	return &data, nil
}

func (s *localIMAPSession) Unselect() error {
	s.unselect()
	return nil
}

func (s *localIMAPSession) Create(name string, opts *imap.CreateOptions) error {
	name = boxName(name)
	if name == "" {
		return &imap.Error{Type: imap.StatusResponseTypeNo, Text: "Empty mailbox name"}
	}
	var attr imap.MailboxAttr
	if opts != nil && len(opts.SpecialUse) > 0 {
		attr = opts.SpecialUse[0]
	}
	s.x.mu.Lock()
	defer s.x.mu.Unlock()
	return s.x.db.Update(func(tx *bolt.Tx) error {
		ub := userBucket(tx, s.user)
		if ub.Bucket([]byte(name)) != nil {
			return errExists
		}
		return createBox(tx, ub, name, attr)
	})
}

// specialName reports whether name is one of the mailboxes every address
// keeps.
func specialName(name string) bool {
	return slices.ContainsFunc(specialUse, func(s specialBox) bool { return s.name == name })
}

func (s *localIMAPSession) Delete(name string) error {
	name = boxName(name)
	if specialName(name) {
		return &imap.Error{Type: imap.StatusResponseTypeNo, Text: name + " cannot be deleted"}
	}
	s.x.mu.Lock()
	defer s.x.mu.Unlock()
	err := s.x.db.Update(func(tx *bolt.Tx) error {
		ub := userBucket(tx, s.user)
		if ub.Bucket([]byte(name)) == nil {
			return errNoMailbox
		}
		return ub.DeleteBucket([]byte(name))
	})
	if err == nil {
		// Sessions that still have it selected see it empty; a mailbox of
		// the same name made later starts with a new tracker (and a new
		// UIDVALIDITY).
		delete(s.x.trackers, s.user+"\x00"+name)
	}
	return err
}

func (s *localIMAPSession) Rename(oldName, newName string, _ *imap.RenameOptions) error {
	oldName, newName = boxName(oldName), boxName(newName)
	if specialName(oldName) {
		return &imap.Error{Type: imap.StatusResponseTypeNo, Text: oldName + " cannot be renamed"}
	}
	s.x.mu.Lock()
	defer s.x.mu.Unlock()
	err := s.x.db.Update(func(tx *bolt.Tx) error {
		ub := userBucket(tx, s.user)
		if ub.Bucket([]byte(oldName)) == nil {
			return errNoMailbox
		}
		if ub.Bucket([]byte(newName)) != nil {
			return errExists
		}
		// A renamed mailbox keeps its UIDVALIDITY and UIDs.
		nb, err := ub.CreateBucket([]byte(newName))
		if err != nil {
			return err
		}
		if err := copyBucket(ub.Bucket([]byte(oldName)), nb); err != nil {
			return err
		}
		return ub.DeleteBucket([]byte(oldName))
	})
	if err == nil {
		delete(s.x.trackers, s.user+"\x00"+oldName)
	}
	return err
}

// copyBucket copies the keys and nested buckets of src into dst (bbolt
// cannot rename a bucket).
func copyBucket(src, dst *bolt.Bucket) error {
	return src.ForEach(func(k, v []byte) error {
		if v != nil {
			return dst.Put(k, slices.Clone(v))
		}
		nb, err := dst.CreateBucket(k)
		if err != nil {
			return err
		}
		return copyBucket(src.Bucket(k), nb)
	})
}

func (s *localIMAPSession) setSubscribed(name string, on bool) error {
	s.x.mu.Lock()
	defer s.x.mu.Unlock()
	return s.x.db.Update(func(tx *bolt.Tx) error {
		b := box(tx, s.user, name)
		if b == nil {
			return errNoMailbox
		}
		if on {
			return b.Put([]byte("subscribed"), []byte("1"))
		}
		return b.Delete([]byte("subscribed"))
	})
}

func (s *localIMAPSession) Subscribe(name string) error   { return s.setSubscribed(name, true) }
func (s *localIMAPSession) Unsubscribe(name string) error { return s.setSubscribed(name, false) }

func (s *localIMAPSession) List(w *imapserver.ListWriter, ref string, patterns []string, opts *imap.ListOptions) error {
	if len(patterns) == 0 {
		return w.WriteList(&imap.ListData{Attrs: []imap.MailboxAttr{imap.MailboxAttrNoSelect}, Delim: boxDelim})
	}
	var list []imap.ListData
	s.x.mu.RLock()
	err := s.x.db.View(func(tx *bolt.Tx) error {
		return userBucket(tx, s.user).ForEachBucket(func(k []byte) error {
			name := string(k)
			if !slices.ContainsFunc(patterns, func(p string) bool { return imapserver.MatchList(name, boxDelim, ref, p) }) {
				return nil
			}
			b := box(tx, s.user, name)
			subscribed := b.Get([]byte("subscribed")) != nil
			special := imap.MailboxAttr(b.Get([]byte("special")))
			if opts.SelectSubscribed && !subscribed || opts.SelectSpecialUse && special == "" {
				return nil
			}
			d := imap.ListData{Mailbox: name, Delim: boxDelim}
			if subscribed {
				d.Attrs = append(d.Attrs, imap.MailboxAttrSubscribed)
			}
			// RFC 6154 §2 lets the attributes come with every LIST, as
			// clients that do not ask for them (RETURN (SPECIAL-USE)) look
			// for them too.
			if special != "" {
				d.Attrs = append(d.Attrs, special)
			}
			if opts.ReturnStatus != nil {
				st, err := status(b, name, opts.ReturnStatus)
				if err != nil {
					return err
				}
				d.Status = st
			}
			list = append(list, d)
			return nil
		})
	})
	s.x.mu.RUnlock() // before writing: the client may not be reading
	if err != nil {
		return err
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Mailbox < list[j].Mailbox })
	for i := range list {
		if err := w.WriteList(&list[i]); err != nil {
			return err
		}
	}
	return nil
}

func status(b *bolt.Bucket, name string, opts *imap.StatusOptions) (*imap.StatusData, error) {
	ms, err := messages(b)
	if err != nil {
		return nil, err
	}
	d := imap.StatusData{Mailbox: name}
	var unseen, deleted uint32
	var size int64
	for _, m := range ms {
		if !hasFlag(m.Flags, imap.FlagSeen) {
			unseen++
		}
		if hasFlag(m.Flags, imap.FlagDeleted) {
			deleted++
		}
		size += m.Size
	}
	n, zero := uint32(len(ms)), uint32(0)
	if opts.NumMessages {
		d.NumMessages = &n
	}
	if opts.UIDNext {
		d.UIDNext = imap.UID(u32(b.Get([]byte("uidnext"))))
	}
	if opts.UIDValidity {
		d.UIDValidity = u32(b.Get([]byte("uidvalidity")))
	}
	if opts.NumUnseen {
		d.NumUnseen = &unseen
	}
	if opts.NumDeleted {
		d.NumDeleted = &deleted
	}
	if opts.Size {
		d.Size = &size
	}
	if opts.NumRecent {
		d.NumRecent = &zero
	}
	return &d, nil
}

func (s *localIMAPSession) Status(name string, opts *imap.StatusOptions) (*imap.StatusData, error) {
	s.x.mu.RLock()
	defer s.x.mu.RUnlock()
	var d *imap.StatusData
	err := s.x.db.View(func(tx *bolt.Tx) error {
		b := box(tx, s.user, name)
		if b == nil {
			return errNoMailbox
		}
		var err error
		d, err = status(b, boxName(name), opts)
		return err
	})
	return d, err
}

func (s *localIMAPSession) Append(name string, r imap.LiteralReader, opts *imap.AppendOptions) (*imap.AppendData, error) {
	defer s.l.changes.Notify()
	data, err := io.ReadAll(io.LimitReader(r, localMaxMessage+1))
	if err != nil {
		return nil, err
	}
	if len(data) > localMaxMessage {
		return nil, &imap.Error{Type: imap.StatusResponseTypeNo, Code: imap.ResponseCodeTooBig, Text: "Mail over the size limit"}
	}
	return s.x.appendMail(s.user, name, data, opts.Flags, opts.Time)
}

func (s *localIMAPSession) Poll(w *imapserver.UpdateWriter, allowExpunge bool) error {
	if s.sel == nil {
		return nil
	}
	return s.sel.st.Poll(w, allowExpunge)
}

func (s *localIMAPSession) Idle(w *imapserver.UpdateWriter, stop <-chan struct{}) error {
	return idle.ByPolling(s, s.l.changes, w, stop)
}

// inSet walks the mails of the selected mailbox b that numSet names (a
// sequence set in the client's view, or a UID set), with their sequence
// numbers in the server's view.
func (s *localIMAPSession) inSet(ms []boxMsg, numSet imap.NumSet, f func(seq uint32, m boxMsg) error) error {
	numSet = s.static(ms, numSet)
	for i, m := range ms {
		seq := uint32(i + 1)
		var in bool
		switch set := numSet.(type) {
		case imap.SeqSet:
			c := s.sel.st.EncodeSeqNum(seq)
			in = c != 0 && set.Contains(c)
		case imap.UIDSet:
			in = set.Contains(m.UID)
		}
		if in {
			if err := f(seq, m); err != nil {
				return err
			}
		}
	}
	return nil
}

// static replaces "*" by the last sequence number or the highest UID in
// use, and "$" by the saved search result.
func (s *localIMAPSession) static(ms []boxMsg, numSet imap.NumSet) imap.NumSet {
	if imap.IsSearchRes(numSet) {
		return s.sel.saved
	}
	fix := func(start, stop *uint32, last uint32) {
		dyn := *start == 0 || *stop == 0
		if *start == 0 {
			*start = last
		}
		if *stop == 0 {
			*stop = last
		}
		if dyn && *start > *stop {
			*start, *stop = *stop, *start
		}
	}
	switch set := numSet.(type) {
	case imap.SeqSet:
		set = slices.Clone(set)
		for i := range set {
			fix(&set[i].Start, &set[i].Stop, uint32(len(ms)))
		}
		return set
	case imap.UIDSet:
		set = slices.Clone(set)
		var last uint32
		if len(ms) > 0 {
			last = uint32(ms[len(ms)-1].UID)
		}
		for i := range set {
			fix((*uint32)(&set[i].Start), (*uint32)(&set[i].Stop), last)
		}
		return set
	}
	return numSet
}

func (s *localIMAPSession) Fetch(w *imapserver.FetchWriter, numSet imap.NumSet, opts *imap.FetchOptions) error {
	markSeen := !s.sel.readOnly && slices.ContainsFunc(opts.BodySection, func(bs *imap.FetchItemBodySection) bool { return !bs.Peek })
	if markSeen {
		// Reading without PEEK sets \Seen first (RFC 9051 §6.4.5), which is
		// a change like STORE.
		if err := s.store(numSet, &imap.StoreFlags{Op: imap.StoreFlagsAdd, Flags: []imap.Flag{imap.FlagSeen}}, true); err != nil {
			return err
		}
	}
	// The mails to answer are listed under the lock; then each is read in
	// a transaction of its own and written after the lock and the
	// transaction are released, so that a client that stops reading holds
	// up only itself (neither deliveries nor other sessions, nor bbolt's
	// growth, which waits for every read transaction).
	type item struct {
		seq uint32 // in the client's view
		m   boxMsg
	}
	var items []item
	s.x.mu.RLock()
	err := s.x.db.View(func(tx *bolt.Tx) error {
		b := box(tx, s.user, s.sel.name)
		if b == nil {
			return nil
		}
		ms, err := messages(b)
		if err != nil {
			return err
		}
		return s.inSet(ms, numSet, func(seq uint32, m boxMsg) error {
			items = append(items, item{s.sel.st.EncodeSeqNum(seq), m})
			return nil
		})
	})
	s.x.mu.RUnlock()
	if err != nil {
		return err
	}
	needBody := opts.Envelope || opts.BodyStructure != nil || len(opts.BodySection) > 0 ||
		len(opts.BinarySection) > 0 || len(opts.BinarySectionSize) > 0
	for _, it := range items {
		var buf []byte
		if needBody {
			if buf, err = s.body(it.m.UID); err != nil {
				return err
			}
			if buf == nil {
				// Expunged since it was listed: this session hears of
				// that at its next poll; there is nothing left to send.
				continue
			}
		}
		if err := fetchOne(w.CreateMessage(it.seq), it.m, buf, opts); err != nil {
			return err
		}
	}
	return nil
}

// body returns a copy of mail uid of the selected mailbox (nil if gone).
func (s *localIMAPSession) body(uid imap.UID) ([]byte, error) {
	s.x.mu.RLock()
	defer s.x.mu.RUnlock()
	var buf []byte
	err := s.x.db.View(func(tx *bolt.Tx) error {
		if b := box(tx, s.user, s.sel.name); b != nil {
			buf = slices.Clone(body(b, uid))
		}
		return nil
	})
	return buf, err
}

func fetchOne(w *imapserver.FetchResponseWriter, m boxMsg, buf []byte, opts *imap.FetchOptions) (err error) {
	defer func() {
		// Close releases the connection's writer, after a failed write
		// too: else the connection's goroutine waits for it for good.
		if cerr := w.Close(); err == nil {
			err = cerr
		}
	}()
	w.WriteUID(m.UID)
	if opts.Flags {
		w.WriteFlags(m.Flags)
	}
	if opts.InternalDate {
		w.WriteInternalDate(m.Date)
	}
	if opts.RFC822Size {
		w.WriteRFC822Size(m.Size)
	}
	if opts.Envelope {
		if h, err := textproto.ReadHeader(bufio.NewReader(bytes.NewReader(buf))); err == nil {
			w.WriteEnvelope(imapserver.ExtractEnvelope(h))
		} else {
			w.WriteEnvelope(nil)
		}
	}
	if opts.BodyStructure != nil {
		w.WriteBodyStructure(imapserver.ExtractBodyStructure(bytes.NewReader(buf)))
	}
	for _, bs := range opts.BodySection {
		sec := imapserver.ExtractBodySection(bytes.NewReader(buf), bs)
		if err := writeSection(w.WriteBodySection(bs, int64(len(sec))), sec); err != nil {
			return err
		}
	}
	for _, bs := range opts.BinarySection {
		sec := imapserver.ExtractBinarySection(bytes.NewReader(buf), bs)
		if err := writeSection(w.WriteBinarySection(bs, int64(len(sec))), sec); err != nil {
			return err
		}
	}
	for _, bss := range opts.BinarySectionSize {
		w.WriteBinarySectionSize(bss, imapserver.ExtractBinarySectionSize(bytes.NewReader(buf), bss))
	}
	return nil
}

func writeSection(wc io.WriteCloser, sec []byte) error {
	_, err := wc.Write(sec)
	if cerr := wc.Close(); err == nil {
		err = cerr
	}
	return err
}

func (s *localIMAPSession) Store(w *imapserver.FetchWriter, numSet imap.NumSet, flags *imap.StoreFlags, _ *imap.StoreOptions) error {
	if s.sel.readOnly {
		return &imap.Error{Type: imap.StatusResponseTypeNo, Text: "Mailbox is read-only"}
	}
	defer s.l.changes.Notify()
	if err := s.store(numSet, flags, false); err != nil {
		return err
	}
	if flags.Silent {
		return nil
	}
	return s.Fetch(w, numSet, &imap.FetchOptions{Flags: true, UID: true})
}

// store changes the flags of the mails in numSet and tells the other
// sessions (and this one too when quietly is set, as for a FETCH that sets
// \Seen: its client then hears of the change).
func (s *localIMAPSession) store(numSet imap.NumSet, flags *imap.StoreFlags, quietly bool) error {
	s.x.mu.Lock()
	defer s.x.mu.Unlock()
	type change struct {
		seq   uint32
		uid   imap.UID
		flags []imap.Flag
	}
	var changes []change
	err := s.x.db.Update(func(tx *bolt.Tx) error {
		b := box(tx, s.user, s.sel.name)
		if b == nil {
			return nil
		}
		ms, err := messages(b)
		if err != nil {
			return err
		}
		return s.inSet(ms, numSet, func(seq uint32, m boxMsg) error {
			before := m.Flags
			switch flags.Op {
			case imap.StoreFlagsSet:
				m.Flags = canonicalFlags(flags.Flags)
			case imap.StoreFlagsAdd:
				m.Flags = canonicalFlags(append(slices.Clone(m.Flags), flags.Flags...))
			case imap.StoreFlagsDel:
				m.Flags = slices.DeleteFunc(slices.Clone(m.Flags), func(f imap.Flag) bool { return hasFlag(flags.Flags, f) })
			}
			if slices.Equal(before, m.Flags) {
				return nil
			}
			changes = append(changes, change{seq, m.UID, m.Flags})
			return putMsg(b, m)
		})
	})
	if err != nil {
		return err
	}
	if t := s.x.trackerLocked(s.user, s.sel.name); t != nil {
		source := s.sel.st
		if quietly {
			source = nil
		}
		for _, c := range changes {
			t.QueueMessageFlags(c.seq, c.uid, c.flags, source)
		}
	}
	return nil
}

func (s *localIMAPSession) Expunge(_ *imapserver.ExpungeWriter, uids *imap.UIDSet) error {
	if s.sel.readOnly {
		return &imap.Error{Type: imap.StatusResponseTypeNo, Text: "Mailbox is read-only"}
	}
	defer s.l.changes.Notify()
	s.x.mu.Lock()
	defer s.x.mu.Unlock()
	var gone []uint32 // server sequence numbers, descending
	err := s.x.db.Update(func(tx *bolt.Tx) error {
		b := box(tx, s.user, s.sel.name)
		if b == nil {
			return nil
		}
		ms, err := messages(b)
		if err != nil {
			return err
		}
		for i := len(ms) - 1; i >= 0; i-- {
			m := ms[i]
			if !hasFlag(m.Flags, imap.FlagDeleted) || uids != nil && !uids.Contains(m.UID) {
				continue
			}
			if err := delMsg(b, m.UID); err != nil {
				return err
			}
			gone = append(gone, uint32(i+1))
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.queueExpunges(s.sel.name, gone)
	return nil
}

// queueExpunges tells every session of a mailbox, this one included (in
// its next poll, before the command's OK), that mails went; x.mu is held.
func (s *localIMAPSession) queueExpunges(name string, seqs []uint32) {
	if t := s.x.trackerLocked(s.user, name); t != nil {
		for _, seq := range seqs {
			t.QueueExpunge(seq)
		}
	}
}

func (s *localIMAPSession) Copy(numSet imap.NumSet, dest string) (*imap.CopyData, error) {
	defer s.l.changes.Notify()
	s.x.mu.Lock()
	defer s.x.mu.Unlock()
	d, _, err := s.copy(numSet, dest, false)
	return d, err
}

func (s *localIMAPSession) Move(w *imapserver.MoveWriter, numSet imap.NumSet, dest string) error {
	if s.sel.readOnly {
		return &imap.Error{Type: imap.StatusResponseTypeNo, Text: "Mailbox is read-only"}
	}
	defer s.l.changes.Notify()
	s.x.mu.Lock()
	d, gone, err := s.copy(numSet, dest, true)
	if err == nil {
		s.queueExpunges(s.sel.name, gone)
	}
	s.x.mu.Unlock() // before writing: the client may not be reading
	if err != nil {
		return err
	}
	return w.WriteCopyData(d)
}

// copy copies the mails of numSet to dest, in one transaction, and with
// move removes them from the selected mailbox, returning their sequence
// numbers (descending); x.mu is held.
func (s *localIMAPSession) copy(numSet imap.NumSet, dest string, move bool) (*imap.CopyData, []uint32, error) {
	dest = boxName(dest)
	if dest == s.sel.name {
		return nil, nil, &imap.Error{Type: imap.StatusResponseTypeNo, Text: "Source and destination mailboxes are identical"}
	}
	var d imap.CopyData
	var gone []uint32
	var n int
	err := s.x.db.Update(func(tx *bolt.Tx) error {
		src, dst := box(tx, s.user, s.sel.name), box(tx, s.user, dest)
		if dst == nil {
			return errTryCreate
		}
		if src == nil {
			return nil
		}
		d.UIDValidity = u32(dst.Get([]byte("uidvalidity")))
		ms, err := messages(src)
		if err != nil {
			return err
		}
		err = s.inSet(ms, numSet, func(seq uint32, m boxMsg) error {
			uid, err := addMsg(dst, boxMsg{Flags: m.Flags, Date: m.Date}, slices.Clone(body(src, m.UID)))
			if err != nil {
				return err
			}
			d.SourceUIDs.AddNum(m.UID)
			d.DestUIDs.AddNum(uid)
			if move {
				gone = append(gone, seq)
				return delMsg(src, m.UID)
			}
			return nil
		})
		n = count(dst)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	if t := s.x.trackerLocked(s.user, dest); t != nil && len(d.DestUIDs) > 0 {
		t.QueueNumMessages(uint32(n))
	}
	slices.Reverse(gone)
	return &d, gone, nil
}

func (s *localIMAPSession) Search(kind imapserver.NumKind, criteria *imap.SearchCriteria, opts *imap.SearchOptions) (*imap.SearchData, error) {
	s.x.mu.RLock()
	defer s.x.mu.RUnlock()
	var data imap.SearchData
	err := s.x.db.View(func(tx *bolt.Tx) error {
		b := box(tx, s.user, s.sel.name)
		if b == nil {
			return nil
		}
		ms, err := messages(b)
		if err != nil {
			return err
		}
		s.staticCriteria(ms, criteria)
		var seqs imap.SeqSet
		var uids imap.UIDSet
		for i, m := range ms {
			seq := s.sel.st.EncodeSeqNum(uint32(i + 1))
			if !matches(m, seq, body(b, m.UID), criteria) {
				continue
			}
			uids.AddNum(m.UID)
			num := uint32(m.UID)
			if kind == imapserver.NumKindSeq {
				if seq == 0 {
					continue
				}
				seqs.AddNum(seq)
				num = seq
			}
			if data.Min == 0 || num < data.Min {
				data.Min = num
			}
			data.Max = max(data.Max, num)
			data.Count++
		}
		data.All = uids
		if kind == imapserver.NumKindSeq {
			data.All = seqs
		}
		if opts.ReturnSave {
			s.sel.saved = uids
		}
		return nil
	})
	return &data, err
}

func (s *localIMAPSession) staticCriteria(ms []boxMsg, c *imap.SearchCriteria) {
	var seqs []imap.SeqSet
	for _, set := range c.SeqNum {
		switch set := s.static(ms, set).(type) {
		case imap.SeqSet:
			seqs = append(seqs, set)
		case imap.UIDSet: // "$" (SEARCHRES)
			c.UID = append(c.UID, set)
		}
	}
	c.SeqNum = seqs
	for i, set := range c.UID {
		c.UID[i] = s.static(ms, set).(imap.UIDSet)
	}
	for i := range c.Not {
		s.staticCriteria(ms, &c.Not[i])
	}
	for i := range c.Or {
		for j := range c.Or[i] {
			s.staticCriteria(ms, &c.Or[i][j])
		}
	}
}

// matches is SEARCH for one mail (as imapmemserver's).
func matches(m boxMsg, seq uint32, buf []byte, c *imap.SearchCriteria) bool {
	for _, set := range c.SeqNum {
		if seq == 0 || !set.Contains(seq) {
			return false
		}
	}
	for _, set := range c.UID {
		if !set.Contains(m.UID) {
			return false
		}
	}
	if !matchDate(m.Date, c.Since, c.Before) {
		return false
	}
	for _, f := range c.Flag {
		if !hasFlag(m.Flags, f) {
			return false
		}
	}
	for _, f := range c.NotFlag {
		if hasFlag(m.Flags, f) {
			return false
		}
	}
	if c.Larger != 0 && m.Size <= c.Larger || c.Smaller != 0 && m.Size >= c.Smaller {
		return false
	}
	entity := func() *gomessage.Entity {
		e, _ := gomessage.Read(bytes.NewReader(buf))
		if e == nil {
			e, _ = gomessage.New(gomessage.Header{}, bytes.NewReader(nil))
		}
		return e
	}
	if len(c.Header) > 0 || !c.SentSince.IsZero() || !c.SentBefore.IsZero() {
		h := mail.Header{Header: entity().Header}
		for _, hc := range c.Header {
			if !matchFields(h.FieldsByKey(hc.Key), hc.Value) {
				return false
			}
		}
		if !c.SentSince.IsZero() || !c.SentBefore.IsZero() {
			t, err := h.Date()
			if err != nil || !matchDate(t, c.SentSince, c.SentBefore) {
				return false
			}
		}
	}
	for _, text := range c.Text {
		if !matchEntity(entity(), text, true) {
			return false
		}
	}
	for _, text := range c.Body {
		if !matchEntity(entity(), text, false) {
			return false
		}
	}
	for i := range c.Not {
		if matches(m, seq, buf, &c.Not[i]) {
			return false
		}
	}
	for _, or := range c.Or {
		if !matches(m, seq, buf, &or[0]) && !matches(m, seq, buf, &or[1]) {
			return false
		}
	}
	return true
}

// matchDate compares dates without their time zones (RFC 9051 §6.4.4).
func matchDate(t, since, before time.Time) bool {
	t = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	return (since.IsZero() || !t.Before(since)) && (before.IsZero() || t.Before(before))
}

func matchFields(fields gomessage.HeaderFields, pattern string) bool {
	if pattern == "" {
		return fields.Len() > 0
	}
	pattern = strings.ToLower(pattern)
	for fields.Next() {
		if v, _ := fields.Text(); strings.Contains(strings.ToLower(v), pattern) {
			return true
		}
	}
	return false
}

func matchEntity(e *gomessage.Entity, pattern string, header bool) bool {
	if pattern == "" {
		return true
	}
	if header && matchFields(e.Header.Fields(), pattern) {
		return true
	}
	if mr := e.MultipartReader(); mr != nil {
		for {
			part, err := mr.NextPart()
			if err != nil {
				return false
			}
			if matchEntity(part, pattern, header) {
				return true
			}
		}
	}
	t, _, err := e.Header.ContentType()
	if err != nil || !strings.HasPrefix(t, "text/") && !strings.HasPrefix(t, "message/") {
		return false
	}
	buf, err := io.ReadAll(e.Body)
	return err == nil && bytes.Contains(bytes.ToLower(buf), bytes.ToLower([]byte(pattern)))
}
