package engine_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/golden"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/engine/lyngkpicture"
	"lyngk.example/lyngk/engine/lyngksearch"
	"lyngk.example/lyngk/store"
	"lyngk.example/lyngk/templates"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

const robot = "lyngk@example.net"

// offered are the games of the tests, as cmd/lyngk offers them: LYNGK.
func offered() []games.Game {
	return []games.Game{{Rules: lyngk.Rules, Picture: lyngkpicture.Pictures, Input: lyngkpicture.Pictures, Robot: lyngksearch.Robot, Judge: lyngksearch.Baseline()}}
}

// parser is an engine for the tests of its parsers, which need no store.
func parser(t testing.TB) *engine.Engine {
	t.Helper()
	set, err := templates.Load("")
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(engine.Config{Games: offered(), Server: robot, Templates: set})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// start is the fake clock's first reading.
var start = time.Date(2026, time.November, 21, 22, 52, 0, 0, time.UTC)

// env is a server on a real store file, with a fake clock and a seeded
// token source, so that every mail is reproducible.
type env struct {
	t    testing.TB
	path string
	db   *store.DB
	e    *engine.Engine
	cfg  engine.Config
	now  time.Time
	seq  int
	// hold leaves the game-over mails held for a review in the store;
	// without it mail and tick return them too, each with its review
	// made, as `lyngk process` mails them (reviews_test.go).
	hold bool
}

func newEnv(t testing.TB, opts ...func(*engine.Config)) *env {
	t.Helper()
	set, err := templates.Load("")
	if err != nil {
		t.Fatal(err)
	}
	cfg := engine.Config{Games: offered(), Server: robot, Templates: set, Rand: rand.NewChaCha8([32]byte{1}),
		BcryptCost: bcrypt.MinCost}
	for _, o := range opts {
		o(&cfg)
	}
	v := &env{t: t, path: filepath.Join(t.TempDir(), "lyngk.db"), cfg: cfg, now: start}
	v.open()
	t.Cleanup(func() { v.db.Close() })
	return v
}

// open (re)opens the store and builds the engine anew, as a restarted
// daemon does.
func (v *env) open() {
	v.t.Helper()
	db, err := store.Open(v.path, store.Options{})
	if err != nil {
		v.t.Fatal(err)
	}
	e, err := engine.New(v.cfg)
	if err != nil {
		v.t.Fatal(err)
	}
	v.db, v.e = db, e
}

func (v *env) restart() {
	v.t.Helper()
	if err := v.db.Close(); err != nil {
		v.t.Fatal(err)
	}
	v.open()
}

// mail sends in and returns the replies; the clock moves one second.
func (v *env) mail(in engine.Inbound) []engine.Mail {
	v.t.Helper()
	v.seq++
	if in.MessageID == "" {
		in.MessageID = fmt.Sprintf("m%d@players.example", v.seq)
	}
	out, failed := v.mailFailing(in)
	if failed != nil {
		v.t.Fatalf("mail %q failed: %v", in.Subject, failed)
	}
	return out
}

// mailFailing is mail for a mail that may fail inside the engine: it
// returns the replies and the mail's own failure.
func (v *env) mailFailing(in engine.Inbound) (out []engine.Mail, failed error) {
	v.t.Helper()
	err := v.db.Update(func(tx *store.Tx) error {
		var err error
		out, failed, err = v.e.Handle(tx, in, v.now)
		return err
	})
	if err != nil {
		v.t.Fatal(err)
	}
	if !v.hold {
		out = append(out, v.reviews()...)
	}
	v.now = v.now.Add(time.Second)
	return out, failed
}

// cmd sends a mail with the command in the Subject.
func (v *env) cmd(from, subject string) []engine.Mail {
	v.t.Helper()
	return v.mail(engine.Inbound{From: from, Subject: subject})
}

// reply answers m from the address from with body, as a mail client does.
func (v *env) reply(m engine.Mail, from, body string) []engine.Mail {
	v.t.Helper()
	return v.mail(engine.Inbound{From: from, Subject: "Re: " + m.Subject, Body: body,
		InReplyTo: []string{m.MessageID}, References: append(slices.Clone(m.References), m.MessageID)})
}

func (v *env) tick() []engine.Mail {
	v.t.Helper()
	out, failed := v.tickFailing()
	if failed != nil {
		v.t.Fatalf("timers failed: %v", failed)
	}
	return out
}

// tickFailing is tick where some game's timer may fail: it returns the
// mails and the failures.
func (v *env) tickFailing() (out []engine.Mail, failed error) {
	v.t.Helper()
	err := v.db.Update(func(tx *store.Tx) error {
		var err error
		if err := v.e.Prune(tx, v.now); err != nil {
			return err
		}
		out, failed, err = v.e.Tick(tx, v.now)
		return err
	})
	if err != nil {
		v.t.Fatal(err)
	}
	if !v.hold {
		out = append(out, v.reviews()...)
	}
	return out, failed
}

// addr is the address of a player in these tests.
func addr(name string) string { return name + "@players.example" }

// signup registers players with password "pw-NAME" and confirms their
// addresses as a player does, by replying to the confirmation mail.
func (v *env) signup(names ...string) {
	v.t.Helper()
	for _, n := range names {
		v.signupAt(addr(n), n, "pw-"+n)
	}
}

// signupAt signs user up from address a with password pw and confirms
// the address by replying to the confirmation mail.
func (v *env) signupAt(a, user, pw string) {
	v.t.Helper()
	out := v.cmd(a, "signup "+user+" "+pw)
	if len(out) != 1 {
		v.t.Fatalf("signup %s: %+v", user, out)
	}
	if w := v.confirm(out[0]); len(w) != 1 || w[0].Subject != "PBeM Server signup "+user {
		v.t.Fatalf("confirm %s: %+v", user, w)
	}
}

// confirm replies to the confirmation mail m from its address, as its
// owner does, and returns the answer (the welcome mail after a signup).
func (v *env) confirm(m engine.Mail) []engine.Mail {
	v.t.Helper()
	if !strings.HasPrefix(m.Subject, "Confirm ") || len(m.To) != 1 {
		v.t.Fatalf("not a confirmation mail: %+v", m)
	}
	return v.reply(m, m.To[0], "Yes, that is me.\n")
}

// dump is every engine record of the store, for before/after comparisons.
func (v *env) dump(buckets ...string) string {
	v.t.Helper()
	if len(buckets) == 0 {
		buckets = []string{store.BucketUsers, store.BucketGames, store.BucketTokens, store.BucketMeta, store.BucketRobot,
			store.BucketAddresses, store.BucketConfirms, store.BucketTournaments, store.BucketTourIndex}
	}
	var b strings.Builder
	err := v.db.View(func(tx *store.Tx) error {
		for _, name := range buckets {
			if err := tx.ForEach(name, func(k string, val []byte) error {
				fmt.Fprintf(&b, "%s/%s=%s\n", name, k, val)
				return nil
			}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		v.t.Fatal(err)
	}
	return b.String()
}

// format writes mails as text: headers, then the body.
func format(ms []engine.Mail) string {
	var b strings.Builder
	for i, m := range ms {
		if i > 0 {
			b.WriteString("=====\n")
		}
		parts := "text"
		if m.HTML != "" {
			parts = "text, html with picture " + m.PictureID
		}
		fmt.Fprintf(&b, "To: %s\nSubject: %s\nMessage-ID: %s\nIn-Reply-To: %s\nReferences: %s\nAuto-Submitted: %s\nParts: %s\n\n%s",
			strings.Join(m.To, ", "), m.Subject, m.MessageID, m.InReplyTo, strings.Join(m.References, " "), m.AutoSubmitted, parts, m.Body)
	}
	return b.String()
}

// checkGolden compares got with testdata/NAME.golden (rewritten with -update).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	if strings.Contains(got, "\nAuto-Submitted: ") {
		for _, m := range strings.Split(got, "\n=====\n") {
			_, body, _ := strings.Cut(m, "\n\n")
			for _, l := range engine.LongLines(body) {
				t.Errorf("%s: line over %d columns: %q", name, templates.Width, l)
			}
		}
	}
	golden.Check(t, filepath.Join("testdata", name+".golden"), got, *update)
}

// diff shows the first line where want and got differ.
func diff(want, got string) string { return golden.FirstDiff(want, got) }

// firstMoves plays one move of each player of board (standard variant), the
// first legal plain move in notation order, so that the game counts (a game
// ended before every player has moved is cancelled).
func (v *env) firstMoves(board int, names [2]string) {
	v.t.Helper()
	pos := lyngk.New(board, lyngk.Standard)
	for range 2 {
		legal := pos.LegalPlain(nil)
		slices.SortFunc(legal, func(a, b lyngk.Move) int { return strings.Compare(a.String(), b.String()) })
		name := names[pos.Turn()-1]
		if out := v.cmd(addr(name), fmt.Sprintf("lyngk move %d %s pw-%s %s", board, name, name, legal[0])); len(out) == 0 || strings.Contains(out[0].Subject, "Error") {
			v.t.Fatalf("first move of %s on %d: %s", name, board, format(out))
		}
		if err := pos.Apply(legal[0]); err != nil {
			v.t.Fatal(err)
		}
	}
}
