package web

import (
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"strconv"
	"strings"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/games"
)

// Moving by click: /play/TOKEN, TOKEN the reply token of a board mail to a
// player ("Move on the web:" in the mail). GET shows the board with the
// player's legal moves: a click on a stack, then on its destination, then
// on a claim if one is possible (or none), fills in the move, which a last
// click sends; for a game whose moves are clicked in steps (YINSH:
// games.Click.Steps), the clicks narrow the legal moves until one is left,
// or a button picks among those the same clicks make. Without JavaScript the page is two plain forms: a text field
// (anything a reply by mail may say: a move, resign, propose, ...) and a
// select of every legal move. POST (form field move) moves through the
// path of a reply by mail (engine.PlayToken): the same refusals, with the
// same text, the same board mails to every player, the token then spent.
//
// The token is the player's key: it never leaves this file but in the
// page's own URL. The log and the metrics name the route, never the path;
// the page sets Referrer-Policy: no-referrer, forbids framing (a framed
// page could be clicked for the player), and is not cached. A POST from
// another site is refused (Sec-Fetch-Site, Origin: http.CrossOriginProtection),
// and the body is cut at maxPlayBody.
//
// Status codes: 200 for the page and for a move made; 404 for a token the
// server never sent (forged, mistyped); 410 for a token that is no longer
// good (the game moved on, a move was taken back, the game is over, the
// player left it), with the game as it is now, why the link no longer
// moves and the link to the game's page; 422 for a move refused (illegal, not your turn, bad
// notation), with the page again; 403 for a cross-site POST; 413 for a
// body over maxPlayBody; 429 for a POST past the game's PostsPerGameHour
// (web_posts_per_game_hour), with Retry-After.

// Mover moves for the play pages: engine.TokenGame and engine.PlayToken,
// each in one store transaction, the mails of a move queued in the
// transaction of the move (engine/daemon's Daemon in the server), whose
// commit closes the Store's change signal, so the game's open pages show
// the move. Errors of a refused token or move are *engine.Refusal.
type Mover interface {
	TokenGame(token string) (*engine.TokenView, error)
	// PlayToken returns the game after the move and how many mails went
	// out.
	PlayToken(token, move string) (*engine.TokenView, int, error)
}

// maxPlayBody bounds the form of a move: a move is a few bytes, a comment
// has no place here.
const maxPlayBody = 4 << 10

// crossOrigin refuses a POST another site's page makes a browser send.
var crossOrigin = http.NewCrossOriginProtection()

// playView is the data of play.html.
type playView struct {
	Board   int
	Game    string // the game's name (gameName)
	User    string
	Public  bool // /game/N is there to link to
	Status  string
	Picture template.HTML
	Spots   []games.Spot // the points to click (games.Input.Spots)
	// Steps says the moves are clicked in steps (games.Click.Steps), not
	// as From, To and Choice: the page's script is then the one that
	// narrows the moves click by click.
	Steps bool
	// Width and Height are the picture's size, the spots' coordinates.
	Width, Height int
	// Examples are moves as the text field takes them, the game's text
	// play-examples ("e4-e5, R,e4-e5"); "" when it has none.
	Examples string
	YourTurn bool
	Running  bool // the game takes moves (else: it is over)
	Legal    []string
	Moves    string // the legal moves for the script, as JSON
	Move     string // what the player sent, to show again after a refusal
	Refusal  string // the refusal's text, as the error mail says it
	Done     *doneView
	// Gone says why the link no longer moves (the game moved on, ...):
	// the page then shows the game as it is now, without forms.
	Gone string
}

// doneView says a move was made.
type doneView struct {
	Move  string
	Mails int
}

// playPage is GET /play/TOKEN.
func (h *Handler) playPage(w http.ResponseWriter, r *http.Request) {
	w = playHeaders(w)
	if h.cfg.Mover == nil {
		h.fail(w, r, http.StatusNotFound, "This link is not (or no longer) valid.")
		return
	}
	v, err := h.cfg.Mover.TokenGame(r.PathValue("token"))
	if err != nil {
		h.playRefused(w, r, err, nil, "")
		return
	}
	h.renderPlay(w, r, http.StatusOK, v, "", "", nil, "")
}

