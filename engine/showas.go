package engine

import (
	"slices"
	"strings"
	"unicode"
)

// allShow: all show USERID [next|active], the boards of that player's
// games of every game the server offers (default active: running), each
// as show mails it, within the bounds of one mail (the boards left out are
// listed in the summary, as for show).
func (r *request) allShow(c Command) error {
	if r.silent {
		return nil // a stranger's: answered to nobody, not read
	}
	args, filter := takeFilter(c.Args, "active")
	if len(args) != 1 || (filter != "active" && filter != "next") {
		return r.e.usageRefusal("all show", "")
	}
	if err := r.known(args); err != nil {
		return err
	}
	gs, err := r.e.selectFor(r, GameFilter{Users: args, State: apiState(filter)}, r.e.cfg.Listed)
	if err != nil {
		return err
	}
	if len(gs) == 0 {
		return r.mail("games", []string{r.in.From}, listView{Users: args, Filter: filter})
	}
	return r.mailBoards(showList(gs), []string{r.in.From}, nil)
}

// showAs: GAME showas USERID PASSWORD [BOARD...|all|active|inactive|next]
// mails the boards to that player's addresses exactly as the player gets
// them: in the player's format, each current board of a running game of
// theirs with a fresh reply token, so that answering it moves (for a
// player who lost a board mail). Without boards, the player's games of
// GAME that pass the filter (default active); a board named is one of
// GAME's (r.game refuses another game's), shown as an onlooker sees it if
// the player does not play it.
func (r *request) showAs(c Command) error {
	u, err := r.authenticate(c.Args[0], c.Args[1])
	if err != nil {
		return err
	}
	args, filter := takeFilter(c.Args[2:], "active")
	var list []shown
	for _, a := range args {
		if !unicode.IsDigit(rune(a[0])) {
			return r.e.usageRefusal("showas", c.Game)
		}
		s, err := r.boardRef(a)
		if err != nil {
			return err
		}
		list = append(list, s)
	}
	if len(args) == 0 {
		key := strings.ToLower(u.ID)
		gs, err := r.selectGames([]string{key}, c.Game, apiState(filter), r.e.cfg.Listed)
		if err != nil {
			return err
		}
		gs = slices.DeleteFunc(gs, func(g GameSummary) bool { return g.Game != c.Game })
		if len(gs) == 0 {
			return r.mail("games", []string{r.in.From}, listView{Users: []string{u.ID}, Filter: filter})
		}
		list = append(list, showList(gs)...)
	}
	return r.mailBoards(list, u.Addresses, u)
}
