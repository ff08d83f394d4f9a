package engine_test

import (
	"strings"
	"testing"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/store"
)

// TestExpiry is a measured abuse case: a reply token (about 1.7 KB a
// move) and an unconfirmed signup (the userid taken for good) were kept
// forever. Now the tokens of a game over for engine.TokenKeep (30 days)
// go, and a reply to one is answered as an unknown board mail, saying
// so; an account that confirmed no address within engine.SignupKeep (7
// days) goes, and its userid is free again.
func TestExpiry(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	out := v.cmd(addr("alice"), "lyngk challenge alice bob")
	board := out[0]
	v.cmd(addr("alice"), "lyngk move 101 alice pw-alice G,f5-f4")
	v.cmd(addr("bob"), "lyngk move 101 bob pw-bob b1-b2")
	tokens := func() (n, bytes int) {
		for line := range strings.Lines(v.dump(store.BucketTokens)) {
			if strings.HasPrefix(line, store.BucketTokens+"/") {
				n++
				bytes += len(line)
			}
		}
		return n, bytes
	}
	n, size := tokens()
	t.Logf("a game of 2 moves: %d tokens, %d bytes of token records (%d a move)", n, size, size/3)
	v.cmd(addr("alice"), "lyngk resign 101 alice pw-alice")
	if out := v.cmd(addr("zed"), "signup zed pw"); len(out) != 1 {
		t.Fatalf("zed's signup: %s", format(out))
	}
	v.now = v.now.Add(engine.TokenKeep - time.Hour)
	v.tick()
	if n, _ := tokens(); n == 0 {
		t.Fatal("the tokens went before TokenKeep")
	}
	if out := v.reply(board, addr("bob"), "b2-b3\n"); len(out) != 1 || !strings.Contains(out[0].Body, "Lyngk Board 101 is over: it takes no more moves.") {
		t.Fatalf("a reply within TokenKeep:\n%s", format(out))
	}
	if strings.Contains(v.dump(store.BucketUsers), "/zed=") {
		t.Error("zed's unconfirmed account is kept past SignupKeep")
	}
	if out := v.cmd(addr("zoe"), "signup zed pw2"); len(out) != 1 || !strings.HasPrefix(out[0].Subject, "Confirm PBeM Server signup zed") {
		t.Fatalf("zed's userid is not free again:\n%s", format(out))
	}
	v.now = v.now.Add(2 * time.Hour)
	v.tick()
	if n, _ := tokens(); n != 0 {
		t.Fatalf("%d tokens kept past TokenKeep", n)
	}
	if out := v.reply(board, addr("bob"), "b2-b3\n"); len(out) != 1 || !strings.Contains(strings.ReplaceAll(out[0].Body, "\n", " "), "known for 30 days after its end") {
		t.Fatalf("a reply after TokenKeep:\n%s", format(out))
	}
}

// TestStoreBytesPerGame is the store's figure per game: a whole LYNGK game
// by full commands, the bytes it leaves in the store (keys and values of
// its game record and its reply tokens) while it runs and once its tokens
// expired. Bounds: at most 2 KB of tokens a move, and a finished game
// leaves its record alone (at most 16 KB), with no token.
func TestStoreBytesPerGame(t *testing.T) {
	v := newEnv(t)
	v.signup("alice", "bob")
	v.cmd(addr("alice"), "lyngk challenge alice bob")
	v.playOut(101, [2]string{"alice", "bob"}, 7)
	size := func(bucket string) (records, bytes int) {
		for line := range strings.Lines(v.dump(bucket)) {
			if strings.HasPrefix(line, bucket+"/") {
				records++
				bytes += len(line) - len(bucket) - 3 // key and value: less "bucket/", "=" and the newline
			}
		}
		return records, bytes
	}
	var moves int
	if err := v.db.View(func(tx *store.Tx) error {
		g, err := v.e.ReadGame(tx, 101)
		if err == nil {
			moves = len(g.MoveList)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	_, game := size(store.BucketGames)
	tokens, tokenBytes := size(store.BucketTokens)
	t.Logf("a game of %d moves: game record %d bytes; %d tokens, %d bytes (%d a move)",
		moves, game, tokens, tokenBytes, tokenBytes/moves)
	if tokenBytes/moves > 2048 {
		t.Errorf("%d bytes of tokens a move, want at most 2048", tokenBytes/moves)
	}
	v.now = v.now.Add(engine.TokenKeep + time.Hour)
	for range (tokens + engine.PruneBatch - 1) / engine.PruneBatch {
		v.tick() // PruneBatch tokens a tick
	}
	_, after := size(store.BucketGames)
	if n, _ := size(store.BucketTokens); n != 0 || after > 16<<10 {
		t.Errorf("after TokenKeep: %d tokens, game record %d bytes; want none and at most 16 KB", n, after)
	}
	t.Logf("after TokenKeep: the game record alone, %d bytes", after)
}