// playMove is POST /play/TOKEN.
func (h *Handler) playMove(w http.ResponseWriter, r *http.Request) {
	w = playHeaders(w)
	if err := crossOrigin.Check(r); err != nil {
		h.fail(w, r, http.StatusForbidden, "A move can only be sent from its own page, not from another site.")
		return
	}
	if h.cfg.Mover == nil {
		h.fail(w, r, http.StatusNotFound, "This link is not (or no longer) valid.")
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxPlayBody)
	if err := r.ParseForm(); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			h.fail(w, r, http.StatusRequestEntityTooLarge, "The form is too large for a move.")
			return
		}
		h.fail(w, r, http.StatusBadRequest, "The form could not be read.")
		return
	}
	tok, move := r.PathValue("token"), strings.TrimSpace(r.PostForm.Get("move"))
	if h.cfg.PostsPerGameHour > 0 {
		g, err := h.cfg.Mover.TokenGame(tok)
		if err != nil {
			h.playRefused(w, r, err, nil, move)
			return
		}
		if until, ok := h.post(g.Board, time.Now()); !ok {
			w.Header().Set("Retry-After", strconv.Itoa(int(time.Until(until).Seconds())+1))
			h.fail(w, r, http.StatusTooManyRequests, fmt.Sprintf("%s Board %d had %d moves from the web in an hour, "+
				"as many as a game takes. Nothing was changed: reply to the board mail, or try again after %s.",
				g.Game.Title(), g.Board, h.cfg.PostsPerGameHour, until.UTC().Format("15:04 MST")))
			return
		}
	}
	v, mails, err := h.cfg.Mover.PlayToken(tok, move)
	if err != nil {
		h.playRefused(w, r, err, func() (*engine.TokenView, error) { return h.cfg.Mover.TokenGame(tok) }, move)
		return
	}
	h.renderPlay(w, r, http.StatusOK, v, "", "", &doneView{Move: move, Mails: mails}, "")
}

// postWindow is one game's count of POSTs in the hour from Start.
type postWindow struct {
	Start time.Time
	Count int
}

// post counts a POST for board and says whether it is within
// PostsPerGameHour; when not, until is the end of the window. Windows
// that are over are dropped, so the map holds the games of the last hour.
func (h *Handler) post(board int, now time.Time) (until time.Time, ok bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for b, w := range h.posts {
		if now.Sub(w.Start) >= time.Hour {
			delete(h.posts, b)
		}
	}
	w, found := h.posts[board]
	if !found {
		w = postWindow{Start: now}
	}
	if w.Count >= h.cfg.PostsPerGameHour {
		return w.Start.Add(time.Hour), false
	}
	w.Count++
	h.posts[board] = w
	return time.Time{}, true
}

// playRefused answers a refusal: for an unknown token (404) a page with
// its text alone; for a token the server sent that no longer moves (410)
// the game as it is now, why in the page's words, and the link to its
// page; for a move (422) the page again, with the text above the board.
// again reads the game for that page.
func (h *Handler) playRefused(w http.ResponseWriter, r *http.Request, err error, again func() (*engine.TokenView, error), move string) {
	var ref *engine.Refusal
	if !errors.As(err, &ref) {
		h.serverError(w, r, err)
		return
	}
	switch {
	case ref.Key == "token-unknown":
		h.fail(w, r, http.StatusNotFound, ref.Text)
		return
	case ref.Now != nil:
		// A link the server sent that no longer moves: the game as it
		// is now, and why, in the page's words rather than the mail's.
		h.renderPlay(w, r, http.StatusGone, ref.Now, "", "", nil, goneText(ref.Key, ref.Now))
		return
	case strings.HasPrefix(ref.Key, "token-") || again == nil:
		// again is nil for the page itself: whatever is wrong with
		// the token (its player signed off, say), the link is no good.
		h.fail(w, r, http.StatusGone, ref.Text)
		return
	}
	v, err := again()
	if err != nil {
		// The token went bad meanwhile (another move, by mail).
		h.playRefused(w, r, err, nil, move)
		return
	}
	h.renderPlay(w, r, http.StatusUnprocessableEntity, v, move, ref.Text, nil, "")
}

