package main

import (
	"log"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/engine/lyngkpicture"
	"lyngk.example/lyngk/engine/lyngksearch"
	"lyngk.example/lyngk/engine/yinsh"
	"lyngk.example/lyngk/engine/yinshpicture"
	"lyngk.example/lyngk/engine/yinshsearch"
	"lyngk.example/lyngk/store"
)

// offered returns the games the server offers, for engine.Config.Games:
// the one place that knows them all, in the order of help and the lists.
func offered() []games.Game {
	return []games.Game{
		{Rules: lyngk.Rules, Picture: lyngkpicture.Pictures, Input: lyngkpicture.Pictures, Robot: lyngksearch.Robot,
			Judge: lyngksearch.Baseline()},
		{Rules: yinsh.Rules, Picture: yinshpicture.Pictures, Input: yinshpicture.Pictures, Robot: yinshsearch.Robot},
	}
}

// upgrade brings a store file of an older schema version up to date: the
// store calls it, and the records are the engine's. The records that name
// no game are LYNGK's, the one game of the releases that wrote them.
func upgrade(tx *store.Tx, from int) (bool, error) {
	return engine.Upgrade(tx, from, lyngk.Rules.Name(), log.Printf)
}
