package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/store"
)

// TestAdmin looks into a store the way an operator does, with no daemon
// running: users, games, one game's record with its board, the outbox.
func TestAdmin(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	for i, m := range []rawMail{
		{from: "alice@example.com", subject: "signup alice pw1"},
		{from: "alice@example.com", subject: "Re: Confirm", body: "yes\n", confirm: "alice@example.com"},
		{from: "bob@example.com", subject: "signup bob pw2"},
		{from: "bob@example.com", subject: "Re: Confirm", body: "yes\n", confirm: "bob@example.com"},
		{from: "alice@example.com", subject: "lyngk challenge alice bob"},
	} {
		m.id = "admin" + string(rune('a'+i)) + "@test.example"
		if m.confirm != "" {
			withDB(t, db, func(db *store.DB) { m.inReplyTo = queuedConfirm(t, db, m.confirm) })
		}
		var out, errb bytes.Buffer
		if code := run([]string{"process", "-db", db}, bytes.NewReader(m.bytes()), &out, &errb); code != 0 {
			t.Fatalf("process: exit %d: %s", code, errb.String())
		}
	}
	tests := []struct {
		args []string
		code int
		want []string // substrings of stdout (or stderr for usage)
	}{
		{[]string{"users"}, 0, []string{"USERID", "alice", "alice@example.com", "bob"}},
		{[]string{"games"}, 0, []string{"101 lyngk standard alice-bob 0 moves playing"}},
		{[]string{"game", "101"}, 0, []string{"101 lyngk standard alice-bob", "Available Colors: (Ivory,Blue,Red,Green,blacK)", "alice: 0 stacks () claimed."}},
		{[]string{"outbox"}, 0, []string{"6 queued, 0 dead letters", "to alice@example.com"}},
		{[]string{"check"}, 0, []string{"the indexes agree with the 1 game records"}},
		{[]string{"game", "999"}, 1, []string{"no board 999"}},
		{[]string{"game", "x"}, 2, []string{"usage: lyngk admin"}},
		{[]string{"frobnicate"}, 2, []string{"usage: lyngk admin"}},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		code := run(append([]string{"admin", "-db", db}, tt.args...), nil, &out, &errb)
		got := out.String() + errb.String()
		if code != tt.code {
			t.Errorf("admin %v: exit %d, want %d: %s", tt.args, code, tt.code, got)
		}
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("admin %v: output lacks %q:\n%s", tt.args, w, got)
			}
		}
	}
}

// TestAdminCheck: admin check names what an index lacks and what it holds
// of no game, and fails; it passes on the store the mails wrote.
func TestAdminCheck(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	for i, u := range []string{"alice", "bob"} {
		signupConfirmed(t, db, u+"@example.com", u, "pw-"+u, fmt.Sprintf("s%d@test.example", i))
	}
	if r := process(t, db, rawMail{from: "alice@example.com", subject: "lyngk challenge alice bob", id: "c@test.example"}); len(r) == 0 {
		t.Fatal("no answer to the challenge")
	}
	check := func() (int, string) {
		var out, errb bytes.Buffer
		code := run([]string{"admin", "-db", db, "check"}, nil, &out, &errb)
		return code, out.String() + errb.String()
	}
	if code, got := check(); code != 0 || got != "the indexes agree with the 1 game records\n" {
		t.Fatalf("check of a sound store: exit %d:\n%s", code, got)
	}
	withDB(t, db, func(db *store.DB) {
		err := db.Update(func(tx *store.Tx) error {
			if err := tx.Delete(store.BucketRunning, "lyngk\x0099999898"); err != nil {
				return err
			}
			return tx.Put(store.BucketEnded, "x", nil)
		})
		if err != nil {
			t.Fatal(err)
		}
	})
	code, got := check()
	want := "running: missing \"lyngk\\x0099999898\"\nended: \"x\" is of no game\nlyngk: admin: check: 2 differences between the indexes and the 1 game records\n"
	if code != 1 || got != want {
		t.Errorf("check of a broken index: exit %d, want 1:\n%s\nwant:\n%s", code, got, want)
	}
}

// TestAdminUsers: admin users shows each user's rating and record in
// every game played (testdata/admin-users.golden, today written
// YYYY-MM-DD): alice in both games, bob in LYNGK only, carol in YINSH
// only after signing off, dave in none ("-"). The old main showed one
// rating, LYNGK's, for everybody.
func TestAdminUsers(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	for i, u := range []string{"alice", "bob", "carol", "dave"} {
		signupConfirmed(t, db, u+"@example.com", u, "pw-"+u, fmt.Sprintf("s%d@test.example", i))
	}
	for i, c := range [][2]string{
		{"alice", "lyngk challenge alice bob"},
		{"alice", "lyngk move 101 alice pw-alice G,f5-f4"},
		{"bob", "lyngk move 101 bob pw-bob b1-b2"},
		{"bob", "lyngk resign 101 bob pw-bob"},
		{"carol", "yinsh challenge carol alice"},
		{"carol", "yinsh move 102 carol pw-carol c5"},
		{"alice", "yinsh move 102 alice pw-alice e2"},
		{"alice", "yinsh resign 102 alice pw-alice"},
		{"carol", "signoff carol pw-carol"},
	} {
		if r := process(t, db, rawMail{from: c[0] + "@example.com", subject: c[1], id: fmt.Sprintf("c%d@test.example", i)}); len(r) == 0 || strings.Contains(r[0].Subject, "rror") {
			t.Fatalf("%s: %+v", c[1], r)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"admin", "-db", db, "users"}, nil, &out, &errb); code != 0 {
		t.Fatalf("admin users: exit %d: %s", code, errb.String())
	}
	got := strings.ReplaceAll(out.String(), time.Now().UTC().Format(time.DateOnly), "YYYY-MM-DD")
	goldenFile(t, filepath.Join("testdata", "admin-users.golden"), got)
}

