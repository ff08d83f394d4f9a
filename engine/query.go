package engine

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// filters select games in show and games: all; active = running;
// inactive = finished; next = running and waiting for one of the userids
// named (for anybody when none is named). They are the read API's states
// (read.go), inactive for StateFinished (apiState).
var filters = []string{"all", "active", "inactive", "next"}

// takeFilter splits a trailing filter word off args.
func takeFilter(args []string, def string) ([]string, string) {
	if n := len(args); n > 0 && slices.Contains(filters, strings.ToLower(args[n-1])) {
		return args[:n-1], strings.ToLower(args[n-1])
	}
	return args, def
}

// known refuses a listing that names an unknown userid (signed off ones
// are known: their games stay on record).
func (r *request) known(ids []string) error {
	for _, id := range ids {
		_, ok, err := r.loadUser(id)
		if err != nil {
			return err
		}
		if !ok {
			return refuse(whyUnknownUser, kv{"User": id})
		}
	}
	return nil
}

// selectGames returns the games of the users (all games when keys is
// empty) of game word scope (allScope: every game) that pass state (a
// StateX of read.go), in the listings' order (running first, then
// finished, newest first), at most limit. It reads their summaries
// (listed), not their records; the games beyond limit count in
// r.unlisted, for the summary of what one mail's answers left out.
func (r *request) selectGames(keys []string, scope, state string, limit int) ([]GameSummary, error) {
	gs, more, _, err := r.listed(keys, scope, state, 0, 0, limit)
	r.unlisted += more
	return gs, err
}

// shown is one board to show: the game (nil: read by mailBoards when the
// mail has room for it), its board and the move after which (-1: now).
type shown struct {
	g     *game
	board int
	n     int
}

// showList is a list of the boards of gs to show as they are now.
func showList(gs []GameSummary) []shown {
	var list []shown
	for _, g := range gs {
		list = append(list, shown{board: g.Board, n: -1})
	}
	return list
}

// show: lyngk show BOARD[#N]... or lyngk show USERID... [FILTER]. Each
// board goes to the sender as a board mail (mailBoards).
func (r *request) show(c Command) error {
	if r.silent {
		return nil // a stranger's: answered to nobody, not read
	}
	args, filter := takeFilter(c.Args, "active")
	if len(args) == 0 {
		return r.e.usageRefusal("show", c.Game)
	}
	var list []shown
	var ids []string
	for _, a := range args {
		if !unicode.IsDigit(rune(a[0])) {
			if err := r.known([]string{a}); err != nil {
				return err
			}
			ids = append(ids, a)
			continue
		}
		s, err := r.boardRef(a)
		if err != nil {
			return err
		}
		list = append(list, s)
	}
	if len(ids) > 0 {
		gs, err := r.e.selectFor(r, GameFilter{Users: ids, State: apiState(filter), Game: c.Game}, r.e.cfg.Listed)
		if err != nil {
			return err
		}
		if len(gs) == 0 && len(list) == 0 {
			return r.mail("games", []string{r.in.From}, listView{Title: r.title(c.Game), Users: args, Filter: filter})
		}
		list = append(list, showList(gs)...)
	}
	return r.mailBoards(list, []string{r.in.From}, nil)
}

// mailBoards mails each board of list to the addresses to as a board mail
// of user as, or, for as nil, of the sender's account among the game's
// players and subscribers (r.sender; none: text only, no token). A
// player's own current board carries a fresh reply token, so that the
// mail can be answered with a move like any other board mail.
func (r *request) mailBoards(list []shown, to []string, as *user) error {
	for _, s := range list {
		if !r.roomFor(s.board) {
			continue
		}
		if s.g == nil {
			// Read only now: a listing of 500 boards costs the boards a
			// mail has room for.
			g, ok, err := r.loadGame(s.board)
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("engine: show: no game %d", s.board)
			}
			s.g = g
		}
		v, err := r.e.view(s.g, s.n, 0)
		if err != nil {
			return err
		}
		u := as
		if u == nil {
			if u, err = r.sender(s.g); err != nil {
				return err
			}
		}
		e := envelope{to: to, board: s.g.Board, game: v}
		if u != nil {
			e.key, e.html = strings.ToLower(u.ID), u.html()
			// A player's own current board can be answered with a move.
			if s.n < 0 && s.g.player(e.key) != 0 {
				if e.id, err = r.messageID(s.g, e.key); err != nil {
					return err
				}
				e.play = !v.Over
				v.forTurn(s.g, e.key)
			}
			// showas shows the player his queued move, which nobody
			// else sees.
			if q, ok := s.g.Queued[e.key]; ok && as != nil && s.n < 0 {
				if v.Notice, err = r.notice("your-queued", kv{"Move": q.Move, "N": q.At}); err != nil {
					return err
				}
			}
		}
		if err := r.mailAbout("board", v, e); err != nil {
			return err
		}
	}
	return nil
}

