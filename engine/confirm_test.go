package engine_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/store"
)

// TestConfirmMails: the mails of the double opt-in, to the byte: the
// welcome after a reply to the confirmation mail, the same by the confirm
// command, and the notice when a changed address is confirmed.
func TestConfirmMails(t *testing.T) {
	v := newEnv(t)
	v.signup("alice")
	ask := v.cmd("zoe@elsewhere.example", "signup zoe secret zoe@home.example")
	checkGolden(t, "confirm-ask", format(ask))
	welcome := v.confirm(ask[0])
	checkGolden(t, "confirm-welcome", format(welcome))

	ask = v.cmd(addr("dora"), "signup dora secret")
	welcome = v.cmd(addr("dora"), "confirm dora "+strings.ToUpper(confirmCode(t, ask[0])))
	checkGolden(t, "confirm-command", format(welcome))

	ask = v.cmd(addr("alice"), "change address alice pw-alice alice@new.example alice@players.example")
	if len(ask) != 2 || ask[1].To[0] != "alice@new.example" {
		t.Fatalf("change address:\n%s", format(ask))
	}
	checkGolden(t, "confirm-address", format(ask))
	done := v.confirm(ask[1])
	checkGolden(t, "confirm-address-done", format(done))
	if again := v.confirm(ask[1]); len(again) != 1 || !strings.HasPrefix(again[0].Body, "alice@new.example is already confirmed for alice.") {
		t.Errorf("second reply to the same confirmation:\n%s", format(again))
	}
}

// TestUnconfirmed: an account without a confirmed address cannot be
// challenged and gets no mail; a subscription of such an account mails
// nobody; its confirmation lets it play.
func TestUnconfirmed(t *testing.T) {
	v := newEnv(t)
	v.signup("alice")
	ask := v.cmd(addr("bob"), "signup bob pw-bob")
	before := v.dump()
	for _, c := range []string{"lyngk challenge alice bob", "lyngk challenge bob alice"} {
		out := v.cmd(addr("alice"), c)
		if len(out) != 1 || !slices.Equal(out[0].To, []string{addr("alice")}) ||
			!strings.HasPrefix(out[0].Body, "bob cannot play yet: bob has no confirmed mail address.") {
			t.Fatalf("%s: want the refusal to alice alone, got:\n%s", c, format(out))
		}
	}
	if after := v.dump(); after != before {
		t.Errorf("refused challenges changed the state:\n%s", diff(before, after))
	}
	v.signup("carol")
	v.cmd(addr("carol"), "lyngk challenge alice carol")
	if out := v.cmd(addr("bob"), "lyngk subscribe 101 bob pw-bob"); len(out) != 0 {
		t.Errorf("mail to an unconfirmed address:\n%s", format(out))
	}
	if out := v.cmd(addr("alice"), "lyngk move 101 alice pw-alice G,f5-f4"); len(out) != 2 {
		t.Errorf("want board mails to the two players only:\n%s", format(out))
	}
	if out := v.confirm(ask[0]); len(out) != 1 || out[0].Subject != "PBeM Server signup bob" {
		t.Fatalf("welcome: %s", format(out))
	}
	if out := v.cmd(addr("alice"), "lyngk challenge alice bob"); len(out) != 2 || out[1].To[0] != addr("bob") {
		t.Errorf("challenge after confirmation:\n%s", format(out))
	}
}

