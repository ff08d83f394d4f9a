package yinshsearch

import "lyngk.example/lyngk/engine/mcts"

// rng is the search's generator, for the tests' players.
type rng mcts.RNG

func (r *rng) intn(n int) int { return (*mcts.RNG)(r).Intn(n) }
