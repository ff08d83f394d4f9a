package engine

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"lyngk.example/lyngk/engine/tournament"
	"lyngk.example/lyngk/templates"
)

// The championship of a game: leagues of about ten players of similar
// rating, each a round robin, the first two of a league promoted and the
// sixth and below relegated from one edition to the next (package
// tournament's NextLeagues), as on the correspondence servers whose
// players stay for decades.
//
// The operator switches it on for a game (`lyngk admin championship GAME
// on`, SetChampionship); players enrol by mail (GAME championship join
// USERID PASSWORD) and stay enrolled, edition after edition, until they
// leave (GAME championship leave USERID PASSWORD) or sign off. The first
// edition starts ChampionshipPause after the operator switched it on (the
// time to enrol); each later one ChampionshipPause after the last game of
// the one before ended. Its leagues start one a tick, the top one first
// (startLeague). An edition's leagues are tournaments like any
// (tournamentplay.go: round robin, rated, every game started at once,
// the same mails and forfeits), named GAME-championship-E-league-L, a
// name longer than a player may give a tournament, so no player can take
// it. A player who leaves during an edition plays it to its end (or
// withdraws from his league as from any tournament): leaving takes him
// out of the next. Switched off, no edition starts; the running one plays
// to its end. Switched on again, the next edition starts
// ChampionshipPause after the last one's end, at once when that is past.
//
// When an edition is due, the players enrolled then who have not signed
// off are its entrants, with their rating in the game; fewer than two
// and it waits another ChampionshipPause. The timer (Tick) does all of
// this: it reads one record a game a minute, and while an edition runs
// its leagues until the first unfinished one.
//
// The record is meta "championship " + the game's word (a championship
// per game, one record each).

// DefaultChampionshipPause is the default time between the end of an
// edition and the start of the next (Config.ChampionshipPause): a week,
// as on Little Golem.
const DefaultChampionshipPause = 7 * 24 * time.Hour

// MaxChampionshipPlayers bounds the players enrolled in one game's
// championship: its record lists them all (a userid is 16 characters at
// most: some 20 kB), and an edition's start mails each of them.
const MaxChampionshipPlayers = 1000

// championshipKey is the championship record's key in bucket meta.
func championshipKey(word string) string { return "championship " + word }

// championship is the record of one game's championship.
type championship struct {
	V    int    `json:"v"`
	Game string `json:"game"`
	On   bool   `json:"on"`
	// Enrolled are the userids (as signed up) enrolled for the next
	// edition, in the order they joined.
	Enrolled []string `json:"enrolled,omitempty"`
	// Edition is the number of the running or last edition, 0 before the
	// first; Leagues are its tournaments, the top league first.
	Edition int      `json:"edition,omitempty"`
	Leagues []string `json:"leagues,omitempty"`
	// Waiting are the players of the edition's last leagues, not started
	// yet (one starts a tick: startLeague), in the order of Leagues.
	Waiting [][]string `json:"waiting,omitempty"`
	// Next is when the next edition starts; zero while an edition runs
	// (or before the timer looked after the switch).
	Next time.Time `json:"next,omitzero"`
}

func (c *championship) version() int { return c.V }

// loadChampionship reads the championship of the game word; a game that
// never had one has an empty record (off).
func loadChampionship(tx Tx, word string) (*championship, error) {
	c := &championship{Game: word}
	_, err := load(tx, bucketMeta, championshipKey(word), c)
	return c, err
}

func saveChampionship(tx Tx, c *championship) error {
	c.V = recordVersion
	return save(tx, bucketMeta, championshipKey(c.Game), c)
}

// enrolled returns the index of userid (any case) in c.Enrolled, -1 for
// none.
func (c *championship) enrolled(userid string) int {
	return slices.IndexFunc(c.Enrolled, func(id string) bool { return strings.EqualFold(id, userid) })
}

// leagueName is the tournament of a league (from 1, the top one) of an
// edition of the championship of the game word.
func leagueName(word string, edition, league int) string {
	return fmt.Sprintf("%s-championship-%d-league-%d", word, edition, league)
}

// ChampionshipState is what anybody may see of a game's championship (the
// read API), for `lyngk admin championship`, the mails and /tournaments.
type ChampionshipState struct {
	Game     string    `json:"game"`
	On       bool      `json:"on"`
	Enrolled []string  `json:"enrolled"`
	Edition  int       `json:"edition"`
	Leagues  []string  `json:"leagues"` // the tournaments of the edition, the top league first
	Next     time.Time `json:"next,omitzero"`
}

// Championship returns the championship of the game word (lower-case).
func Championship(tx Tx, word string) (ChampionshipState, error) {
	c, err := loadChampionship(tx, word)
	if err != nil {
		return ChampionshipState{}, err
	}
	return ChampionshipState{Game: word, On: c.On, Enrolled: slices.Clone(c.Enrolled), Edition: c.Edition,
		Leagues: slices.Clone(c.Leagues), Next: c.Next}, nil
}