// TestConfirmLimit: an address gets at most 3 confirmation mails in a day,
// however many accounts name it; the refusal changes nothing; a day later
// it gets mail again.
func TestConfirmLimit(t *testing.T) {
	v := newEnv(t)
	victim := "victim@players.example"
	for i := range 3 {
		out := v.cmd(addr("mallory"), "signup m"+string(rune('a'+i))+" pw "+victim)
		if len(out) != 1 || !slices.Equal(out[0].To, []string{victim}) {
			t.Fatalf("signup %d: %s", i+1, format(out))
		}
	}
	v.signup("alice")
	before := v.dump()
	// mallory is a stranger: his signup gets the refusal without the
	// address he typed, his change address (no answer to a stranger) none;
	// alice's own gets the full text.
	if out := v.cmd(addr("mallory"), "signup md pw "+victim); len(out) != 1 || !slices.Equal(out[0].To, []string{addr("mallory")}) ||
		!strings.HasPrefix(out[0].Body, "Your mail to PBeM Server was refused") || strings.Contains(out[0].Body, victim) {
		t.Fatalf("signup: want the refusal to the sender alone, got:\n%s", format(out))
	}
	if out := v.cmd(addr("mallory"), "change address alice pw-alice "+victim); len(out) != 0 {
		t.Fatalf("change address from a stranger: want no answer, got:\n%s", format(out))
	}
	if out := v.cmd(addr("alice"), "change address alice pw-alice "+victim); len(out) != 1 ||
		!strings.HasPrefix(out[0].Body, victim+" has had 3 confirmation mails today") {
		t.Fatalf("change address: want the refusal to alice, got:\n%s", format(out))
	}
	if after := v.dump(); after != before {
		t.Errorf("refused commands changed the state:\n%s", diff(before, after))
	}
	v.now = v.now.Add(24 * time.Hour)
	if out := v.cmd(addr("mallory"), "signup md pw "+victim); len(out) != 1 || !slices.Equal(out[0].To, []string{victim}) {
		t.Errorf("a day later: %s", format(out))
	}
}

