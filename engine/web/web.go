// Package web is the server on the web: an http.Handler that shows the
// games, the players and the standings as HTML pages, the board as a
// picture (SVG, PNG) and a game as JSON, tells a game page of each change
// by Server-Sent Events, and lets a player move by click (/play/TOKEN,
// play.go).
//
// It reads the store through the engine's read API only (engine/read.go),
// each request in one read transaction of a Store it is given (the
// daemon's view, engine/daemon): it imports no store and writes nothing
// itself; a move on a play page is the Mover's. It opens no socket: cmd/lyngk
// makes the listener and the http.Server (timeouts, size limits) and hands
// requests to Handler. It sits under engine/ because it is a view of the
// engine's games, like the mail templates, and imports nothing of cmd/.
//
// The paths are a contract: /, /games?user=ID&state=S,
// /standings, /player/ID, /game/N[?after=K], /game/N/board.svg[?after=K],
// /game/N/board.png[?after=K], /game/N.json, /game/N/events,
// /tournaments[?game=WORD][&state=S&after=KEY], /tournaments.json,
// /tournament/NAME, /tournament/NAME.json (tournaments.go) and
// /play/TOKEN. Every page is server-rendered (html/template, templates/web)
// and complete without JavaScript; a small script only adds the live
// update and the arrow keys.
//
// Status codes: an unknown game, player or tournament is 404; a malformed
// board number, ?after=K or ?state=, or a tournament list's cursor that is
// not one, is 400; a K past the game's last move is 404
// (that position does not exist). GET and HEAD only, except on /play/:
// another method is 405 with an Allow header.
package web

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/templates"
)

// Store is the store as the web part reads it (engine/daemon's Daemon):
// each View call one read transaction, the engine's Tx, and the change
// signal the event streams of the game pages wait on.
type Store interface {
	View(fn func(tx engine.Tx) error) error
	// Changed returns a channel closed at the next change of the store
	// (a commit): taken before a reading, a change after it closes it.
	Changed() <-chan struct{}
}

// Config configures a Handler.
type Config struct {
	// Store is read by every page.
	Store Store
	// Engine reads the games (and knows the games the server offers).
	Engine *engine.Engine
	// Public serves the games, the players and the standings to anybody
	// (web_public, the default as on gamerz); false serves only the
	// /play/ pages, every other path is 404.
	Public bool
	Log    *slog.Logger
	// Observe, when set, is told of every request when it is done: its
	// route (the path pattern, "/play/{token}" for a play page: a token
	// never leaves the handler), status code and duration.
	Observe func(route string, status int, d time.Duration)
	// Mover moves for the /play/ pages (play.go); nil: every token is
	// refused as unknown.
	Mover Mover
	// PostsPerGameHour bounds the moves sent from the /play/ pages of one
	// game per hour, in a window that opens with the first (play.go); 0 =
	// no limit.
	PostsPerGameHour int
	// StreamsPerClient bounds the event streams open at once from one
	// client address (events.go, clientOf); 0 = no bound but maxStreams.
	StreamsPerClient int
	// Review shows the robot's review of a finished game on its page
	// (review.go), made in the background when the page is first asked
	// for; Reviewed, when set, is told of each review made (tests wait
	// for it).
	Review   bool
	Reviewed func(board int)
	// Base is the path the pages are served under, web_url's path without
	// its trailing slash ("/lyngk" for https://example.org/lyngk; "" at
	// the root, the default): every link of the pages starts with it, and
	// the handler takes only requests under it (a reverse proxy passes the
	// path on as it came).
	Base string
	// ServerName is the server's own name (the setting server_name): the
	// site's name in every page's header and title, whichever games it
	// offers. "" is the engine's (Engine.ServerName), which is the
	// default's, templates.DefaultServer, unless the operator named it.
	ServerName string
}

// Handler serves the web part. It is safe for concurrent use.
type Handler struct {
	cfg   Config
	log   *slog.Logger
	pages map[string]*template.Template
	mux   *http.ServeMux
	site  string // Config.ServerName, or the engine's
	// offered links each game's standings in the header, when the
	// server offers more than one game.
	offered []gameLink

	mu sync.Mutex // guards posts and clients
	// streams bounds the event streams open at once (maxStreams).
	streams chan struct{}
	// posts counts the POSTs to /play/ per game (Config.PostsPerGameHour).
	posts map[int]postWindow
	// clients counts the open event streams per client address
	// (Config.StreamsPerClient).
	clients map[string]int
	// reviews makes the robot's reviews of finished games (review.go),
	// nil when Config.Review is off.
	reviews *reviewer
}

// maxStreams bounds the open event streams: each holds a connection and a
// goroutine for as long as a page is open. Beyond it /events answers 503,
// and the page still works by reload.
const maxStreams = 512

