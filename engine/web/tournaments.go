package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"lyngk.example/lyngk/engine"
)

// The tournaments on the web: /tournaments, the open, running and
// finished ones, and /tournament/NAME, one with its standings,
// crosstable and rounds; /tournaments.json and /tournament/NAME.json are
// the same data as JSON (the read API's engine.TournamentSummary and
// engine.TournamentDetail), as /game/N.json is beside /game/N.

// tourListed bounds each list of /tournaments: the page reads the index
// keys and the records of the tournaments it shows, and one key more to
// know whether the list goes on (engine.TournamentPage), whatever the
// store holds.
const tourListed = 100

// tourRow is a tournament of a list.
type tourRow struct {
	engine.TournamentSummary
	FormatText, StateText string
	GameName              string // the game's (displayName)
	// When is when it was created while open, started while running,
	// ended once finished.
	When time.Time
}

// tourList is one list of /tournaments.
type tourList struct {
	State   engine.TournamentState
	Heading string
	None    string // what the list says when empty
	Rows    []tourRow
	Next    string // the link to the rest, "" when the list is whole
}

// tournamentsView is /tournaments.
type tournamentsView struct {
	Heading string
	Games   []gameLink // each game's tournaments, with more than one game
	Lists   []tourList
	// Championships are the games' championships that are on or have
	// had an edition (engine.Championship), on the first page only.
	Championships []champLine
}

// champLine is a game's championship on /tournaments.
type champLine struct {
	engine.ChampionshipState
	GameName string // the game's (gameName)
}

// tourStates are the lists of /tournaments, in order, with their
// headings and what each says when empty.
var tourStates = []struct {
	state         engine.TournamentState
	heading, none string
}{
	{engine.TournamentOpen, "Open to join", "No tournament is taking players."},
	{engine.TournamentRunning, "Running", "No tournament is running."},
	{engine.TournamentFinished, "Finished", "No tournament has finished yet."},
}

// stateText says where a tournament stands.
func stateText(s engine.TournamentSummary) string {
	switch s.State {
	case engine.TournamentOpen:
		if s.Min == s.Max {
			return fmt.Sprintf("open: %d of %d players", s.Players, s.Max)
		}
		return fmt.Sprintf("open: %d players of %d to %d", s.Players, s.Min, s.Max)
	case engine.TournamentRunning:
		if s.Format == engine.FormatRoundRobin {
			return fmt.Sprintf("running: its %d rounds at once", s.PlannedRounds)
		}
		if s.PlannedRounds > 0 {
			return fmt.Sprintf("round %d of %d", s.Round, s.PlannedRounds)
		}
		return fmt.Sprintf("round %d", s.Round)
	case engine.TournamentFinished:
		if s.Winner != "" {
			return "finished: " + s.Winner + " won"
		}
		return "finished: a shared first place"
	}
	return string(s.State)
}

func tourRowOf(s engine.TournamentSummary) tourRow {
	row := tourRow{TournamentSummary: s, FormatText: s.Describe(), StateText: stateText(s), GameName: displayName(s.Title),
		When: s.Created}
	switch s.State {
	case engine.TournamentRunning:
		row.When = s.Started
	case engine.TournamentFinished:
		row.When = s.Ended
	}
	return row
}

// tournamentsJSON is /tournaments.json: the lists of the page, each with
// the tournaments (the read API's summaries) and the link to the rest,
// and on the first page the championships (engine.ChampionshipState).
type tournamentsJSON struct {
	Lists         []tourListJSON             `json:"lists"`
	Championships []engine.ChampionshipState `json:"championships,omitempty"`
}

type tourListJSON struct {
	State       engine.TournamentState     `json:"state"`
	Tournaments []engine.TournamentSummary `json:"tournaments"`
	Next        string                     `json:"next,omitempty"`
}

