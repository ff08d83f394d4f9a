package web

import (
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/games"
)

// recentFinished is how many finished games the front page lists, and
// frontRunning how many running ones (the newest): the front page stays
// small however many games a flood of challenges starts; /games pages
// through the rest.
const (
	recentFinished = 20
	frontRunning   = 50
)

// maxListed bounds a page of games (/games, a player's page: running
// first, then finished, newest first, with a link to the next page) and
// of the standings. The read API reads the games of the page alone
// (engine.Page), and a page starts after the last line of the page
// before (games, standings). 100 lines keep the largest page within
// 100 KB (TestPagesWithin100KB: the longest userids and names), about
// 40 KB as players' names go.
const maxListed = 100

// row is one game of a listing.
type row struct {
	engine.GameSummary
	Status string // in words
	Name   string // the game's (gameName)
}

func rowOf(g engine.GameSummary) row {
	return row{GameSummary: g, Status: statusText(g), Name: displayName(g.Title)}
}

func rows(gs []engine.GameSummary) []row {
	out := make([]row, 0, len(gs))
	for _, g := range gs {
		out = append(out, rowOf(g))
	}
	return out
}

// statusText says where a game stands, in the words of the board mails.
func statusText(g engine.GameSummary) string {
	loser := ""
	if g.Winner != 0 {
		loser = g.Players[2-g.Winner]
	}
	switch g.Status {
	case engine.StatusPlaying:
		return g.ToMoveID() + " to move"
	case engine.StatusWon:
		return g.WinnerID() + " won"
	case engine.StatusTie:
		if g.How == engine.EndDraw {
			return "drawn by agreement"
		}
		return "tie"
	case engine.StatusResigned:
		return loser + " resigned; " + g.WinnerID() + " won"
	case engine.StatusForfeit:
		return loser + " forfeited; " + g.WinnerID() + " won"
	case engine.StatusCancelled:
		if g.How != engine.EndRules {
			return "cancelled (" + string(g.How) + ")"
		}
		return "cancelled"
	}
	return string(g.Status)
}

// indexView is the front page: the running games and the last finished.
type indexView struct {
	Running     []row
	MoreRunning int // running games beyond frontRunning
	Finished    []row
}

func (h *Handler) index(w http.ResponseWriter, r *http.Request) {
	var v indexView
	err := h.cfg.Store.View(func(tx engine.Tx) error {
		running, more, err := h.cfg.Engine.Page(tx, engine.GameFilter{State: engine.StateActive}, engine.Cursor{}, frontRunning)
		if err != nil {
			return err
		}
		finished, _, err := h.cfg.Engine.Page(tx, engine.GameFilter{State: engine.StateFinished}, engine.Cursor{}, recentFinished)
		if err != nil {
			return err
		}
		slices.Reverse(running) // the newest, in board order
		v.MoreRunning, v.Running, v.Finished = more, rows(running), rows(finished)
		return nil
	})
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	h.render(w, r, http.StatusOK, "index.html", h.title("Games"), v)
}

// gamesView is /games: the filter and the games that pass it.
type gamesView struct {
	User, State string
	States      []string
	Games       []row
	More        int // games on later pages
	Page        int // from 1 (?page=N)
	Last        int // the board of the page's last game: the next page starts after it
}

