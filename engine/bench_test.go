package engine_test

import (
	"testing"
)

func BenchmarkParseCommand(b *testing.B) {
	e := parser(b)
	for b.Loop() {
		if _, err := e.ParseCommand("lyngk move 101 alice secret R,e4-e5#12"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadMail(b *testing.B) {
	e := parser(b)
	body := "R,e4-e5\nNice try.\n\nOn Sat, Nov 21, 2026 at 10:52 PM PBeM Server <lyngk@example.net> wrote:\n" +
		"> Summary of Lyngk Board 101\n>\n> It is bob's turn.\n"
	for b.Loop() {
		e.ReadMail("Re: Lyngk Board 101 bob", body)
	}
}

// BenchmarkShow measures a command with its board mail (replay, rendering,
// reply token) in one store transaction, fsync included.
func BenchmarkShow(b *testing.B) {
	v := newEnv(b)
	v.signup("alice", "bob")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	v.cmd(addr("alice"), "lyngk move 101 alice pw-alice G,f5-f4")
	for b.Loop() {
		if out := v.cmd(addr("alice"), "lyngk show 101"); len(out) != 1 {
			b.Fatal(format(out))
		}
	}
}

// BenchmarkBoardMails measures a challenge: a game record and two board
// mails with their tokens, fsync included.
func BenchmarkBoardMails(b *testing.B) {
	v := newEnv(b)
	v.signup("alice", "bob")
	for b.Loop() {
		if out := v.cmd(addr("carol"), "lyngk challenge alice bob"); len(out) != 2 {
			b.Fatal(format(out))
		}
	}
}
