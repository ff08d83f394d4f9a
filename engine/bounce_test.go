package engine_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base32"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/store"
)

func (v *env) bounce(b engine.Bounce) engine.BounceOutcome {
	v.t.Helper()
	var out engine.BounceOutcome
	err := v.db.Update(func(tx *store.Tx) (err error) {
		out, err = v.e.Bounce(tx, b, v.now)
		return err
	})
	if err != nil {
		v.t.Fatal(err)
	}
	v.now = v.now.Add(time.Second)
	return out
}

func (v *env) bounceToken(a string) string {
	v.t.Helper()
	var tok string
	err := v.db.Update(func(tx *store.Tx) (err error) {
		tok, err = v.e.BounceToken(tx, a)
		return err
	})
	if err != nil {
		v.t.Fatal(err)
	}
	return tok
}

func (v *env) bounceList() []engine.BounceInfo {
	v.t.Helper()
	var l []engine.BounceInfo
	if err := v.db.View(func(tx *store.Tx) (err error) { l, err = engine.Bounces(tx); return err }); err != nil {
		v.t.Fatal(err)
	}
	return l
}

func sentTo(ms []engine.Mail, a string) bool {
	return slices.ContainsFunc(ms, func(m engine.Mail) bool { return slices.Contains(m.To, a) })
}

// TestBounceVERP: the VERP tag of a confirmed address (none for a
// stranger), the HMAC of the address with the store's secret; soft bounces are only counted; hard bounces of 3 different
// mails within 14 days mark the address bouncing, the same mail twice or
// a bounce older than 14 days does not count; a bounce to an unknown
// token is nobody's.
func TestBounceVERP(t *testing.T) {
	v := newEnv(t)
	v.signup("alice")
	if tok := v.bounceToken("stranger@else.example"); tok != "" {
		t.Errorf("a stranger got the token %q", tok)
	}
	tok := v.bounceToken(addr("alice"))
	if len(tok) != 16 || v.bounceToken(strings.ToUpper(addr("alice"))) != tok {
		t.Fatalf("token %q: want 16 characters, the same for the address in any case", tok)
	}
	// The tag is the HMAC-SHA256 of the address with the store's secret
	// (meta "verp"), its first 80 bits in base32.
	var secret struct {
		Key []byte `json:"key"`
	}
	if err := v.db.View(func(tx *store.Tx) error {
		raw, err := tx.Get(store.BucketMeta, "verp")
		if err == nil {
			err = json.Unmarshal(raw, &secret)
		}
		return err
	}); err != nil || len(secret.Key) != 32 {
		t.Fatalf("VERP secret: %v (%d bytes)", err, len(secret.Key))
	}
	mac := hmac.New(sha256.New, secret.Key)
	mac.Write([]byte(addr("alice")))
	if want := base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").EncodeToString(mac.Sum(nil)[:10]); tok != want {
		t.Fatalf("tag %q, want the HMAC %q", tok, want)
	}
	verp := engine.VERP(robot, tok)
	if verp != "lyngk+b-"+tok+"@example.net" {
		t.Fatalf("VERP %q", verp)
	}
	hard := func(mail string) engine.Bounce {
		return engine.Bounce{To: []string{verp}, MessageIDs: []string{mail}, Recipients: []engine.BounceRecipient{{Addr: "fwd@other.example", Hard: true}}}
	}
	if out := v.bounce(engine.Bounce{To: []string{verp}, Recipients: []engine.BounceRecipient{{Addr: addr("alice")}}}); out != (engine.BounceOutcome{Address: addr("alice")}) {
		t.Errorf("soft bounce: %+v", out)
	}
	steps := []struct {
		after  time.Duration
		mail   string
		marked bool
	}{
		{0, "m1@example.net", false},
		{15 * day, "m2@example.net", false}, // m1 is out of the window
		{day, "m2@example.net", false},      // the same mail again
		{day, "m3@example.net", false},
		{11 * day, "m4@example.net", true}, // m2, m3, m4 within 14 days
		{day, "m5@example.net", false},     // marked already
	}
	for i, s := range steps {
		v.now = v.now.Add(s.after)
		out := v.bounce(hard(s.mail))
		if out.Address != addr("alice") || !out.Hard || out.Marked != s.marked {
			t.Errorf("step %d (%s): %+v, want marked %v", i, s.mail, out, s.marked)
		}
	}
	if l := v.bounceList(); len(l) != 1 || l[0].Address != addr("alice") || l[0].Bouncing.IsZero() || l[0].Hard != 3 || l[0].Soft != 1 {
		t.Errorf("list: %+v", l)
	}
	// A tag of the right form that is not the address's HMAC is ignored,
	// and so is one that names no address.
	// The tag with its last letter changed: to another letter than its own,
	// which the secret (random in each run) may make "x".
	other := "x"
	if strings.HasSuffix(tok, other) {
		other = "y"
	}
	for _, forged := range []string{"lyngk+b-" + strings.Repeat("a", 16) + "@example.net", engine.VERP(robot, tok[:15]+other), engine.VERP(robot, tok[:8])} {
		if out := v.bounce(engine.Bounce{To: []string{forged}, Recipients: []engine.BounceRecipient{{Addr: addr("alice"), Hard: true}}}); out.Address != "" {
			t.Errorf("forged VERP address %s matched %+v", forged, out)
		}
	}
}

