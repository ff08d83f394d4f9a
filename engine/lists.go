package engine

import (
	"slices"
	"strings"
)

// offerView is the data of the list mail: the games the server offers.
type offerView struct {
	Unknown bool // a word named is no game's: Games are all of them
	Named   bool // Games are those named
	Games   []offeredGame
}

// offeredGame is one game of the list mail: its word, title, the options
// of its challenge and a line about it (the game's texts "options",
// "options-help" and "about"; the title when it has no "about").
type offeredGame struct {
	Word, Title, Options, OptionsHelp, About string
}

// list: list [GAME...], the games this server offers (those named, in the
// order of the server), each with its options and a line from its help.
// It is one of the three commands a stranger gets an answer to: a word
// that is no game's is not refused (an error would quote it) but answered
// with every game, saying that some word was none.
func (r *request) list(c Command) error {
	var v offerView
	named := c.Args
	for _, w := range c.Args {
		if _, ok := r.e.Game(w); !ok {
			v.Unknown, named = true, nil
		}
	}
	v.Named = len(named) > 0
	for _, gm := range r.e.cfg.Games {
		word := gm.Name()
		if len(named) > 0 && !slices.ContainsFunc(named, func(a string) bool { return strings.EqualFold(a, word) }) {
			continue
		}
		o := offeredGame{Word: word, Title: gm.Title(), Options: r.e.gameText(word, "options"),
			OptionsHelp: r.e.gameText(word, "options-help"), About: r.e.gameText(word, "about")}
		v.Games = append(v.Games, o)
	}
	return r.mail("list", []string{r.in.From}, v)
}

// ratings: GAME ratings, the rating list of the game: every player with a
// finished game of it, best first, with the number of games; beside
// standings, which also gives won, lost and tied.
func (r *request) ratings(c Command) error {
	rows, more, err := r.e.StandingsPage(r.tx, c.Game, StandingsCursor{}, r.e.cfg.Listed)
	if err != nil {
		return err
	}
	gm, _ := r.e.Game(c.Game)
	return r.mail("ratings", []string{r.in.From}, standingsView{Title: gm.Title(), Provisional: ProvisionalGames, Rows: rows, More: more})
}
