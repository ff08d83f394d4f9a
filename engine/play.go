package engine

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"lyngk.example/lyngk/engine/games"
)

// Moving on the web. A board mail to a player carries, with Config.WebURL
// set, the page WebURL/play/TOKEN, TOKEN the mail's reply token (the one in
// its Message-ID). The page (package engine/web) shows the game through
// TokenGame and moves through PlayToken: the path of a plain reply by mail
// (reply.go), with the same token checks, the same refusals, the same
// board mails to everybody, and the token spent as a reply spends it (it
// names one position: once the game has moved on, it is stale).

// Refusal is bad input on the play page: Text is what the error mail
// would say (the same template, wrapped the same way). Nothing was
// changed.
type Refusal struct {
	Key  string // the template's name without "err."
	Text string
	// Now is the game as it is now, for a token that the server sent but
	// that no longer moves (the game moved on, a move was taken back, the
	// game is over, its player left): the page shows it rather than an
	// error alone. Its YourTurn is whether it is the token's player's
	// turn now; Legal is empty (this token cannot move).
	Now *TokenView
}

func (r *Refusal) Error() string { return "engine: refused: " + r.Key }

// TokenView is the game a reply token stands for, as the play page shows
// it.
type TokenView struct {
	Board    int
	Game     games.Game // the board's game
	User     string     // the player the board mail went to, as written
	Players  [2]string
	Position games.Position // the game as it is now
	// YourTurn says whether it is User's turn; Legal is then every legal
	// move, as written in mail ("R,e4-e5").
	YourTurn bool
	Legal    []string
}

// TokenGame reads the game of reply token tok. A token the mail path would
// refuse gets a *Refusal with the same text. It writes nothing.
func (e *Engine) TokenGame(tx Tx, tok string) (*TokenView, error) {
	r := &request{e: e, tx: newPending(tx), budget: budget{bounded: true}}
	tok = strings.ToLower(tok)
	var v *TokenView
	err := guard(func() error {
		g, u, err := r.tokenGame(tok)
		if err != nil {
			return err
		}
		v, err = e.tokenView(g, u.ID, true)
		return err
	})
	return v, r.webError(err, tok)
}

// tokenView is the game g for the player name; legal adds the legal moves
// when it is name's turn.
func (e *Engine) tokenView(g *game, name string, legal bool) (*TokenView, error) {
	gm, err := e.gameOf(g)
	if err != nil {
		return nil, err
	}
	pos, err := e.position(g, -1)
	if err != nil {
		return nil, err
	}
	v := &TokenView{Board: g.Board, Game: gm, User: name, Players: g.Players, Position: pos}
	if p := g.player(strings.ToLower(name)); pos.Outcome() == games.Playing && pos.Turn() == p {
		v.YourTurn = true
		if legal {
			v.Legal = pos.Legal()
		}
	}
	return v, nil
}

// tokenNow is the game of the known token tok as it is now (Refusal.Now),
// nil when there is none.
func (r *request) tokenNow(tok string) (*TokenView, error) {
	var rec token
	if found, err := load(r.tx, bucketTokens, tok, &rec); err != nil || !found {
		return nil, err
	}
	g, found, err := r.loadGame(rec.Board)
	if err != nil || !found {
		return nil, err
	}
	name := rec.User
	if p := g.player(rec.User); p != 0 {
		name = g.Players[p-1] // as written
	}
	return r.e.tokenView(g, name, false)
}

// PlayToken applies move (what a reply would say on its first line: a
// move, "resign", "propose", ...) for the player of reply token tok, and
// returns the game after it and the mails to send, the board mails to
// every player and subscriber. Like Handle, it writes nothing unless it
// succeeds whole; a refused move is a *Refusal with the error mail's text;
// any other error is the store's or the engine's (the caller aborts the
// transaction).
func (e *Engine) PlayToken(tx Tx, tok, move string, now time.Time) (*TokenView, []Mail, error) {
	v, out, _, err := e.playToken(tx, tok, move, now, false)
	return v, out, err
}

// ForecastPlay is Forecast (pictures.go) for PlayToken: the pictures its
// mails will show, nothing written.
func (e *Engine) ForecastPlay(tx Tx, tok, move string, now time.Time) []Drawing {
	_, _, ds, err := e.playToken(tx, tok, move, now, true)
	if err != nil {
		return nil
	}
	return ds
}

// playToken is PlayToken, or with forecast its forecast (no commit).
func (e *Engine) playToken(tx Tx, tok, move string, now time.Time, forecast bool) (*TokenView, []Mail, []Drawing, error) {
	p := newPending(tx)
	r := &request{e: e, tx: p, now: now, budget: budget{bounded: true}, forecast: forecast}
	line, _, _ := strings.Cut(move, "\n")
	line = strings.TrimSpace(cutRunes(line, MaxEcho))
	r.script = Script{Lines: []string{line}}
	r.line = line
	tok = strings.ToLower(tok)
	var v *TokenView
	err := guard(func() error {
		f := strings.Fields(line)
		if len(f) == 0 {
			return refuse(whyNoCommand, nil)
		}
		if err := r.replyWith(tok, f); err != nil {
			return err
		}
		// The game after the move: the token's record names the game
		// and player still (it is stale now).
		var rec token
		if _, err := load(r.tx, bucketTokens, tok, &rec); err != nil {
			return err
		}
		g, _, err := r.loadGame(rec.Board)
		if err != nil {
			return err
		}
		u, err := r.player(rec.User)
		if err != nil {
			return err
		}
		v, err = e.tokenView(g, u.ID, true)
		return err
	})
	if p.storeErr != nil {
		return nil, nil, nil, p.storeErr
	}
	if forecast {
		return nil, nil, r.drawings, err
	}
	if err := r.webError(err, tok); err != nil {
		return nil, nil, nil, err
	}
	if err := p.commit(); err != nil {
		return nil, nil, nil, err
	}
	return v, r.out, nil, nil
}

// webError turns a refusal into a *Refusal with its text, and for a token
// that no longer moves, the game of tok as it is now.
func (r *request) webError(err error, tok string) error {
	var ref *refusal
	if !errors.As(err, &ref) {
		if err != nil {
			return fmt.Errorf("engine: play page: %w", err)
		}
		return nil
	}
	text, terr := r.refusalText(ref)
	if terr != nil {
		return fmt.Errorf("engine: play page: %w", terr)
	}
	out := &Refusal{Key: string(ref.key), Text: text}
	if strings.HasPrefix(string(ref.key), "token-") && ref.key != whyTokenUnknown {
		if out.Now, err = r.tokenNow(tok); err != nil {
			return fmt.Errorf("engine: play page: %w", err)
		}
	}
	return out
}

// playURL is the play page of the board mail with Message-ID id.
func playURL(base, id string) string {
	local, _, _ := strings.Cut(id, "@")
	return base + "/play/" + strings.TrimPrefix(local, tokenPrefix)
}