// games is /games[?state=S][&user=U][&after=BOARD&page=N]: the listing of
// the games, maxListed a page. A page starts after the last game of the
// page before (after, a board, the cursor of the link to the next page),
// so that it reads its own games and the index key of one more, whatever
// page it is: page N by number read the keys of every game before it.
// page only numbers the page (and counts the games after it). A link of
// the old form, ?page=N without after, is redirected (302: a page's first
// game moves as games start and end) to the page after the last game of
// page N-1 as the listing stands, found once by reading the keys before
// it; past the listing's end it is answered as an empty page.
func (h *Handler) games(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v := gamesView{User: q.Get("user"), State: q.Get("state"),
		States: []string{engine.StateActive, engine.StateFinished, engine.StateAll}}
	if v.State == "" {
		v.State = engine.StateAll
	}
	v.Page = 1
	if p := q.Get("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 1<<20 {
			h.fail(w, r, http.StatusBadRequest, "page is a whole number from 1.")
			return
		}
		v.Page = n
	}
	after := 0
	if a := q.Get("after"); a != "" {
		n, err := strconv.Atoi(a)
		if err != nil || n < 1 {
			h.fail(w, r, http.StatusBadRequest, "after is a board number.")
			return
		}
		after = n
	}
	if v.State == engine.StateNext || !validState(v.State) {
		h.fail(w, r, http.StatusBadRequest, "state is active, finished or all.")
		return
	}
	f := engine.GameFilter{State: v.State}
	if v.User != "" {
		f.Users = []string{v.User}
	}
	var gs []engine.GameSummary
	redirect := 0
	err := h.cfg.Store.View(func(tx engine.Tx) (err error) {
		at := engine.Cursor{After: after, Before: (v.Page - 1) * maxListed}
		if after == 0 && v.Page > 1 {
			// The old form: the last game of the page before, for the
			// redirect; past the listing's end, the page by number
			// (empty).
			last, _, err := h.cfg.Engine.Page(tx, f, engine.Cursor{Skip: at.Before - 1}, 1)
			if err != nil || len(last) > 0 {
				redirect = boardOf(last)
				return err
			}
			at.Skip = at.Before
		}
		gs, v.More, err = h.cfg.Engine.Page(tx, f, at, maxListed)
		return err
	})
	if h.playerFailed(w, r, v.User, err) {
		return
	}
	if redirect != 0 {
		http.Redirect(w, r, h.gamesURL(v, redirect), http.StatusFound)
		return
	}
	v.Games = rows(gs)
	if len(gs) > 0 {
		v.Last = gs[len(gs)-1].Board
	}
	title := strings.ToUpper(v.State[:1]) + v.State[1:] + " games"
	if v.User != "" {
		title += " of " + v.User
	}
	h.render(w, r, http.StatusOK, "games.html", h.title(title), v)
}

// boardOf is the board of the one game of gs, 0 for none.
func boardOf(gs []engine.GameSummary) int {
	if len(gs) == 0 {
		return 0
	}
	return gs[0].Board
}

// gamesURL is the link to page v.Page of the listing of v, after board
// after.
func (h *Handler) gamesURL(v gamesView, after int) string {
	q := url.Values{"state": {v.State}, "after": {strconv.Itoa(after)}, "page": {strconv.Itoa(v.Page)}}
	if v.User != "" {
		q.Set("user", v.User)
	}
	return h.cfg.Base + "/games?" + q.Encode()
}

func validState(s string) bool {
	return s == engine.StateActive || s == engine.StateFinished || s == engine.StateAll
}

