package engine

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// The bounds of message and broadcast: a message goes to at
// most MaxMessageRecipients players per incoming mail, and one userid
// sends at most MaxMessagesPerDay message mails (one per recipient) in a
// day that opens with the first; a broadcast at most once a day.
const (
	MaxMessageRecipients = 10
	MaxMessagesPerDay    = 20
	broadcastEvery       = 24 * time.Hour
)

// messageView is the data of the message and broadcast mails and of the
// sender's report.
type messageView struct {
	From string // the sender's userid
	Text string
	Sent []string // userids the message went to
	// Off, Full: userids it did not go to: they take no messages, or
	// have had MaxUnasked mails today they did not ask for.
	Off, Full []string
	Broadcast bool
	Max       int
}

// messageDay opens u's day of messages when the last one is over and
// returns the message mails u has sent in it.
func (r *request) messageDay(u *user) int {
	if r.now.Sub(u.MessagesDay) >= 24*time.Hour || r.now.Before(u.MessagesDay) {
		u.MessagesSent, u.MessagesDay = 0, r.now
	}
	return u.MessagesSent
}

// message: message USERID PASSWORD TOUSERID... sends the text under the
// command to the players named, at their confirmed addresses, from the
// server (no Reply-To: the recipient answers by a message of his own),
// saying who wrote it. It counts as a mail each recipient did not ask for
// (MaxUnasked); a player who refused messages (change messages ... off),
// signed off, or had his mails of the day is skipped, and the sender's
// report says so. Refused before anything is sent: an unknown userid,
// no text, more than MaxMessageRecipients recipients in this mail, or
// more message mails than the sender has left today.
func (r *request) message(c Command) error {
	u, err := r.authenticate(c.Args[0], c.Args[1])
	if err != nil {
		return err
	}
	text := cleanText(r.script.Comment)
	if strings.TrimSpace(text) == "" {
		return refuse(whyMessageEmpty, nil)
	}
	var to []*user
	for _, id := range c.Args[2:] {
		if strings.EqualFold(id, u.ID) || slices.ContainsFunc(to, func(t *user) bool { return strings.EqualFold(t.ID, id) }) {
			continue // the sender gets the report; a userid named twice, one mail
		}
		t, ok, err := r.loadUser(id)
		if err != nil {
			return err
		}
		if !ok || !t.Deleted.IsZero() {
			return refuse(whyUnknownUser, kv{"User": id})
		}
		to = append(to, t)
	}
	if r.messaged+len(to) > MaxMessageRecipients {
		return refuse(whyMessageRecipients, kv{"Max": MaxMessageRecipients})
	}
	if left := MaxMessagesPerDay - r.messageDay(u); len(to) > left {
		return refuse(whyMessagesFull, kv{"Max": MaxMessagesPerDay, "N": left,
			"Until": u.MessagesDay.Add(24 * time.Hour).UTC().Format("2006-01-02 15:04 MST")})
	}
	if err := r.reserve(len(to) + 1); err != nil {
		return err
	}
	r.messaged += len(to)
	v := messageView{From: u.ID, Text: text, Max: MaxUnasked}
	if err := r.deliverMessage(&v, to); err != nil {
		return err
	}
	u.MessagesSent += len(v.Sent)
	if err := r.saveUser(u); err != nil {
		return err
	}
	return r.mail("message-sent", []string{r.in.From}, v)
}

// deliverMessage sends v to each of to who takes it, and records in v
// who got it and who did not.
func (r *request) deliverMessage(v *messageView, to []*user) error {
	for _, t := range to {
		switch {
		case !t.Left.IsZero() || t.Messages == messagesOff || len(t.Addresses) == 0:
			v.Off = append(v.Off, t.ID)
			continue
		case r.unaskedToday(t) >= MaxUnasked:
			v.Full = append(v.Full, t.ID)
			continue
		}
		if err := r.countUnasked(t); err != nil {
			return err
		}
		if err := r.mailAbout("message", v, envelope{to: t.Addresses, unasked: true}); err != nil {
			return err
		}
		v.Sent = append(v.Sent, t.ID)
	}
	return nil
}