// TestNoStore: backup and admin never create a store where none is.
func TestNoStore(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "typo.db")
	for _, args := range [][]string{{"backup", "-db", missing, filepath.Join(t.TempDir(), "b.db")}, {"admin", "-db", missing, "users"}} {
		var out, errb bytes.Buffer
		if code := run(args, nil, &out, &errb); code != 1 || !strings.Contains(errb.String(), "no store") {
			t.Errorf("%v: exit %d, stderr %q", args, code, errb.String())
		}
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("a store was created")
	}
}

// TestAdminOutboxCap: without the daemon, lyngk admin outbox used to say
// "no mails_per_day cap" while the daemon's configuration set one. Now it
// says it does not know the cap, and with -config it reads the
// configuration (whose passwords, kept in the daemon's environment, it
// does not need) and tells the cap and the strangers' share.
func TestAdminOutboxCap(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "lyngk.db")
	signupConfirmed(t, db, "alice@example.com", "alice", "Sesame-1", "s1@test.example")
	conf := filepath.Join(dir, "lyngk.conf")
	err := os.WriteFile(conf, []byte("imap_addr = imap.example.org:993\nimap_user = lyngk@example.org\n"+
		"smtp_addr = smtp.example.org:465\nsmtp_user = lyngk@example.org\nrobot_address = lyngk@example.org\n"+
		"mails_per_day = 500\nstranger_share = 20\n"), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("LYNGK_IMAP_PASSWORD", "")
	t.Setenv("LYNGK_SMTP_PASSWORD", "")
	for _, tt := range []struct {
		flags []string
		want  string
	}{
		{nil, "0 recipients in the last 24 hours (mails_per_day not known: the daemon is not running; -config FILE reads it)\n"},
		{[]string{"-config", conf}, "0 recipients in the last 24 hours of mails_per_day 500\n" +
			"strangers (stranger_share): 0 of 100 a day, 0 of 5 in the last hour; 0 dropped past it in the last 24 hours\n"},
	} {
		var out, errb bytes.Buffer
		args := append(append([]string{"admin", "-db", db}, tt.flags...), "outbox")
		if code := run(args, nil, &out, &errb); code != 0 {
			t.Fatalf("admin %v: exit %d: %s", tt.flags, code, errb.String())
		}
		if !strings.Contains(out.String(), tt.want) {
			t.Errorf("admin %v outbox:\n%s\nwant the line\n%s", tt.flags, out.String(), tt.want)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"admin", "-db", db, "-config", filepath.Join(dir, "none.conf"), "outbox"}, nil, &out, &errb); code != 1 ||
		!strings.Contains(errb.String(), "none.conf") {
		t.Errorf("admin -config of a missing file: exit %d: %s", code, errb.String())
	}
}

// TestAdminChampionship: the operator switches a game's championship on
// and off and looks at it (lyngk admin championship GAME [on|off]); an
// unknown game or a word other than on and off changes nothing.
func TestAdminChampionship(t *testing.T) {
	db := filepath.Join(t.TempDir(), "lyngk.db")
	withDB(t, db, func(*store.DB) {})
	for _, tt := range []struct {
		args []string
		code int
		want string // the whole output, stdout then stderr
	}{
		{[]string{"championship", "lyngk"}, 0, "lyngk championship: off\nenrolled (0): \n"},
		{[]string{"championship", "LYNGK", "on"}, 0, "lyngk championship: on\nnext edition: scheduled by the daemon's next timer tick\nenrolled (0): \n"},
		{[]string{"championship", "yinsh"}, 0, "yinsh championship: off\nenrolled (0): \n"},
		{[]string{"championship", "chess", "on"}, 1, "lyngk: admin: no game \"chess\": the games are lyngk, yinsh\n"},
		{[]string{"championship", "lyngk", "maybe"}, 2, adminUsage + "\n"},
		{[]string{"championship"}, 2, adminUsage + "\n"},
		{[]string{"championship", "lyngk"}, 0, "lyngk championship: on\nnext edition: scheduled by the daemon's next timer tick\nenrolled (0): \n"},
		{[]string{"championship", "lyngk", "off"}, 0, "lyngk championship: off\nenrolled (0): \n"},
	} {
		var out, errb bytes.Buffer
		code := run(append([]string{"admin", "-db", db}, tt.args...), nil, &out, &errb)
		if got := out.String() + errb.String(); code != tt.code || got != tt.want {
			t.Errorf("admin %v: exit %d, want %d:\n%s\nwant\n%s", tt.args, code, tt.code, got, tt.want)
		}
	}
}