// SetChampionship switches the championship of the game word (lower-case,
// one the server offers: the caller checks) on or off, for `lyngk admin
// championship GAME on|off`. The timer then schedules the next edition
// (on) or none (off); a running edition plays to its end either way.
func SetChampionship(tx Tx, word string, on bool) error {
	c, err := loadChampionship(tx, word)
	if err != nil {
		return err
	}
	if c.On == on {
		return nil
	}
	c.On, c.Next = on, time.Time{}
	return saveChampionship(tx, c)
}

// The refusals of the championship commands.
const (
	whyChampionshipOff    why = "championship-off"
	whyChampionshipFull   why = "championship-full"
	whyChampionshipNotIn  why = "championship-not-in"
	whyChampionshipJoined why = "championship-joined"
)

// championshipView is the data of the championship mail.
type championshipView struct {
	ChampionshipState
	Word  string // the game's word, for the commands
	Title string
	User  string // the player the mail answers, "" for show
	What  string // "joined", "left" or "" for show
	Days  int    // Config.ChampionshipPause in days
	// EnrolledText is Enrolled, wrapped and indented to fit the mail.
	EnrolledText string
	Leagues      []championshipLeague
}

// championshipLeague is a league of the edition, for the mail: Players
// its players, wrapped and indented to fit the mail's width.
type championshipLeague struct {
	Name    string
	State   TournamentState
	Players string
}

// championshipShow: GAME championship show.
func (r *request) championshipShow(c Command) error {
	return r.championshipMail(c.Game, "", "", []string{r.in.From})
}

// championshipJoin: GAME championship join USERID PASSWORD. The player is
// enrolled from the next edition on, until he leaves.
func (r *request) championshipJoin(c Command) error {
	ch, err := loadChampionship(r.tx, c.Game)
	if err != nil {
		return err
	}
	if !ch.On {
		return refuse(whyChampionshipOff, kv{"GameWord": c.Game, "Title": r.title(c.Game)})
	}
	u, err := r.authenticate(c.Args[0], c.Args[1])
	if err != nil {
		return err
	}
	switch {
	case ch.enrolled(u.ID) >= 0:
		return refuse(whyChampionshipJoined, kv{"User": u.ID, "GameWord": c.Game, "Title": r.title(c.Game)})
	case len(ch.Enrolled) >= MaxChampionshipPlayers:
		return refuse(whyChampionshipFull, kv{"Max": MaxChampionshipPlayers, "Title": r.title(c.Game)})
	}
	ch.Enrolled = append(ch.Enrolled, u.ID)
	if err := saveChampionship(r.tx, ch); err != nil {
		return err
	}
	return r.championshipMail(c.Game, u.ID, "joined", u.Addresses)
}

// championshipLeave: GAME championship leave USERID PASSWORD. He is in no
// edition after the running one, whose games he plays to their end (or
// withdraws from, as from any tournament).
func (r *request) championshipLeave(c Command) error {
	ch, err := loadChampionship(r.tx, c.Game)
	if err != nil {
		return err
	}
	u, err := r.authenticate(c.Args[0], c.Args[1])
	if err != nil {
		return err
	}
	i := ch.enrolled(u.ID)
	if i < 0 {
		return refuse(whyChampionshipNotIn, kv{"User": u.ID, "GameWord": c.Game, "Title": r.title(c.Game)})
	}
	ch.Enrolled = slices.Delete(ch.Enrolled, i, i+1)
	if err := saveChampionship(r.tx, ch); err != nil {
		return err
	}
	return r.championshipMail(c.Game, u.ID, "left", u.Addresses)
}

// championshipMail mails the championship of word to to: what changed
// for user (what), and where it stands.
func (r *request) championshipMail(word, user, what string, to []string) error {
	st, err := Championship(r.tx, word)
	if err != nil {
		return err
	}
	v := championshipView{ChampionshipState: st, Word: word, Title: r.title(word), User: user, What: what,
		Days: int(r.e.cfg.ChampionshipPause / (24 * time.Hour))}
	for _, name := range st.Leagues {
		t, ok, err := loadTourney(r.tx, name)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		var ids []string
		for _, p := range t.Players {
			ids = append(ids, p.ID)
		}
		v.Leagues = append(v.Leagues, championshipLeague{Name: t.Name, State: t.State,
			Players: templates.Wrap("    "+strings.Join(ids, ", "), templates.Width)})
	}
	v.EnrolledText = "nobody yet"
	if len(st.Enrolled) > 0 {
		v.EnrolledText = templates.Wrap("    "+strings.Join(st.Enrolled, ", "), templates.Width)
	}
	return r.mail("championship", to, v)
}

// tickChampionships runs the championships' timer at now, each game's in
// its own pending writes (a broken one cannot stop the others): it
// schedules the next edition once the last has ended, and starts it when
// it is due.
func (e *Engine) tickChampionships(tx Tx, now time.Time) (mails []Mail, fails []error, err error) {
	for _, g := range e.cfg.Games {
		p := newPending(tx)
		r := &request{e: e, tx: p, now: now}
		ferr := guard(func() error { return r.tickChampionship(g.Name()) })
		switch {
		case p.storeErr != nil:
			return nil, nil, p.storeErr
		case ferr != nil:
			fails = append(fails, fmt.Errorf("engine: championship of %s: %w", g.Name(), ferr))
			continue
		}
		if err := p.commit(); err != nil {
			return nil, nil, err
		}
		mails = append(mails, r.out...)
	}
	return mails, fails, nil
}