// standings is /standings[?game=WORD][&after=CURSOR&page=N]: the
// standings of one game, the first the server offers by default,
// maxListed players a page. A page starts after the last line of the
// page before (after, its rating and userid: the link to the next page),
// so that it reads its own players and one index key more, whatever page
// it is; page numbers it (its first rank, the count of the players after
// it). A link of the old form, ?page=N without after, is redirected (302:
// the lines move as ratings change) to the page after the last line of
// page N-1 as the standings stand, found once by reading the index keys
// before it; past the standings' end it is answered as an empty page. The
// page names its game, also when the server offers one game only.
func (h *Handler) standings(w http.ResponseWriter, r *http.Request) {
	var st []engine.Standing
	q := r.URL.Query()
	name := q.Get("game")
	if _, ok := h.cfg.Engine.Game(name); !ok && name != "" {
		h.fail(w, r, http.StatusNotFound, "There is no game "+strconv.Quote(name)+" here.")
		return
	}
	here := strings.ToLower(name)
	if here == "" {
		here = h.cfg.Engine.Games()[0].Name()
	}
	v := standingsView{Provisional: engine.ProvisionalGames, Page: 1, Word: here}
	if p := q.Get("page"); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 1<<20 {
			h.fail(w, r, http.StatusBadRequest, "page is a whole number from 1.")
			return
		}
		v.Page = n
	}
	at := engine.StandingsCursor{After: q.Get("after"), Before: (v.Page - 1) * maxListed}
	redirect := ""
	err := h.cfg.Store.View(func(tx engine.Tx) (err error) {
		if at.After == "" && v.Page > 1 {
			// The old form: the last line of the page before, for the
			// redirect; past the standings' end, the page by number
			// (empty).
			last, _, err := h.cfg.Engine.StandingsPage(tx, here, engine.StandingsCursor{Skip: at.Before - 1}, 1)
			if err != nil || len(last) > 0 {
				if len(last) > 0 {
					redirect = last[0].After
				}
				return err
			}
			at.Skip = at.Before
		}
		st, v.More, err = h.cfg.Engine.StandingsPage(tx, here, at, maxListed)
		return err
	})
	if errors.Is(err, engine.ErrBadStandingsCursor) {
		h.fail(w, r, http.StatusBadRequest, "after is the rating and userid the page before links to (RATING:userid).")
		return
	}
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	if redirect != "" {
		http.Redirect(w, r, h.standingsURL(here, redirect, v.Page), http.StatusFound)
		return
	}
	v.Rows = st
	if len(st) > 0 {
		v.Last = st[len(st)-1].After
	}
	gs := h.cfg.Engine.Games()
	for _, g := range gs {
		if g.Name() == here {
			v.Title = gameName(g)
		}
		if len(gs) > 1 {
			// Several games: each its own standings, the first by default.
			v.Games = append(v.Games, gameLink{Word: g.Name(), Title: gameName(g), Here: g.Name() == here})
		}
	}
	h.render(w, r, http.StatusOK, "standings.html", h.title(v.Title+" standings"), v)
}

// standingsURL is the link to page of game word's standings, after the
// line of cursor after.
func (h *Handler) standingsURL(word, after string, page int) string {
	q := url.Values{"game": {word}, "after": {after}, "page": {strconv.Itoa(page)}}
	return h.cfg.Base + "/standings?" + q.Encode()
}

// standingsView is /standings: the players, and below how many finished
// games a rating is provisional.
type standingsView struct {
	Rows        []engine.Standing
	More        int    // players on later pages (maxListed a page)
	Page        int    // from 1 (?page=N)
	Word        string // the game's word, for the link to the next page
	Last        string // the cursor of the page's last line: the next page starts after it
	Provisional int
	Title       string     // the game's (gameName)
	Games       []gameLink // each game's standings, when more than one
}

// gameRating is a player's rating and record in one game.
type gameRating struct {
	Title string
	engine.Player
}

// gameLink is a game in the links of the standings page.
type gameLink struct {
	Word, Title string
	Here        bool
}

// playerView is /player/ID.
type playerView struct {
	engine.Player
	// Ratings are the player's rating and record in each game, when the
	// server offers more than one.
	Ratings []gameRating
	// Tournaments are the open and running tournaments he plays in.
	Tournaments []tourRow
	Games       []row
	More        int
	Last        int // the board of the last game listed
}

func (h *Handler) player(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	var v playerView
	err := h.cfg.Store.View(func(tx engine.Tx) error {
		// The player, with the rating of the one game the server
		// offers; with several, Ratings has each game's.
		p, err := h.cfg.Engine.ReadPlayer(tx, id, h.cfg.Engine.Games()[0].Name())
		if err != nil {
			return err
		}
		if gs := h.cfg.Engine.Games(); len(gs) > 1 {
			for _, g := range gs {
				q, err := h.cfg.Engine.ReadPlayer(tx, id, g.Name())
				if err != nil {
					return err
				}
				v.Ratings = append(v.Ratings, gameRating{Title: gameName(g), Player: q})
			}
		}
		gs, more, err := h.cfg.Engine.Page(tx, engine.GameFilter{Users: []string{id}, State: engine.StateAll}, engine.Cursor{}, maxListed)
		if err != nil {
			return err
		}
		ts, err := h.cfg.Engine.PlayerTournaments(tx, p.ID)
		if err != nil {
			return err
		}
		for _, t := range ts {
			v.Tournaments = append(v.Tournaments, tourRowOf(t))
		}
		v.Player, v.Games, v.More = p, rows(gs), more
		if len(gs) > 0 {
			v.Last = gs[len(gs)-1].Board
		}
		return nil
	})
	if h.playerFailed(w, r, id, err) {
		return
	}
	h.render(w, r, http.StatusOK, "player.html", h.title(v.ID), v)
}