// tournaments is /tournaments[?game=WORD][&state=S&after=KEY] and its
// JSON, /tournaments.json: the three lists, or with state the one list,
// continued after the cursor KEY (the last tournament of the page
// before). Each list holds tourListed tournaments at most. The first page
// tells of each game's championship too (one record a game).
func (h *Handler) tournaments(w http.ResponseWriter, r *http.Request) {
	asJSON := r.URL.Path == "/tournaments.json"
	q := r.URL.Query()
	word := strings.ToLower(q.Get("game"))
	if _, ok := h.cfg.Engine.Game(word); !ok && word != "" {
		h.fail(w, r, http.StatusNotFound, "There is no game "+strconv.Quote(q.Get("game"))+" here.")
		return
	}
	state, after := q.Get("state"), q.Get("after")
	if after != "" && state == "" {
		h.fail(w, r, http.StatusBadRequest, "after=KEY continues one list: it needs state=open, running or finished.")
		return
	}
	v := tournamentsView{Heading: "Tournaments"}
	for _, ts := range tourStates {
		if state == "" || state == string(ts.state) {
			v.Lists = append(v.Lists, tourList{State: ts.state, Heading: ts.heading, None: ts.none})
		}
	}
	if len(v.Lists) == 0 {
		h.fail(w, r, http.StatusBadRequest, "state is open, running or finished.")
		return
	}
	if len(v.Lists) == 1 && after != "" {
		v.Lists[0].None = "No more tournaments: the list ends before this page."
	}
	path := "/tournaments"
	if asJSON {
		path += ".json"
	}
	err := h.cfg.Store.View(func(tx engine.Tx) error {
		if after == "" && state == "" {
			for _, g := range h.cfg.Engine.Games() {
				if word != "" && g.Name() != word {
					continue
				}
				c, err := engine.Championship(tx, g.Name())
				if err != nil {
					return err
				}
				if c.On || c.Edition > 0 {
					v.Championships = append(v.Championships, champLine{ChampionshipState: c, GameName: gameName(g)})
				}
			}
		}
		for i := range v.Lists {
			l := &v.Lists[i]
			page, next, err := h.cfg.Engine.TournamentPage(tx, word, l.State, after, tourListed)
			if err != nil {
				return err
			}
			for _, s := range page {
				l.Rows = append(l.Rows, tourRowOf(s))
			}
			if next != "" {
				link := url.Values{"state": {string(l.State)}, "after": {next}}
				if word != "" {
					link.Set("game", word)
				}
				l.Next = h.cfg.Base + path + "?" + link.Encode()
			}
		}
		return nil
	})
	switch {
	case errors.Is(err, engine.ErrBadCursor):
		h.fail(w, r, http.StatusBadRequest, "after=KEY is the key the page before links to (WORD:name).")
		return
	case err != nil:
		h.serverError(w, r, err)
		return
	}
	if asJSON {
		var j tournamentsJSON
		for _, l := range v.Lists {
			lj := tourListJSON{State: l.State, Next: l.Next, Tournaments: []engine.TournamentSummary{}}
			for _, row := range l.Rows {
				lj.Tournaments = append(lj.Tournaments, row.TournamentSummary)
			}
			j.Lists = append(j.Lists, lj)
		}
		for _, c := range v.Championships {
			j.Championships = append(j.Championships, c.ChampionshipState)
		}
		h.sendJSON(w, r, j)
		return
	}
	if gs := h.cfg.Engine.Games(); len(gs) > 1 {
		v.Games = append(v.Games, gameLink{Title: "All games", Here: word == ""})
		for _, g := range gs {
			v.Games = append(v.Games, gameLink{Word: g.Name(), Title: gameName(g), Here: g.Name() == word})
		}
	}
	title := "Tournaments"
	if g, ok := h.cfg.Engine.Game(word); ok && word != "" {
		title = gameName(g) + " tournaments"
		v.Heading = title
	}
	h.render(w, r, http.StatusOK, "tournaments.html", h.title(title), v)
}

// tournamentView is /tournament/NAME.
type tournamentView struct {
	*engine.TournamentDetail
	FormatText, StateText string
	GameName              string // the game's (displayName)
	Cross                 []crossRow
}

// maxTournamentName bounds the name a path may ask for: longer ones are
// no tournament's, and are answered without reading the store.
const maxTournamentName = 64

// tournament is /tournament/NAME and /tournament/NAME.json.
func (h *Handler) tournament(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	name, asJSON := strings.CutSuffix(name, ".json")
	if name == "" || len(name) > maxTournamentName {
		h.fail(w, r, http.StatusNotFound, "There is no such tournament.")
		return
	}
	var d *engine.TournamentDetail
	err := h.cfg.Store.View(func(tx engine.Tx) (err error) {
		d, err = h.cfg.Engine.ReadTournament(tx, name)
		return err
	})
	switch {
	case errors.Is(err, engine.ErrNoTournament):
		h.fail(w, r, http.StatusNotFound, "There is no tournament "+strconv.Quote(name)+".")
		return
	case err != nil:
		h.serverError(w, r, err)
		return
	}
	if asJSON {
		h.sendJSON(w, r, d)
		return
	}
	v := tournamentView{TournamentDetail: d, FormatText: d.Describe(),
		StateText: stateText(d.TournamentSummary), GameName: displayName(d.Title), Cross: crosstable(d)}
	h.render(w, r, http.StatusOK, "tournament.html", h.title(d.Name+" · "+displayName(d.Title)+" tournament"), v)
}

// sendJSON writes v as JSON, the whole answer: /game/N.json and the
// tournaments' JSON. HTML is not escaped (the answer is no page).
func (h *Handler) sendJSON(w http.ResponseWriter, r *http.Request, v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		h.serverError(w, r, err)
		return
	}
	h.send(w, r, "application/json", b.Bytes())
}