// goneText says why a link of the token's player no longer moves, and
// what to do now.
func goneText(key string, v *engine.TokenView) string {
	var why string
	switch key {
	case "token-over":
		return fmt.Sprintf("Board %d is over: this link takes no more moves. This is how the game ended.", v.Board)
	case "token-not-player":
		return fmt.Sprintf("This link went to %s, who no longer plays on board %d. This is the game as it is now.", v.User, v.Board)
	case "token-taken-back":
		why = "a move was taken back since"
	case "token-spent":
		why = "a draw offer, a take-back request or an answer to one came since"
	default:
		why = "the game has moved on since"
	}
	text := fmt.Sprintf("This link is from an older board mail of board %d: %s. This is the game as it is now.", v.Board, why)
	if v.YourTurn {
		text += " It is your turn: move with the link in your newest board mail, or reply to that mail."
	}
	return text
}

// renderPlay draws play.html for the game v; gone, when set, says why the
// link no longer moves.
func (h *Handler) renderPlay(w http.ResponseWriter, r *http.Request, status int, v *engine.TokenView, move, refusal string, done *doneView, gone string) {
	pos := v.Position
	pv := playView{Board: v.Board, Game: gameName(v.Game), User: v.User, Public: h.cfg.Public, YourTurn: v.YourTurn && gone == "",
		Running: pos.Outcome() == games.Playing, Legal: v.Legal, Move: move, Refusal: refusal, Done: done, Gone: gone,
		Examples: h.cfg.Engine.GameText(v.Game.Name(), "play-examples")}
	switch {
	case pos.Outcome() == games.Won:
		pv.Status = "Game won by " + v.Players[pos.Winner()-1] + "."
	case pos.Outcome() == games.Tie:
		pv.Status = "Game was a tie."
	case pv.YourTurn:
		pv.Status = "It is your turn, " + v.User + "."
	case gone == "" && done == nil:
		pv.Status = "It is " + v.Players[pos.Turn()-1] + "'s turn, not yours: you get a mail when " + v.Players[pos.Turn()-1] + " has moved."
	default:
		pv.Status = "It is " + v.Players[pos.Turn()-1] + "'s turn."
	}
	var legal []games.Click
	if in := v.Game.Input; in != nil {
		for _, s := range v.Legal {
			c, err := in.Clicks(pos, s)
			if err != nil {
				h.serverError(w, r, fmt.Errorf("web: legal move %q: %w", s, err))
				return
			}
			legal = append(legal, c)
			pv.Steps = pv.Steps || c.Steps != nil
		}
		if pv.YourTurn && done == nil {
			pv.Spots = in.Spots(pos)
		}
	}
	js, err := json.Marshal(legal)
	if err != nil {
		h.serverError(w, r, err)
		return
	}
	pv.Moves = string(js)
	moves := len(pos.Moves())
	if pic := v.Game.Picture; pic != nil {
		pv.Width, pv.Height = pic.Size()
		svg, err := pic.SVG(pos, v.Players, nil)
		if err != nil {
			h.serverError(w, r, err)
			return
		}
		pv.Picture = inlineSVG(svg, pic, fmt.Sprintf("Board %d after move %d: %s", v.Board, moves, pv.Status))
	}
	title := fmt.Sprintf("%s · Board %d, move %d: %s", pv.Game, v.Board, moves, pv.Status)
	h.render(w, r, status, "play.html", h.title(title), pv)
}

// playHeaders wraps w so that the page is never cached, framed, or named
// in a Referer (its URL holds the token).
func playHeaders(w http.ResponseWriter) http.ResponseWriter {
	return &privateWriter{ResponseWriter: w}
}

// privateWriter sets the play page's headers as the answer starts, over
// what the page renderer sets.
type privateWriter struct {
	http.ResponseWriter
	started bool
}

func (p *privateWriter) WriteHeader(code int) {
	if !p.started {
		p.started = true
		hd := p.Header()
		hd.Set("Cache-Control", "no-store")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Content-Security-Policy", "frame-ancestors 'none'")
	}
	p.ResponseWriter.WriteHeader(code)
}

func (p *privateWriter) Write(b []byte) (int, error) {
	if !p.started {
		p.WriteHeader(http.StatusOK)
	}
	return p.ResponseWriter.Write(b)
}
