package lyngksearch

import (
	"os"
	"testing"

	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/engine/mcts"
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

// rng is the search's generator, for the players of the strength matches.
type rng mcts.RNG

func (r *rng) next() uint64   { return (*mcts.RNG)(r).Next() }
func (r *rng) intn(n int) int { return (*mcts.RNG)(r).Intn(n) }