// gameView is /game/N: the game, and the position shown (after move K).
type gameView struct {
	row
	Version string
	K       int  // the position shown is after move K
	Latest  bool // K is the last move: the current position
	// First, Prev, Next, Last are the links to the other positions, ""
	// where there is none to go to.
	First, Prev, Next, Last string
	Players                 []playerLine
	// ClaimsTitle heads the players' labels (games.Side.LabelsTitle).
	ClaimsTitle string
	Moves       []moveLine
	Picture     template.HTML
	Block       string
	Cols        int // Block's widest line, in characters
	// Position says who is to move in the position shown.
	Position string
	// SGF says the game offers boardspace's records (games.Boardspace):
	// the page links /game/N.sgf beside the text record.
	SGF bool
	// Review is the robot's review of a finished game (review.go), nil
	// when there is none (yet: Reviewing says it is being made).
	Review    *gameReview
	Reviewing bool
}

// playerLine is a player of the game page with what they have beside the
// board (games.Picture.Sides; LYNGK: Claims the colours claimed, Removed
// the stacks removed).
type playerLine struct {
	Name    string
	ToMove  bool
	Winner  bool
	Claims  []games.Label
	Removed int
}

type moveLine struct {
	K    int
	Move string
	Link string
	Here bool
}

// gameRef is a game read for one request, with the position asked for.
type gameRef struct {
	d       *engine.GameDetail
	version uint64
	k       int
	pos     games.Position
	game    games.Game
}

// readGame reads game {n} and its position after ?after=K (the current
// one when absent) in one transaction. It answers the request itself
// (400, 404, 500) and returns false when it cannot be served.
func (h *Handler) readGame(w http.ResponseWriter, r *http.Request, n string) (*gameRef, bool) {
	board, ok := number(n)
	if !ok {
		h.fail(w, r, http.StatusBadRequest, "A board number is a whole number, like /game/12.")
		return nil, false
	}
	k := -1
	if after, set := r.URL.Query()["after"]; set {
		if k, ok = number(strings.Join(after, ",")); !ok {
			h.fail(w, r, http.StatusBadRequest, "after=K wants the number of a move: 0 for the start, 1 for the first move.")
			return nil, false
		}
	}
	ref := &gameRef{k: k}
	err := h.cfg.Store.View(func(tx engine.Tx) error {
		d, err := h.cfg.Engine.ReadGame(tx, board)
		if err != nil {
			return err
		}
		if ref.k > len(d.MoveList) {
			return errNoPosition
		}
		if ref.k < 0 {
			ref.k = len(d.MoveList)
		}
		ref.d = d
		if ref.version, err = engine.GameVersion(tx, board); err != nil {
			return err
		}
		if ref.game, err = d.Rules(); err != nil {
			return err
		}
		ref.pos, err = d.Position(ref.k)
		return err
	})
	switch {
	case errors.Is(err, engine.ErrNoGame):
		h.fail(w, r, http.StatusNotFound, fmt.Sprintf("There is no board %d.", board))
		return nil, false
	case errors.Is(err, errNoPosition):
		h.fail(w, r, http.StatusNotFound, fmt.Sprintf("Board %d has no move %d yet.", board, k))
		return nil, false
	case err != nil:
		h.serverError(w, r, err)
		return nil, false
	}
	return ref, true
}

var errNoPosition = errors.New("web: no such position")

