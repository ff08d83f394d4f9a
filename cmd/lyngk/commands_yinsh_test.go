package main

import (
	"path/filepath"
	"testing"
)

// TestProcessCommandsYinsh: pbmserv's other common commands that take a game word
// work for YINSH as for LYNGK, through `lyngk process` against
// testdata/commands-yinsh.golden: list of one game, preview of ring
// placements, submit and confirm, a queued placement played after the
// opponent's, showas, ratings of YINSH beside LYNGK's, all show.
func TestProcessCommandsYinsh(t *testing.T) {
	addr := map[string]string{"alice": "alice@example.com", "bob": "bob@example.org"}
	steps := []transcriptStep{
		{from: "alice", subject: "signup alice pw1"},
		{from: "alice", subject: "Re: Confirm PBeM Server signup alice", body: "Yes.\n", confirm: true},
		{from: "bob", subject: "signup bob pw2"},
		{from: "bob", subject: "Re: Confirm PBeM Server signup bob", body: "yes\n", confirm: true},
		{from: "alice", subject: "list yinsh"},
		{from: "alice", subject: "yinsh challenge alice bob"}, // board 101
		{from: "bob", subject: "yinsh preview 101 e5 f6 g7"},
		{from: "alice", subject: "yinsh submit 101 alice pw1 e5"},
		{from: "alice", subject: "yinsh confirm 101 alice pw1"},
		{from: "alice", subject: "yinsh queue 101 alice pw1 g7"},
		{from: "bob", subject: "yinsh move 101 bob pw2 f6"}, // and alice's g7
		{from: "bob", subject: "yinsh showas bob pw2"},
		{from: "bob", subject: "yinsh resign 101 bob pw2"},
		{from: "alice", subject: "yinsh ratings"},
		{from: "alice", subject: "lyngk ratings"},
		{from: "alice", subject: "lyngk challenge alice bob"}, // board 102
		{from: "bob", subject: "yinsh challenge bob alice"},   // board 103
		{from: "alice", subject: "yinsh preview 102 e5"},      // a LYNGK board: refused
		{from: "bob", subject: "all show alice next"},         // 102 (LYNGK), her turn
		{from: "bob", subject: "all show alice"},              // 102 and 103, both games
	}
	goldenFile(t, filepath.Join("testdata", "commands-yinsh.golden"), playTranscript(t, addr, steps))
}