// gameName is a game's one name on the pages (lists, headings, titles,
// standings): its Title in capitals, as the game's box and rulebook write
// it ("LYNGK", "YINSH").
func gameName(g games.Game) string { return displayName(g.Title()) }

// displayName is gameName of the game of Title title (a GameSummary's).
func displayName(title string) string { return strings.ToUpper(title) }

// New parses the page templates and builds the routes.
func New(cfg Config) (*Handler, error) {
	if cfg.Store == nil {
		return nil, errors.New("web: no store")
	}
	if cfg.Engine == nil {
		return nil, errors.New("web: no engine")
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.Base != "" && (!strings.HasPrefix(cfg.Base, "/") || strings.HasSuffix(cfg.Base, "/") || path.Clean(cfg.Base) != cfg.Base) {
		return nil, fmt.Errorf("web: base path %q: want /NAME..., without a trailing slash", cfg.Base)
	}
	pages, err := parsePages(templates.Web(), cfg.Base)
	if err != nil {
		return nil, err
	}
	site := cfg.ServerName
	if site == "" {
		site = cfg.Engine.ServerName()
	}
	h := &Handler{cfg: cfg, log: cfg.Log, pages: pages, mux: http.NewServeMux(), site: site,
		streams: make(chan struct{}, maxStreams),
		posts:   map[int]postWindow{}, clients: map[string]int{}}
	if cfg.Review {
		h.reviews = &reviewer{h: h, done: map[int]*gameReview{}}
	}
	if gs := cfg.Engine.Games(); len(gs) > 1 {
		for _, g := range gs {
			h.offered = append(h.offered, gameLink{Word: g.Name(), Title: gameName(g)})
		}
	}
	if cfg.Public {
		h.mux.HandleFunc("GET /{$}", h.index)
		h.mux.HandleFunc("GET /games", h.games)
		h.mux.HandleFunc("GET /standings", h.standings)
		h.mux.HandleFunc("GET /player/{id}", h.player)
		h.mux.HandleFunc("GET /player/{id}/games.sgf", h.playerSGF)
		// {n} is "12" or "12.json": a pattern segment is a whole segment.
		h.mux.HandleFunc("GET /game/{n}", h.game)
		h.mux.HandleFunc("GET /game/{n}/board.svg", h.boardSVG)
		h.mux.HandleFunc("GET /game/{n}/board.png", h.boardPNG)
		h.mux.HandleFunc("GET /game/{n}/events", h.events)
		h.mux.HandleFunc("GET /tournaments", h.tournaments)
		h.mux.HandleFunc("GET /tournaments.json", h.tournaments)
		// {name} is "spring" or "spring.json", as {n} of /game/.
		h.mux.HandleFunc("GET /tournament/{name}", h.tournament)
	}
	// Moving by click is there whatever Public says (play.go).
	h.mux.HandleFunc("GET /play/{token}", h.playPage)
	h.mux.HandleFunc("POST /play/{token}", h.playMove)
	h.mux.HandleFunc("/", h.notFound)
	return h, nil
}

// notFound answers a path no route of its method matched: 405 when the
// path has a route for another method, else 404.
func (h *Handler) notFound(w http.ResponseWriter, r *http.Request) {
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodPost} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, p := h.mux.Handler(probe); p != "/" && p != "" {
			allow = append(allow, m)
			if m == http.MethodGet {
				allow = append(allow, http.MethodHead)
			}
		}
	}
	if len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		h.fail(w, r, http.StatusMethodNotAllowed, "This page can only be read (GET).")
		return
	}
	h.fail(w, r, http.StatusNotFound, "There is no such page.")
}

// parsePages parses web/layout.html with each other page of fsys into a
// template of its own, named after the page's file.
func parsePages(fsys fs.FS, base string) (map[string]*template.Template, error) {
	layout, err := template.New("layout.html").Funcs(funcs).
		Funcs(template.FuncMap{"base": func() string { return base }}).ParseFS(fsys, "web/layout.html")
	if err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	names, err := fs.Glob(fsys, "web/*.html")
	if err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	pages := map[string]*template.Template{}
	for _, name := range names {
		base := path.Base(name)
		if base == "layout.html" {
			continue
		}
		t, err := template.Must(layout.Clone()).ParseFS(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("web: %w", err)
		}
		pages[base] = t
	}
	return pages, nil
}

var funcs = template.FuncMap{
	"add": func(a, b int) int { return a + b },
	// base is Config.Base, the path every link starts with (set per
	// handler in parsePages).
	"base": func() string { return "" },
	// turn writes a move of the move list with a break allowed after
	// each ";" of a YINSH turn (e6-e7;xe2-e6;xb5): a long turn wraps
	// inside its column at a step rather than anywhere.
	"turn": func(m string) template.HTML {
		return template.HTML(strings.ReplaceAll(template.HTMLEscapeString(m), ";", ";<wbr>"))
	},
	// when writes a time as the board mails do, in UTC.
	"when": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format("2006-01-02 15:04")
	},
}

