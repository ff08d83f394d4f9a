package engine_test

import (
	"strings"
	"testing"
)

// TestCommandsTestGame: pbmserv's other common commands that know games (list,
// preview, submit and confirm, queue, showas, ratings, all show) work for
// the test game of the contract as for LYNGK, through Handle; every mail
// against testdata/commands-testgame.golden.
func TestCommandsTestGame(t *testing.T) {
	v := newEnv(t, withTicTacToe)
	v.signup("alice", "bob")
	var out []string
	send := func(from, subject string) {
		t.Helper()
		out = append(out, "### "+from+": "+subject+"\n"+format(v.cmd(addr(from), subject)))
	}
	send("alice", "list tictactoe")
	send("alice", "tictactoe challenge alice bob") // board 101
	send("bob", "tictactoe preview 101 b2 a1 c3")
	send("bob", "tictactoe preview 101 b2 b2") // taken: illegal
	send("alice", "tictactoe submit 101 alice pw-alice b2")
	send("alice", "tictactoe confirm 101 alice pw-alice")
	send("alice", "tictactoe queue 101 alice pw-alice a1") // for her next turn
	send("alice", "tictactoe showas alice pw-alice")       // shows it
	send("bob", "tictactoe move 101 bob pw-bob a1")        // takes her cell: hers is dropped
	send("alice", "tictactoe move 101 alice pw-alice c1")
	send("alice", "tictactoe queue 101 alice pw-alice c3#5")
	send("bob", "tictactoe move 101 bob pw-bob a3") // move 4, and her c3 is move 5
	send("bob", "tictactoe resign 101 bob pw-bob")
	send("alice", "tictactoe ratings")
	send("alice", "lyngk challenge alice bob") // board 102
	send("bob", "all show alice")
	got := strings.Join(out, "\n")
	for _, want := range []string{"Tictactoe Board 101 move queued", "queued move dropped", "Your queued move: a1",
		"   3 c1         4 a3      \n   5 c3"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q", want)
		}
	}
	checkGolden(t, "commands-testgame", got)
}
