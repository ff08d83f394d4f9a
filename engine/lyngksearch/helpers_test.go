package lyngksearch

import (
	"os"
	"testing"

	"lyngk.example/lyngk/engine/lyngk"
)

// readPosition reads a board block and gives the turn to player.
func readPosition(t *testing.T, file string, player int) lyngk.Game {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	g, _, err := lyngk.ParseBoard(string(data))
	if err != nil {
		t.Fatal(err)
	}
	g.SetTurn(player)
	return g
}
