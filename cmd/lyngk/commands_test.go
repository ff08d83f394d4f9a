package main

import (
	"path/filepath"
	"strings"

	"testing"

	"lyngk.example/lyngk/engine"
)

// TestProcessCommands plays the rest of pbmserv's common commands (list,
// all show, GAME ratings, showas, preview, submit, confirm, add,
// delete, message, change messages, broadcast with lyngk admin broadcast,
// queue)
// through `lyngk process`, mail in and mails out, against
// testdata/commands.golden, as TestProcessTranscript does: who gets each
// reply, its subject and its text. A stranger (dave, no account) gets list
// and no answer to a listing (ratings) nor to preview (no
// backscatter); alice, a player, gets the ratings; showas's board mail carries a token that moves
// when answered; a submitted move is played by confirm, and voided by a
// change of the game in between.
func TestProcessCommands(t *testing.T) {
	addr := map[string]string{"alice": "alice@example.com", "bob": "bob@example.org", "dave": "dave@example.net"}
	tooMany := "lyngk preview 101" + strings.Repeat(" G,c1-d1", engine.MaxPreviewMoves+1)
	steps := []transcriptStep{
		{from: "dave", subject: "list"},
		{from: "dave", subject: "list chess lyngk"}, // a word that is no game's: all games
		{from: "dave", subject: "lyngk ratings"},    // a stranger: no answer
		{from: "alice", subject: "signup alice pw1"},
		{from: "alice", subject: "Re: Confirm PBeM Server signup alice", body: "Yes.\n", confirm: true},
		{from: "alice", subject: "lyngk ratings"},
		{from: "bob", subject: "signup bob pw2"},
		{from: "bob", subject: "Re: Confirm PBeM Server signup bob", body: "yes\n", confirm: true},
		{from: "alice", subject: "lyngk challenge bob alice"},          // board 101, bob first
		{from: "dave", subject: "lyngk preview 101 G,c1-d1"},           // a stranger: no answer
		{from: "alice", subject: "lyngk preview 101 G,c1-d1 B, b1-b2"}, // a move in two words
		{from: "alice", subject: "lyngk preview 101 G,c1-d1 c1d1"},     // bad notation
		{from: "alice", subject: tooMany},
		{from: "alice", subject: "lyngk preview"},
		{from: "bob", subject: "lyngk submit 101 bob pw2 G,c1-d1#1"},
		{from: "bob", subject: "lyngk confirm 101 bob pw2"},
		{from: "bob", subject: "lyngk confirm 101 bob pw2"}, // nothing left to confirm
		{from: "alice", subject: "lyngk submit 101 alice pw1 B,b1-b2"},
		{from: "bob", subject: "lyngk move 101 bob pw2 propose"},
		{from: "alice", subject: "lyngk confirm 101 alice pw1"}, // the game changed: dropped
		{from: "alice", subject: "lyngk showas alice pw1"},
		{from: "alice", subject: "Re: Lyngk Board 101 alice", replyTo: "alice", body: "B,b1-b2\n"}, // answers showas's mail
		{from: "alice", subject: "lyngk queue 101 alice pw1 g1-f1"},                                // for her next turn
		{from: "alice", subject: "lyngk showas alice pw1 101"},                                     // shows her queued move
		{from: "bob", subject: "lyngk move 101 bob pw2 g2-g1"},                                     // move 3, and her g1-f1 is move 4
		{from: "alice", subject: "lyngk queue 101 alice pw1 i1-a1"},                                // illegal when it comes
		{from: "bob", subject: "lyngk move 101 bob pw2 f1-f2"},                                     // move 5: hers is dropped, she is told
		{from: "alice", subject: "lyngk queue 101 alice pw1 f2-e3#4"},                              // move 4 is past
		{from: "bob", subject: "all show alice"},
		{from: "bob", subject: "all show alice inactive"},
		{from: "bob", subject: "all"},
		{from: "alice", subject: "add alice pw1 alice@work.example"},
		{from: "alice", subject: "message alice pw1 bob", body: "Good game so far!\n"},
		{from: "bob", subject: "change messages bob pw2 off"},
		{from: "alice", subject: "message alice pw1 bob", body: "Still there?\n"},
		{from: "bob", subject: "change messages bob pw2 on"},
		{from: "alice", subject: "broadcast alice pw1", body: "Tournament on Sunday.\n"}, // not allowed
		{admin: "broadcast alice on"},
		{from: "alice", subject: "broadcast alice pw1", body: "Tournament on Sunday.\n"},
		{from: "alice", subject: "broadcast alice pw1", body: "Again!\n"}, // once a day
		{from: "bob", subject: "lyngk resign 101 bob pw2"},
		{from: "alice", subject: "lyngk ratings"},
		{from: "alice", subject: "lyngk challenge alice bob"}, // board 102
		{from: "bob", subject: "delete bob wrong"},
		{from: "bob", subject: "delete bob pw2"}, // resigns 102; the last mail
		{from: "bob", subject: "delete bob pw2"},
		{from: "dave", subject: "signup bob pw"},      // the userid stays taken
		{from: "alice", subject: "lyngk history bob"}, // his finished games stay on record
		{from: "alice", subject: "help commands"},
	}
	goldenFile(t, filepath.Join("testdata", "commands.golden"), playTranscript(t, addr, steps))
}