// TestBouncing: matched by the returned Message-ID, only when the mail was
// sent to the address the bounce names (Bounce.Sent, the caller's
// records): a reply token's Message-ID that was not sent to that address,
// or an id that is no mail sent, counts nothing. A bouncing address gets
// no mail but confirmations; the account whose last address bounces has
// its games paused as on vacation, and its player page says so; a mail
// from the address lifts the mark for one more try and its answer opens
// with a note, and the next bounce marks it again; change address lifts
// the mark and restarts the clock; a confirmation of a bouncing address
// lifts its mark too.
func TestBouncing(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob", "carol")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	v.firstMoves(101, [2]string{"alice", "bob"})
	// alice is to move; the board mails of the game carry reply tokens.
	var ids []string
	for range 4 {
		out := v.cmd(addr("alice"), "lyngk show 101")
		if len(out) != 1 || out[0].MessageID == "" || !strings.HasPrefix(out[0].MessageID, "lyngk.") {
			t.Fatalf("show: %s", format(out))
		}
		ids = append(ids, out[0].MessageID)
	}
	sent := func(id string, to ...string) map[string][]string { return map[string][]string{id: to} }
	hard := func(a string) []engine.BounceRecipient { return []engine.BounceRecipient{{Addr: a, Hard: true}} }
	// A forged bounce naming bob's address with alice's mail is nobody's.
	if out := v.bounce(engine.Bounce{MessageIDs: ids[:1], Recipients: hard(addr("bob")), Sent: sent(ids[0], addr("alice"))}); out.Address != "" {
		t.Fatalf("bob matched through alice's mail: %+v", out)
	}
	// Nor is one naming her mail that the records do not hold (a reply
	// token seen in a link), three times.
	for i := range 3 {
		if out := v.bounce(engine.Bounce{MessageIDs: []string{"made-up@x", ids[i]}, Recipients: hard(addr("alice"))}); out.Address != "" {
			t.Fatalf("a reply token matched without a record of the mail sent: %+v", out)
		}
	}
	for i, id := range ids[:3] {
		out := v.bounce(engine.Bounce{MessageIDs: []string{"made-up@x", id}, Recipients: hard(strings.ToUpper(addr("alice"))), Sent: sent(id, addr("alice"))})
		if out.Address != addr("alice") || out.Marked != (i == 2) {
			t.Fatalf("bounce %d: %+v", i, out)
		}
	}
	// No mail to alice now: not bob's move's board mail, not an answer.
	if out := v.cmd(addr("bob"), "lyngk show 101"); len(out) != 1 || !sentTo(out, addr("bob")) {
		t.Errorf("bob's mail:\n%s", format(out))
	}
	var p engine.Player
	if err := v.db.View(func(tx *store.Tx) (err error) { p, err = v.e.ReadPlayer(tx, "alice", "lyngk"); return err }); err != nil || p.Bouncing.IsZero() || !p.Paused {
		t.Errorf("player page of a bouncing player: %+v, %v", p, err)
	}
	// Her only address bounces: her game is paused as on vacation.
	v.now = v.now.Add(30 * day)
	if out := v.tick(); len(out) != 0 {
		t.Fatalf("timers ran for a player whose every address bounces:\n%s", format(out))
	}
	// Her mail lifts the mark for one more try, and says so first.
	out := v.cmd(addr("alice"), "lyngk show 101")
	if len(out) != 1 || !strings.HasPrefix(out[0].Body, "Mail to "+addr("alice")+" bounced:") {
		t.Fatalf("answer to a bouncing player's mail:\n%s", format(out))
	}
	if out := v.cmd(addr("alice"), "lyngk show 101"); len(out) != 1 || strings.Contains(out[0].Body, "bounced") {
		t.Fatalf("second answer after the retry:\n%s", format(out))
	}
	if out := v.bounce(engine.Bounce{MessageIDs: ids[3:], Recipients: hard(addr("alice")), Sent: sent(ids[3], addr("alice"))}); !out.Marked {
		t.Fatalf("one more bounce after the retry: %+v, want marked again", out)
	}
	// change address lifts the mark; the clock restarts then.
	back := v.now
	if out := v.cmd(addr("alice"), "change address alice pw-alice "+addr("alice")); !sentTo(out, addr("alice")) {
		t.Fatalf("change address:\n%s", format(out))
	}
	if l := v.bounceList(); len(l) != 0 {
		t.Errorf("after change address: %+v", l)
	}
	v.now = back.Add(7*day - time.Minute)
	if out := v.tick(); len(out) != 0 {
		t.Fatalf("reminder within 7 days of the mark's end:\n%s", format(out))
	}
	v.now = back.Add(7 * day)
	if out := v.tick(); !sentTo(out, addr("alice")) {
		t.Fatalf("no reminder 7 days after the mark's end:\n%s", format(out))
	}

	// carol's address bounces; a confirmation mail still reaches it, and
	// its confirmation lifts the mark.
	ctok := engine.VERP(robot, v.bounceToken(addr("carol")))
	for _, id := range []string{"a@x", "b@x", "c@x"} {
		v.bounce(engine.Bounce{To: []string{ctok}, MessageIDs: []string{id}, Recipients: hard(addr("carol"))})
	}
	ask := v.cmd(addr("bob"), "change address bob pw-bob "+addr("bob")+" "+addr("carol"))
	if !slices.ContainsFunc(ask, func(m engine.Mail) bool {
		return strings.HasPrefix(m.Subject, "Confirm ") && slices.Equal(m.To, []string{addr("carol")})
	}) {
		t.Fatalf("no confirmation to the bouncing address:\n%s", format(ask))
	}
	for _, m := range ask {
		if strings.HasPrefix(m.Subject, "Confirm ") {
			v.confirm(m)
		}
	}
	if l := v.bounceList(); len(l) != 0 {
		t.Errorf("after the confirmation: %+v", l)
	}
}

// TestCopyMessageID: a copy of a board mail leaves with a random mark after
// its token, and a reply to it is read as a reply to the token; other ids
// are left alone.
func TestCopyMessageID(t *testing.T) {
	id, err := engine.CopyMessageID("lyngk.abcdefgh@example.net", strings.NewReader("0123456789"))
	if err != nil || !strings.HasPrefix(id, "lyngk.abcdefgh.") || !strings.HasSuffix(id, "@example.net") || len(id) != len("lyngk.abcdefgh.@example.net")+16 {
		t.Errorf("CopyMessageID = %q, %v", id, err)
	}
	for _, other := range []string{"17AB.CD@example.net", "lyngk-confirm.code@example.net", "lyngk.tok.mark@example.net", "no-at"} {
		if got, err := engine.CopyMessageID(other, strings.NewReader("0123456789")); got != other || err != nil {
			t.Errorf("CopyMessageID(%q) = %q, %v; want it unchanged", other, got, err)
		}
	}
}