// TestChangeAddressKeepsOld: a change to an address not yet confirmed
// leaves the mail going to the old address until the new one is confirmed;
// a code of a replaced address confirms nothing.
func TestChangeAddressKeepsOld(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	first := v.cmd(addr("alice"), "change address alice pw-alice typo@nowhere.example")
	second := v.cmd(addr("alice"), "change address alice pw-alice alice@new.example")
	if out := v.cmd(addr("bob"), "lyngk challenge bob alice"); out[1].To[0] != addr("alice") {
		t.Fatalf("board mail before confirmation:\n%s", format(out))
	}
	if out := v.confirm(first[1]); len(out) != 1 || !strings.HasPrefix(out[0].Body, "typo@nowhere.example is no longer asked for") {
		t.Fatalf("replaced address confirmed:\n%s", format(out))
	}
	if out := v.confirm(second[1]); len(out) != 1 || !slices.Equal(out[0].To, []string{addr("alice"), "alice@new.example"}) {
		t.Fatalf("confirmation: %s", format(out))
	}
	if out := v.cmd(addr("bob"), "lyngk move 101 bob pw-bob resign"); out[1].To[0] != "alice@new.example" || len(out[1].To) != 1 {
		t.Fatalf("board mail after confirmation:\n%s", format(out))
	}
	confirmed := func(a string) bool {
		t.Helper()
		var ok bool
		err := v.db.View(func(tx *store.Tx) error {
			var err error
			ok, err = engine.ConfirmedAddress(tx, a)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if confirmed(addr("alice")) || !confirmed("Alice@New.example") || confirmed("typo@nowhere.example") || !confirmed(addr("bob")) {
		t.Errorf("ConfirmedAddress: old %v, new %v, typo %v, bob %v", confirmed(addr("alice")),
			confirmed("Alice@New.example"), confirmed("typo@nowhere.example"), confirmed(addr("bob")))
	}
	v.cmd(addr("bob"), "signoff bob pw-bob")
	if confirmed(addr("bob")) {
		t.Error("the address of a signed-off account counts as confirmed")
	}
}

// TestUpgrade: a store of schema version 1 (no confirmations) opened with
// the engine's upgrade: its accounts count as confirmed and play at once.
func TestUpgrade(t *testing.T) {
	v := newEnv(t)
	v.db.Close()
	// A version 1 file: users as that version wrote them, and the schema
	// number; the new buckets are empty as Open would leave them.
	old := func(id string) []byte {
		b, _ := json.Marshal(map[string]any{"v": 1, "id": id, "hash": "$2a$04$x", "addresses": []string{addr(id)},
			"created": start, "rating": 1600})
		return b
	}
	db, err := store.Open(v.path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(func(tx *store.Tx) error {
		for _, id := range []string{"alice", "bob"} {
			if err := tx.Put(store.BucketUsers, id, old(id)); err != nil {
				return err
			}
		}
		return nil
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	setSchema(t, v.path, "1")
	if _, err := store.Open(v.path, store.Options{}); err == nil {
		t.Fatal("a version 1 file opened without the upgrade")
	}
	if v.db, err = store.Open(v.path, store.Options{Upgrade: upgradeLyngk}); err != nil {
		t.Fatal(err)
	}
	if out := v.cmd(addr("alice"), "lyngk challenge alice bob"); len(out) != 2 || out[1].To[0] != addr("bob") {
		t.Fatalf("challenge after the upgrade:\n%s", format(out))
	}
	if got := v.dump(store.BucketAddresses); got != `addresses/alice@players.example={"v":1,"users":["alice"]}`+"\n"+
		`addresses/bob@players.example={"v":1,"users":["bob"]}`+"\n" {
		t.Errorf("address index after the upgrade:\n%s", got)
	}
}

// setSchema writes the store's schema version directly, as an older
// release left it.
func setSchema(t *testing.T, path, version string) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte(store.BucketMeta)).Put([]byte("schema"), []byte(version))
	}); err != nil {
		t.Fatal(err)
	}
}

// TestConfirmExpiry: confirmation codes, used or not, are kept 7 days:
// within them a second use of a used code is answered "already
// confirmed"; at 7 days an unused code confirms nothing and is answered
// that codes are kept 7 days (before and after the timer deletes it), and
// the timer's Tick deletes every code (the old main kept them for good).
// The tick deletes bob's account too, which confirmed nothing within
// SignupKeep (the same 7 days; nothing else of the state changes), and a
// new signup then sends a new code that works.
func TestConfirmExpiry(t *testing.T) {
	v := newEnv(t)
	alice := v.cmd(addr("alice"), "signup alice pw-alice")
	v.confirm(alice[0])
	bob := v.cmd(addr("bob"), "signup bob pw-bob")
	count := func() int { return strings.Count(v.dump(store.BucketConfirms), "\n") }

	v.now = v.now.Add(7*24*time.Hour - time.Minute)
	v.tick()
	if n := count(); n != 2 {
		t.Fatalf("%d codes kept before 7 days, want 2", n)
	}
	if again := v.confirm(alice[0]); len(again) != 1 || !strings.HasPrefix(again[0].Body, addr("alice")+" is already confirmed for alice.") {
		t.Errorf("second use within 7 days:\n%s", format(again))
	}

	v.now = v.now.Add(time.Minute)
	expired := "is more than 7 days old (codes are kept 7 days)"
	before := v.dump(store.BucketUsers, store.BucketAddresses)
	if out := v.confirm(bob[0]); len(out) != 1 || !strings.Contains(out[0].Body, expired) {
		t.Errorf("use of a code 7 days old, before the tick:\n%s", format(out))
	}
	v.tick()
	if n := count(); n != 0 {
		t.Errorf("%d codes kept after 7 days and a tick, want none:\n%s", n, v.dump(store.BucketConfirms))
	}
	if out := v.cmd(addr("bob"), "confirm bob "+confirmCode(t, bob[0])); len(out) != 1 || !strings.Contains(out[0].Body, expired) ||
		!strings.Contains(out[0].Body, "change address USERID PASSWORD ADDRESS") {
		t.Errorf("confirm command after the tick:\n%s", format(out))
	}
	if out := v.confirm(alice[0]); len(out) != 1 || !strings.Contains(out[0].Body, expired) {
		t.Errorf("late use of a used code after the tick:\n%s", format(out))
	}
	var kept strings.Builder
	for l := range strings.Lines(before) {
		if !strings.HasPrefix(l, store.BucketUsers+"/bob=") {
			kept.WriteString(l)
		}
	}
	if after := v.dump(store.BucketUsers, store.BucketAddresses); after != kept.String() {
		t.Errorf("expired codes changed the state but for bob's signup:\n%s", diff(kept.String(), after))
	}
	ask := v.cmd(addr("bob"), "signup bob pw-bob")
	if len(ask) != 1 {
		t.Fatalf("a new signup for a new code:\n%s", format(ask))
	}
	if out := v.confirm(ask[0]); len(out) != 1 || out[0].Subject != "PBeM Server signup bob" {
		t.Errorf("the new code:\n%s", format(out))
	}
}