// boardRef reads "101" or "101#5".
func (r *request) boardRef(a string) (shown, error) {
	b, num, hasNum := strings.Cut(a, "#")
	g, err := r.game(b)
	if err != nil {
		return shown{}, err
	}
	if !hasNum {
		return shown{g: g, board: g.Board, n: -1}, nil
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 0 || num[0] == '+' {
		return shown{}, refuse(whyBadBoard, kv{"Arg": a})
	}
	if n > len(g.Moves) {
		return shown{}, refuse(whyShowNumber, kv{"Board": g.Board, "Given": n, "Max": len(g.Moves)}).on(g.Board)
	}
	return shown{g: g, board: g.Board, n: n}, nil
}

// sender returns the player or subscriber of g whose addresses include
// the sender (players first), nil when none: the sender's preferences and
// thread for mails about g. Any other sender gets text only.
func (r *request) sender(g *game) (*user, error) {
	for _, key := range recipients(g) {
		u, ok, err := r.loadUser(key)
		if err != nil {
			return nil, err
		}
		if ok && slices.ContainsFunc(u.Addresses, func(a string) bool { return strings.EqualFold(a, r.in.From) }) {
			return u, nil
		}
	}
	return nil, nil
}

// listView is the data of the games and history mails: the read API's
// summaries (read.go), as the web pages show them. More is the number of
// games after those listed (Config.Listed), and Next the command that lists
// them.
type listView struct {
	Title  string // the game's (games.Rules.Title): "Lyngk"
	Users  []string
	Filter string
	Games  []GameSummary
	More   int
	// Over says there are more than More games after the listing (the
	// keys counted stopped at MaxCounted).
	Over bool
	Next string
}

// apiState is the read API's state for a filter word of the mail
// commands: "inactive" is the API's "finished".
func apiState(filter string) string {
	if filter == "inactive" {
		return StateFinished
	}
	return filter
}

// takeAfter splits a trailing "after BOARD" off args: where a listing
// goes on (0: from its start).
func takeAfter(args []string) ([]string, int, error) {
	n := len(args)
	if n < 2 || !strings.EqualFold(args[n-2], "after") {
		return args, 0, nil
	}
	board, err := boardNumber(args[n-1])
	return args[:n-2], board, err
}

// games: lyngk games [USERID...] [FILTER] [after BOARD], one mail listing
// the running games, then the finished ones, newest first, at most
// MaxListed, and how to ask for the rest. A stranger's listing, answered
// to nobody, is not read at all.
func (r *request) games(c Command) error {
	args, after, err := takeAfter(c.Args)
	if err != nil {
		return err
	}
	ids, filter := takeFilter(args, "all")
	return r.listMail(c, "games", ids, filter, after)
}

// history: lyngk history [USERID...] [after BOARD], the finished games,
// newest first (the last ended first of everybody's; a player's by board),
// at most MaxListed.
func (r *request) history(c Command) error {
	ids, after, err := takeAfter(c.Args)
	if err != nil {
		return err
	}
	return r.listMail(c, "history", ids, "inactive", after)
}

// listMail mails the listing kind (games, history) of the games of ids in
// filter, after board after.
func (r *request) listMail(c Command, kind string, ids []string, filter string, after int) error {
	if r.silent {
		return nil
	}
	if err := r.known(ids); err != nil {
		return err
	}
	keys, err := keysOf(r.tx, ids)
	if err != nil {
		return err
	}
	gs, more, over, err := r.listed(keys, scopeOf(c.Game), apiState(filter), after, 0, r.e.cfg.Listed)
	if err != nil {
		return err
	}
	v := listView{Title: r.title(c.Game), Users: ids, Filter: filter, More: more, Over: over, Games: gs}
	if more > 0 && len(gs) > 0 {
		words := append([]string{c.Game, kind}, ids...)
		if kind == "games" {
			words = append(words, filter)
		}
		v.Next = fmt.Sprintf("%s after %d", strings.Join(words, " "), gs[len(gs)-1].Board)
	}
	return r.mail(kind, []string{r.in.From}, v)
}

// standingsView is the data of the standings mail.
type standingsView struct {
	Title       string
	Provisional int
	Rows        []Standing
	More        int // players after those listed (Config.Listed)
}

// standings: the players with a finished game of c's game, best rating
// first, at most Config.Listed, and how many more.
func (r *request) standings(c Command) error {
	rows, more, err := r.e.StandingsPage(r.tx, c.Game, StandingsCursor{}, r.e.cfg.Listed)
	if err != nil {
		return err
	}
	return r.mail("standings", []string{r.in.From}, standingsView{Title: r.title(c.Game), Provisional: ProvisionalGames, Rows: rows, More: more})
}

// helpView is the data of the help mails.
type helpView struct {
	Server, Topic string
	Commands      string     // "help commands"' list (helpCommands)
	Games         []gameHelp // the games the server offers
	Topics        string     // the topics of "help TOPIC", for its refusal
	Text          string     // a game's text: "help GAME", "help notation"
	RobotPlayer   bool       // a robot player takes challenges (Config.RobotPlayer)
	// Robots are the robot players that take challenges, weakest first,
	// and Suggested the userid the mails suggest (robotViews; not
	// "Robot", the server's address of old, accountView's).
	Robots    []robotView
	Suggested string
	// Sections are "help notation" and "help rules": each game's text of
	// the topic.
	Sections []helpSection
}

// helpSection is one game's text of a help topic; Text is "" when the game
// has none.
type helpSection struct{ Title, Word, Text string }

// gameHelp is a game in the help and welcome mails: its word and title,
// how the help names it (gameText "intro", else its title), a first move
// (gameText "example" at turn 1) and the moves a reply may hold
// (gameText "play-examples").
type gameHelp struct{ Word, Title, Intro, First, Examples string }

// gameHelps are the games the server offers, for the help and welcome
// mails: every one of them is named, with its own commands.
func (e *Engine) gameHelps() []gameHelp {
	var out []gameHelp
	for _, gm := range e.cfg.Games {
		h := gameHelp{Word: gm.Name(), Title: gm.Title(), Intro: e.gameText(gm.Name(), "intro"),
			First: e.example(gm.Name(), 1), Examples: e.gameText(gm.Name(), "play-examples")}
		if h.Intro == "" {
			h.Intro = h.Title
		}
		out = append(out, h)
	}
	return out
}

// help: help [TOPIC]. TOPIC is commands, notation or rules (each game's
// text of it), or a game word (that game's page, gameText "help").
func (r *request) help(c Command) error {
	robots, robot, err := r.robotViews()
	if err != nil {
		return err
	}
	v := helpView{Server: r.e.cfg.Server, Commands: r.e.helpCommands(), Topics: strings.Join(helpTopics, ", "),
		Games: r.e.gameHelps(), RobotPlayer: len(robots) > 0, Robots: robots, Suggested: robot}
	if len(v.Games) > 1 {
		for _, g := range v.Games {
			v.Topics += ", " + g.Word
		}
	}
	body := "help"
	if len(c.Args) == 1 {
		v.Topic = strings.ToLower(c.Args[0])
		_, game := r.e.games[v.Topic]
		switch text := r.e.gameText(v.Topic, "help"); {
		case game && text != "":
			// A game's own page ("help yinsh"): its text GAME.help.
			body, v.Text = "help-game", text
		case v.Topic == "notation" || v.Topic == "rules":
			// Each game's text of the topic, one after another; a game
			// without one is pointed to its page.
			body = "help-topic"
			for _, g := range v.Games {
				v.Sections = append(v.Sections, helpSection{Title: g.Title, Word: g.Word, Text: r.e.gameText(g.Word, v.Topic)})
			}
		case v.Topic == "commands":
			body = "help-commands"
		case v.Topic == "robot":
			body = "help-robot"
		default:
			return refuse(whyHelpTopic, kv{"Topic": c.Args[0], "Topics": v.Topics})
		}
	}
	subject, err := r.e.cfg.Templates.Render("help.subject", v)
	if err != nil {
		return err
	}
	text, err := r.e.cfg.Templates.Render(body+".body", v)
	if err != nil {
		return err
	}
	return r.send(Mail{To: []string{r.in.From}, Subject: subject, Body: text}, envelope{})
}

// helpTopics are the topics of "help TOPIC" beside the game words.
var helpTopics = []string{"commands", "notation", "rules", "robot"}

// robotView is a robot player in the help and welcome mails.
type robotView struct{ ID, About, Budget string }

// robotViews are the robot players that take challenges, weakest first: the
// levels on, but for one whose userid a human holds (he keeps it, and the
// level is not offered). robot is the one the mails suggest: RobotID, the
// default level, when it is on, else the weakest.
func (r *request) robotViews() (views []robotView, robot string, err error) {
	if !r.e.cfg.RobotPlayer {
		return nil, "", nil
	}
	for _, l := range r.e.cfg.RobotLevels {
		u, ok, err := r.loadUser(l.ID)
		if err != nil {
			return nil, "", err
		}
		if ok && !u.Robot {
			continue
		}
		views = append(views, robotView{ID: l.ID, About: l.About, Budget: l.Budget()})
		if robot == "" || l.ID == RobotID {
			robot = l.ID
		}
	}
	return views, robot, nil
}

// title is the name of game word (games.Rules.Title), the first game's for
// none.
func (r *request) title(word string) string {
	if gm, ok := r.e.games[word]; ok {
		return gm.Title()
	}
	return r.e.cfg.Games[0].Title()
}