// tickChampionship is the timer of the championship of word.
func (r *request) tickChampionship(word string) error {
	c, err := loadChampionship(r.tx, word)
	switch {
	case err != nil:
		return err
	case len(c.Waiting) > 0: // an edition's leagues, decided: switched off or not
		return r.startLeague(c)
	case !c.On:
		return nil
	}
	pause := r.e.cfg.ChampionshipPause
	if c.Next.IsZero() {
		if c.Edition == 0 {
			c.Next = r.now.Add(pause) // the time to enrol
			return saveChampionship(r.tx, c)
		}
		ended, done, err := leaguesEnded(r.tx, c.Leagues)
		if err != nil || !done {
			return err
		}
		c.Next = ended.Add(pause)
		return saveChampionship(r.tx, c)
	}
	if r.now.Before(c.Next) {
		return nil
	}
	return r.startEdition(c)
}

// leaguesEnded reports whether every league of names has finished, and
// when the last did; it reads them until the first that runs.
func leaguesEnded(tx Tx, names []string) (last time.Time, done bool, err error) {
	for _, name := range names {
		t, ok, err := loadTourney(tx, name)
		if err != nil {
			return time.Time{}, false, err
		}
		if !ok {
			continue // a league deleted by hand ends nothing
		}
		if t.State != TournamentFinished {
			return time.Time{}, false, nil
		}
		if t.Ended.After(last) {
			last = t.Ended
		}
	}
	return last, true, nil
}

// startEdition starts the next edition of c: the entrants (the enrolled
// players who have not signed off, with their rating in the game), the
// last edition's final standings, the leagues of NextLeagues, each a
// round robin started at once. With fewer than two entrants it waits
// another pause.
func (r *request) startEdition(c *championship) error {
	var entrants []tournament.Entrant
	enrolled := c.Enrolled[:0:0]
	for _, id := range c.Enrolled {
		u, ok, err := r.loadUser(id)
		if err != nil {
			return err
		}
		if !ok || !u.Left.IsZero() {
			continue // signed off: no longer enrolled
		}
		enrolled = append(enrolled, u.ID)
		entrants = append(entrants, tournament.Entrant{ID: u.ID, Rating: roundRating(u.in(c.Game).Rating)})
	}
	c.Enrolled = enrolled
	if len(entrants) < 2 {
		c.Next = r.now.Add(r.e.cfg.ChampionshipPause)
		return saveChampionship(r.tx, c)
	}
	previous, err := finalStandings(r.tx, c.Leagues)
	if err != nil {
		return err
	}
	leagues, err := tournament.NextLeagues(entrants, previous)
	if err != nil {
		return fmt.Errorf("engine: championship leagues: %w", err)
	}
	c.Edition++
	c.Leagues, c.Waiting, c.Next = nil, nil, time.Time{}
	for l, league := range leagues {
		c.Leagues = append(c.Leagues, leagueName(c.Game, c.Edition, l+1))
		c.Waiting = append(c.Waiting, league)
	}
	return r.startLeague(c)
}

// startLeague starts the first league of c waiting to start, a round
// robin of its players, and saves c. One league a tick: a league of ten
// is 45 games and their board mails, so a tick's transaction stays short
// however many leagues an edition has (a thousand players: a hundred
// leagues, started over a hundred minutes).
func (r *request) startLeague(c *championship) error {
	gm, ok := r.e.games[c.Game]
	if !ok {
		return fmt.Errorf("engine: championship of %q, a game not offered", c.Game)
	}
	variant, _ := gm.Variant("")
	league := c.Waiting[0]
	t := &tourney{Name: c.Leagues[len(c.Leagues)-len(c.Waiting)], Game: c.Game, Variant: variant, Format: FormatRoundRobin,
		Min: len(league), Max: len(league), Rated: true, Created: r.now, State: TournamentOpen}
	for _, id := range league {
		t.Players = append(t.Players, entrant{ID: id, Joined: r.now})
	}
	if _, taken, err := loadTourney(r.tx, t.Name); err != nil || taken {
		if err != nil {
			return err
		}
		return fmt.Errorf("engine: championship league %s exists already", t.Name)
	}
	if err := r.startTourney(t); err != nil {
		return err
	}
	c.Waiting = c.Waiting[1:]
	return saveChampionship(r.tx, c)
}

// finalStandings are the leagues of names with their final standings,
// best first, for NextLeagues.
func finalStandings(tx Tx, names []string) ([]tournament.League, error) {
	var leagues []tournament.League
	for _, name := range names {
		t, ok, err := loadTourney(tx, name)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		st, err := tournament.Standings(len(t.Players), t.rounds())
		if err != nil {
			return nil, fmt.Errorf("engine: league %s: %w", name, err)
		}
		var league tournament.League
		for _, s := range st {
			league = append(league, t.Players[s.Player].ID)
		}
		leagues = append(leagues, league)
	}
	return leagues, nil
}