// ServeHTTP serves r and records its route, status and duration. The log
// and the metrics name the route, never the path: a /play/ path holds a
// reply token.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	rec := &recorder{ResponseWriter: w, status: http.StatusOK}
	if b := h.cfg.Base; b != "" {
		switch p := r.URL.Path; {
		case p == b && (r.Method == http.MethodGet || r.Method == http.MethodHead):
			http.Redirect(rec, r, b+"/", http.StatusMovedPermanently)
		case strings.HasPrefix(p, b+"/"):
			r2 := r.Clone(r.Context())
			r2.URL.Path, r2.URL.RawPath = p[len(b):], ""
			h.mux.ServeHTTP(rec, r2)
			r.Pattern = r2.Pattern
		default:
			h.fail(rec, r, http.StatusNotFound, "There is no such page.")
		}
	} else {
		h.mux.ServeHTTP(rec, r)
	}
	route := routeOf(r)
	d := time.Since(start)
	if h.cfg.Observe != nil {
		h.cfg.Observe(route, rec.status, d)
	}
	h.log.Debug("web request", "method", r.Method, "route", route, "status", rec.status, "duration", d)
}

// routeOf is the label of r's route: its pattern without the method,
// "/game/{n}.json" for the JSON, "other" for a path no route matched.
func routeOf(r *http.Request) string {
	p := r.Pattern
	if _, rest, ok := strings.Cut(p, " "); ok {
		p = rest
	}
	switch {
	case p == "" || p == "/":
		return "other"
	case p == "/game/{n}" && strings.HasSuffix(r.PathValue("n"), ".json"):
		return "/game/{n}.json"
	case p == "/tournament/{name}" && strings.HasSuffix(r.PathValue("name"), ".json"):
		return "/tournament/{name}.json"
	case p == "/{$}":
		return "/"
	}
	return p
}

// recorder remembers the status written. It passes Flush on, which the
// event stream needs, and Unwrap for http.ResponseController.
type recorder struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (r *recorder) WriteHeader(code int) {
	if !r.wrote {
		r.status, r.wrote = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	r.wrote = true
	return r.ResponseWriter.Write(b)
}

func (r *recorder) Flush() {
	r.wrote = true
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// page is what layout.html draws: the title, the heading, whether the
// public pages are there to link to, and the page's own data.
type page struct {
	Title  string
	Public bool
	// Site is the site's name in the header and the footer: the server's
	// (Config.ServerName).
	Site string
	// Games link each game's standings from the header, when the server
	// offers more than one; else the header links "Standings".
	Games []gameLink
	// Live is the event stream's URL on a game page, "" elsewhere.
	Live string
	Data any
}

// render draws the page name with data into the response, whole or not
// at all: a template error is a 500, never half a page.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, name, title string, data any) {
	h.renderPage(w, r, status, name, page{Title: title, Public: h.cfg.Public, Data: data})
}

func (h *Handler) renderPage(w http.ResponseWriter, r *http.Request, status int, name string, p page) {
	p.Public, p.Site, p.Games = h.cfg.Public, h.site, h.offered
	t, ok := h.pages[name]
	var b bytes.Buffer
	if !ok {
		h.serverError(w, r, fmt.Errorf("web: no page %s", name))
		return
	}
	if err := t.ExecuteTemplate(&b, "layout.html", p); err != nil {
		h.serverError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(b.Bytes())
	}
}

// title is a page's title: what the page shows, then the server's name
// ("alice · PBeM Server").
func (h *Handler) title(what string) string { return what + " · " + h.site }

// failure is the data of error.html.
type failure struct {
	Status  int
	Message string
}

// fail answers with status and a page saying msg.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, status int, msg string) {
	h.render(w, r, status, "error.html", h.title(fmt.Sprintf("%d %s", status, http.StatusText(status))),
		failure{Status: status, Message: msg})
}

// serverError logs err (the route, not the path) and answers 500.
// playerFailed answers a read about the player id that failed: "There is
// no player" for one there is none of, a server error otherwise. It
// reports whether it answered, that is whether err was not nil.
func (h *Handler) playerFailed(w http.ResponseWriter, r *http.Request, id string, err error) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, engine.ErrNoUser):
		h.fail(w, r, http.StatusNotFound, "There is no player "+strconv.Quote(id)+".")
	default:
		h.serverError(w, r, err)
	}
	return true
}

func (h *Handler) serverError(w http.ResponseWriter, r *http.Request, err error) {
	h.log.Error("web: request failed", "route", routeOf(r), "error", err)
	http.Error(w, "500 internal server error", http.StatusInternalServerError)
}
