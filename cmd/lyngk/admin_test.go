package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		{[]string{"users"}, 0, []string{"USERID", "alice", "1600", "alice@example.com", "bob"}},
		{[]string{"games"}, 0, []string{"101 standard alice-bob 0 moves playing"}},
		{[]string{"game", "101"}, 0, []string{"101 standard alice-bob", "Available Colors: (Ivory,Blue,Red,Green,blacK)", "alice: 0 stacks () claimed."}},
		{[]string{"outbox"}, 0, []string{"6 queued, 0 dead letters", "to alice@example.com"}},
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
