package main

import (
	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/engine/lyngk/picture"
	"lyngk.example/lyngk/engine/lyngk/search"
	"lyngk.example/lyngk/engine/yinsh"
	ypicture "lyngk.example/lyngk/engine/yinsh/picture"
	ysearch "lyngk.example/lyngk/engine/yinsh/search"
	"lyngk.example/lyngk/store"
)

// offered returns the games the server offers, for engine.Config.Games:
// the one place that knows them all, in the order of help and the lists.
func offered() []games.Game {
	return []games.Game{
		{Rules: lyngk.Rules{}, Picture: picture.Pictures{}, Input: picture.Pictures{}, Robot: search.Robot{}},
		{Rules: yinsh.Rules{}, Picture: ypicture.Pictures{}, Input: ypicture.Pictures{}, Robot: ysearch.Robot{}},
	}
}

// upgrade brings a store file of an older schema version up to date: the
// store calls it, and the records are the engine's. The records that name
// no game are LYNGK's, the one game of the releases that wrote them.
func upgrade(tx *store.Tx, from int) error { return engine.Upgrade(tx, from, lyngk.Rules{}.Name()) }