// number reads a non-negative whole number written in digits only.
func number(s string) (int, bool) {
	if s == "" || len(s) > 9 || strings.TrimLeft(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

func (h *Handler) game(w http.ResponseWriter, r *http.Request) {
	n := r.PathValue("n")
	if num, ok := strings.CutSuffix(n, ".json"); ok {
		h.gameJSON(w, r, num)
		return
	}
	for _, ext := range []string{"txt", "sgf"} {
		if num, ok := strings.CutSuffix(n, "."+ext); ok {
			h.gameRecord(w, r, num, ext)
			return
		}
	}
	ref, ok := h.readGame(w, r, n)
	if !ok {
		return
	}
	d, k := ref.d, ref.k
	base := fmt.Sprintf("%s/game/%d", h.cfg.Base, d.Board)
	at := func(k int) string { return fmt.Sprintf("%s?after=%d", base, k) }
	last := len(d.MoveList)
	v := gameView{row: rowOf(d.GameSummary),
		Version: strconv.FormatUint(ref.version, 10), K: k, Latest: k == last,
		Block: ref.pos.Board(d.Players)}
	for _, line := range strings.Split(v.Block, "\n") {
		v.Cols = max(v.Cols, utf8.RuneCountInString(line))
	}
	if k > 0 {
		v.First, v.Prev = at(0), at(k-1)
	}
	if k < last {
		v.Next, v.Last = at(k+1), base
	}
	if k+1 == last {
		v.Next = base
	}
	for i, m := range d.MoveList {
		v.Moves = append(v.Moves, moveLine{K: i + 1, Move: m, Link: at(i + 1), Here: i+1 == k})
	}
	if v.Latest && len(v.Moves) > 0 {
		v.Moves[last-1].Link = base
	}
	var sides [2]games.Side
	if pic := ref.game.Picture; pic != nil {
		sides = pic.Sides(ref.pos)
	}
	v.ClaimsTitle = sides[0].LabelsTitle
	_, v.SGF = ref.game.Rules.(games.Boardspace)
	if h.reviews != nil && d.Over() && ref.game.Robot != nil && d.Status != engine.StatusCancelled {
		if v.Review = h.reviews.get(d.Board); v.Review != nil && v.Review.Chart == "" {
			v.Review = nil // none could be made
		}
		v.Reviewing = v.Review == nil && h.reviews.queued(d.Board)
	}
	for i, name := range d.Players {
		v.Players = append(v.Players, playerLine{Name: name, ToMove: ref.pos.Turn() == i+1 && !(v.Latest && d.Over()),
			Winner: d.Winner == i+1 && v.Latest, Claims: sides[i].Labels, Removed: sides[i].Count})
	}
	switch to := ref.pos.Turn(); {
	case v.Latest:
		v.Position = v.Status
	case to != 0:
		v.Position = d.Players[to-1] + " to move"
	default:
		v.Position = "the game is over"
	}
	if pic := ref.game.Picture; pic != nil {
		svg, err := pic.SVG(ref.pos, d.Players, ref.legend())
		if err != nil {
			h.serverError(w, r, err)
			return
		}
		v.Picture = inlineSVG(svg, pic, fmt.Sprintf("Board %d after move %d: %s", d.Board, k, v.Position))
	}
	title := fmt.Sprintf("%s · Board %d, move %d: %s", v.Name, d.Board, k, v.Position)
	if !v.Latest {
		title = fmt.Sprintf("%s · Board %d after move %d of %d: %s", v.Name, d.Board, k, last, v.Position)
	}
	h.renderPage(w, r, http.StatusOK, "game.html", page{Title: h.title(title), Live: base + "/events", Data: v})
}

// inlineSVG makes the picture's SVG document an element of the page: no
// XML declaration, a width that follows the page (the viewBox keeps the
// drawing's proportions) and a title for screen readers. The drawing is
// ours and escapes the names it writes.
func inlineSVG(doc []byte, pic games.Picture, title string) template.HTML {
	width, height := pic.Size()
	s := string(doc)
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	s = strings.Replace(s, fmt.Sprintf(`width="%dpt" height="%dpt"`, width, height),
		fmt.Sprintf(`width="%d" height="%d" role="img"`, width, height), 1)
	if i := strings.IndexByte(s, '>'); i >= 0 {
		s = s[:i+1] + "<title>" + template.HTMLEscapeString(title) + "</title>" + s[i+1:]
	}
	return template.HTML(s)
}
