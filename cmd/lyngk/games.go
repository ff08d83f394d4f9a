package main

import (
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/engine/lyngk/picture"
	"lyngk.example/lyngk/engine/lyngk/search"
	"lyngk.example/lyngk/engine/yinsh"
	ypicture "lyngk.example/lyngk/engine/yinsh/picture"
	ysearch "lyngk.example/lyngk/engine/yinsh/search"
)

// offered returns the games the server offers, for engine.Config.Games:
// the one place that knows them all. LYNGK stays first: it is the game of
// the records that name none, every record written before the server
// offered other games.
func offered() []games.Game {
	return []games.Game{
		{Rules: lyngk.Rules{}, Picture: picture.Pictures{}, Input: picture.Pictures{}, Robot: search.Robot{}},
		{Rules: yinsh.Rules{}, Picture: ypicture.Pictures{}, Input: ypicture.Pictures{}, Robot: ysearch.Robot{}},
	}
}