// bucketRecipients indexes the players a broadcast goes to: the lower-cased
// userid of each account that takes messages (recipientKey), with an empty
// value, kept by saveUser (indexUser), so that a broadcast reads its
// recipients and no other account.
const bucketRecipients = "recipients"

// recipientKey is u's key in recipients if u takes messages and
// broadcasts (a player, not signed off nor deleted, with a confirmed
// address, messages not off), "" otherwise.
func recipientKey(u *user) string {
	if u == nil || u.Robot || !u.Deleted.IsZero() || !u.Left.IsZero() || u.Messages == messagesOff || len(u.Addresses) == 0 {
		return ""
	}
	return strings.ToLower(u.ID)
}

// broadcast: broadcast USERID PASSWORD sends the text under the command
// to every player who takes messages, for a userid the operator allows
// (lyngk admin broadcast USERID on), at most once a day. Its mails are
// beyond the bounds of one incoming mail (it may reach every player), but
// each counts as a mail its recipient did not ask for, and the outbox's
// caps hold the surplus as for any mail. It reads the players who take
// messages (bucketRecipients) and no other account: its report names
// those it reached and those skipped for their day's unasked mails, not
// the players who take no messages (a message's report names them).
func (r *request) broadcast(c Command) error {
	u, err := r.authenticate(c.Args[0], c.Args[1])
	if err != nil {
		return err
	}
	if !u.Broadcaster {
		return refuse(whyBroadcastNotAllowed, kv{"User": u.ID})
	}
	if !u.Broadcast.IsZero() && r.now.Sub(u.Broadcast) < broadcastEvery && !r.now.Before(u.Broadcast) {
		return refuse(whyBroadcastDaily, kv{"Until": u.Broadcast.Add(broadcastEvery).UTC().Format("2006-01-02 15:04 MST")})
	}
	text := cleanText(r.script.Comment)
	if strings.TrimSpace(text) == "" {
		return refuse(whyMessageEmpty, nil)
	}
	var to []*user
	err = r.tx.ForEach(bucketRecipients, func(key string, _ []byte) error {
		t, found, err := r.loadUser(key)
		if err == nil && found && recipientKey(t) != "" && !strings.EqualFold(t.ID, u.ID) {
			to = append(to, t)
		}
		return err
	})
	if err != nil {
		return err
	}
	u.Broadcast = r.now
	if err := r.saveUser(u); err != nil {
		return err
	}
	v := messageView{From: u.ID, Text: text, Broadcast: true, Max: MaxUnasked}
	bounded := r.bounded
	r.bounded = false
	defer func() { r.bounded = bounded }()
	if err := r.deliverMessage(&v, to); err != nil {
		return err
	}
	return r.mail("message-sent", []string{r.in.From}, v)
}

// SetBroadcaster lets the userid id broadcast (on) or not, for `lyngk
// admin broadcast`. ErrNoUser when there is no such account (or it was
// deleted).
func SetBroadcaster(tx Tx, id string, on bool) error {
	r := &request{tx: tx}
	u, ok, err := r.loadUser(id)
	switch {
	case err != nil:
		return err
	case !ok || !u.Deleted.IsZero() || u.Robot:
		return fmt.Errorf("%w: %q", ErrNoUser, id)
	}
	u.Broadcaster = on
	return r.saveUser(u)
}

// Broadcasters lists the userids allowed to broadcast, in userid order.
func Broadcasters(tx Tx) ([]string, error) {
	var out []string
	err := tx.ForEach(bucketUsers, func(key string, val []byte) error {
		var u user
		if err := json.Unmarshal(val, &u); err != nil {
			return fmt.Errorf("engine: users/%s: %w", key, err)
		}
		if u.Broadcaster {
			out = append(out, u.ID)
		}
		return nil
	})
	return out, err
}
