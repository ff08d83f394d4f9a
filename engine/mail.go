package engine

import (
	"crypto/sha256"
	"encoding/base32"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/templates"
)

// boardMailRows is how many rows of the move list a board mail shows after
// a move: the last four, as the gamerz mail in reference-mails/after-move.txt.
// The game-over mail and show give the whole list.
const boardMailRows = 4

// gameView is the data of the board mails (templates/board.tmpl).
type gameView struct {
	Board int
	Title string // the game's (games.Rules.Title): "Lyngk"
	Word  string // the game's word (games.Rules.Name): "lyngk"
	// Example is a move of the game as a player writes it at the turn to
	// play, HelpTopic the help that explains its notation (the game's
	// texts GAME.example and GAME.help-topic: LYNGK "G,c1-d1" and
	// "notation", YINSH "e3" while the rings are placed, then "h7-g7",
	// and "yinsh"); "" when it has none.
	Example, HelpTopic string
	Players            [2]string
	ToMove             string // "" when the game is over
	Moved              bool   // a move was made (else "Please start the game")
	Over               bool
	Cancelled          bool      // over before every player moved: counts for nobody
	Winner             string    // "" for a tie
	marks              [2]string // by the names in the picture when Over (GameSummary.Marks)
	Historic           bool      // show BOARD#N: the position after move After
	After              int
	Ratings            []ratingLine
	Rows               []moveRow
	Block              string
	Notice             string
	Comment            *commentView
	Timing             *timingView
	Nag                *nagView
	// Play is the page WebURL/play/TOKEN of a board mail to a player
	// (Config.WebURL set), "" for none.
	Play string
	// YourTurn is set in a mail to the player to move, NotYourTurn in one
	// to the other player of a running game: the text ends with how to
	// move, or with whose turn it is (forTurn).
	YourTurn, NotYourTurn bool
	// ReviewMark marks, in a game-over mail held for the robot's review,
	// where the review goes (after the result and the ratings, text and
	// HTML): reviewMark there, "" in every other mail (reviews.go).
	ReviewMark string
	pos        games.Position // the position shown, for the picture
	game       games.Game     // the game, for the picture
}

type ratingLine struct {
	User        string
	Rating      int
	Provisional bool
}

// moveRow is one line of the two-column move list; M2 is "" when the row
// has one move.
type moveRow struct {
	N1 int
	M1 string
	N2 int
	M2 string
}

type commentView struct{ User, Text string }

type timingView struct {
	Started, LastMove, Ended time.Time
	Width                    int // of the longest player name
	Players                  []usedView
	Total                    usedView
}

type usedView struct {
	Name                          string
	Days, Hours, Minutes, Seconds int
}

type nagView struct {
	Days    int
	Forfeit time.Time
}

func used(name string, d time.Duration) usedView {
	s := int(d / time.Second)
	return usedView{Name: name, Days: s / 86400, Hours: s / 3600 % 24, Minutes: s / 60 % 60, Seconds: s % 60}
}

// view builds the board view of g: the current state (n < 0) or the
// position after move n; rows > 0 keeps only the last rows of the move list.
func (e *Engine) view(g *game, n, rows int) (*gameView, error) {
	gm, err := e.gameOf(g)
	if err != nil {
		return nil, err
	}
	pos, err := e.position(g, n)
	if err != nil {
		return nil, err
	}
	v := &gameView{Board: g.Board, Title: gm.Title(), Word: gm.Name(), Players: g.Players, Block: pos.Board(g.Players), pos: pos, game: gm,
		Example: e.example(gm.Name(), len(pos.Moves())+1), HelpTopic: e.gameText(gm.Name(), "help-topic")}
	moves := g.Moves
	if n >= 0 {
		v.Historic, v.After = true, n
		moves = moves[:n]
		v.Over = pos.Outcome() != games.Playing
		if w := pos.Winner(); w != 0 {
			v.Winner = g.Players[w-1]
			v.marks[w-1], v.marks[2-w] = "won", "lost"
		} else if v.Over {
			v.marks = [2]string{"tie", "tie"}
		}
		if !v.Over {
			v.ToMove = g.Players[pos.Turn()-1]
		}
	} else {
		// The current state as the read API tells it (read.go).
		s := e.summary(g, pos)
		v.Over, v.Cancelled = s.Over(), s.Status == StatusCancelled
		v.Winner, v.ToMove, v.marks = s.WinnerID(), s.ToMoveID(), s.Marks()
	}
	v.Moved = len(moves) > 0
	for i := 0; i < len(moves); i += 2 {
		row := moveRow{N1: i + 1, M1: moves[i]}
		if i+1 < len(moves) {
			row.N2, row.M2 = i+2, moves[i+1]
		}
		v.Rows = append(v.Rows, row)
	}
	if rows > 0 && len(v.Rows) > rows {
		v.Rows = v.Rows[len(v.Rows)-rows:]
	}
	if n < 0 && g.over() {
		v.Timing = timing(g)
		if g.Ratings[0].Value != 0 {
			// Reverse challenge order, as the gamerz game-over mail.
			for _, i := range []int{1, 0} {
				v.Ratings = append(v.Ratings, ratingLine{g.Players[i], g.Ratings[i].Value, g.Ratings[i].Provisional})
			}
		}
	}
	return v, nil
}

// timing is the block of a finished game: each move's time since the move
// before (or the start) counts for the player who made it.
func timing(g *game) *timingView {
	t := &timingView{Started: g.Started.UTC(), LastMove: g.Started.UTC(), Ended: g.Ended.UTC()}
	var spent [2]time.Duration
	prev := g.Started
	for i, at := range g.MoveTimes {
		spent[i%2] += at.Sub(prev)
		prev = at
		t.LastMove = at.UTC()
	}
	for i, p := range g.Players {
		t.Width = max(t.Width, len(p))
		t.Players = append(t.Players, used(p, spent[i]))
	}
	t.Total = used("", spent[0]+spent[1])
	return t
}

// tokenEncoding writes reply tokens: 160 random bits in 32 characters that
// survive any mail client's treatment of Message-IDs.
var tokenEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// drawToken draws n random bytes from rnd and returns them in
// tokenEncoding, never beginning with "3": one such code in 80 (a "3"
// first and no "l") matches SpamAssassin's Bitcoin address pattern
// (__BITCOIN_ID, \b[13][base58]{29,34}\b) and the mail carrying it
// scores PDS_BTC_ID, +1.0. A first "3" (five bits 11011) has its top bit
// cleared and becomes an "l" (01011), which no Bitcoin address holds; the
// draw takes no more randomness, so the other tokens stay as they were.
func drawToken(rnd io.Reader, n int) (string, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(rnd, b); err != nil {
		return "", err
	}
	if b[0]>>3 == 27 {
		b[0] &^= 0x80
	}
	return tokenEncoding.EncodeToString(b), nil
}

const tokenPrefix = "lyngk."

// messageID draws a reply token for the board mail of g to the user key,
// records it, and returns the mail's Message-ID.
func (r *request) messageID(g *game, key string) (string, error) {
	return r.newToken(r.tokenFor(g, key))
}

// tokenFor is the record of a token for a mail about g, as it is now, to
// the user key.
func (r *request) tokenFor(g *game, key string) token {
	return token{V: recordVersion, Board: g.Board, User: key, Moves: len(g.Moves), TakeBacks: g.TakeBacks, Changes: g.Changes, Sent: r.now}
}

// newToken draws a reply token, records rec for it, and returns the
// Message-ID that carries it.
func (r *request) newToken(rec token) (string, error) {
	tok, err := drawToken(r.e.cfg.Rand, 20)
	if err != nil {
		return "", fmt.Errorf("engine: reply token: %w", err)
	}
	if old, err := r.tx.Get(bucketTokens, tok); err != nil || old != nil {
		if err == nil {
			err = fmt.Errorf("engine: reply token %s drawn twice: broken random source", tok)
		}
		return "", err
	}
	return tokenPrefix + tok + "@" + r.e.cfg.Domain, saveToken(r.tx, tok, &rec)
}

// recipients are the players and subscribers of g, as userid keys.
func recipients(g *game) []string {
	var keys []string
	for _, p := range g.Players {
		keys = append(keys, strings.ToLower(p))
	}
	for _, s := range g.Subscribers {
		if !slices.Contains(keys, s) {
			keys = append(keys, s)
		}
	}
	return keys
}

// boardMails sends v (kind "new-game", "board" or "nag") to each key, each
// mail with its own reply token. The comment goes to everybody but its
// writer.
func (r *request) boardMails(g *game, kind string, v *gameView, keys []string, c *commentView) error {
	for _, key := range keys {
		if !r.roomFor(g.Board) {
			continue
		}
		u, ok, err := r.loadUser(key)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("engine: board %d: user %q has no record", g.Board, key)
		}
		if len(u.Addresses) == 0 {
			// The robot player reads the store, not mail; an account
			// without a confirmed address gets none either (and no token).
			continue
		}
		// Timer mails (reminders, forfeits) are paced by the timer, and
		// the games behind them bounded by the challenges refused.
		low := r.bounded && unasked(g, key)
		if low {
			if r.unaskedToday(u) >= MaxUnasked {
				continue // he sees the game with lyngk games
			}
			if err := r.countUnasked(u); err != nil {
				return err
			}
		}
		mv := *v
		if c != nil && !strings.EqualFold(c.User, u.ID) {
			mv.Comment = c
		}
		mv.forTurn(g, key)
		id, err := r.messageID(g, key)
		if err != nil {
			return err
		}
		err = r.mailAbout(kind, &mv, envelope{
			to: u.Addresses, id: id, board: g.Board, key: key, html: u.html(),
			game: &mv, play: !mv.Over && g.player(key) != 0, unasked: low,
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// forTurn sets YourTurn and NotYourTurn for the mail of v to the user key.
func (v *gameView) forTurn(g *game, key string) {
	running := !v.Over && !v.Historic && g.player(key) != 0
	v.YourTurn = running && strings.EqualFold(v.ToMove, key)
	v.NotYourTurn = running && !v.YourTurn
}

// envelope says to whom a mail goes and what it is about.
type envelope struct {
	to   []string
	kind string // the template's name: a "confirm" mail goes even to a bouncing address (bounce.go)
	id   string // Message-ID, "" for one generated by the composer
	// board is the game the mail is about (0 for none): its mails to one
	// recipient form one thread. key is the recipient's userid key, "" when
	// the recipient is known by address only.
	board int
	key   string
	// game is the board the mail shows, nil for none; with html, the mail
	// gets an HTML part with the picture of it. play adds the link to the
	// play page (a mail to a player of a running game); the game's
	// YourTurn, the line that replying with the move is enough.
	game *gameView
	html bool
	play bool
	// intro and quote are the error mail's text and quoted command, for
	// its HTML part.
	intro string
	quote []string
	// unasked marks a board mail the recipient did not ask for (Mail.Unasked).
	unasked bool
	// attach are the mail's attachments (Mail.Attachments).
	attach []Attachment
}

// mail renders KIND.subject and KIND.body with data and sends it to to.
func (r *request) mail(kind string, to []string, data any) error {
	return r.mailAbout(kind, data, envelope{to: to})
}

// mailAbout renders KIND.subject and KIND.body with data and sends it as
// e says. A mail without recipients (an account without a confirmed
// address) is not composed at all.
func (r *request) mailAbout(kind string, data any, e envelope) error {
	e.kind = kind
	if len(e.to) == 0 {
		return nil
	}
	if e.play && e.game != nil && r.e.cfg.WebURL != "" {
		e.game.Play = playURL(r.e.cfg.WebURL, e.id)
	}
	if r.forecast {
		return r.forecastMail(e)
	}
	subject, err := r.e.cfg.Templates.Render(kind+".subject", data)
	if err != nil {
		return err
	}
	body, err := r.e.cfg.Templates.Render(kind+".body", data)
	if err != nil {
		return err
	}
	if wrapped[kind] {
		body = templates.Wrap(body, templates.Width)
	}
	if subject, body, err = r.oneSubject(e, subject, body); err != nil {
		return err
	}
	m := Mail{To: slices.Clone(e.to), Subject: subject, Body: body, MessageID: e.id, Unasked: e.unasked, Attachments: e.attach}
	if e.game != nil {
		m.board = e.game.Board
		if e.html {
			if err := r.htmlPart(&m, kind, e); err != nil {
				return err
			}
		}
	}
	if e.id != "" {
		// A mail with a reply token: its lines are kept to recognise a
		// copy of it in a reply (reply.go).
		if err := r.keepSent(e.id, &m); err != nil {
			return err
		}
	}
	return r.send(m, e)
}

// forecastMail is mailAbout for a forecast (pictures.go), which only lists
// the pictures of the mails: their texts are neither rendered nor kept
// (the run that commits makes them; a forecast of a move cost as much as
// the move's own run before, templates and all). The mail still goes
// through send, so the bounds of one incoming mail stop a forecast as they
// stop its mails: without its text a mail counts fewer bytes, but MaxMails
// still holds, so a forecast lists no more pictures than the mails of one
// incoming mail may carry (and the one of the mail that found no room).
func (r *request) forecastMail(e envelope) error {
	m := Mail{To: slices.Clone(e.to), MessageID: e.id, Unasked: e.unasked, Attachments: e.attach}
	if e.game != nil {
		m.board = e.game.Board
		if e.html {
			if err := r.htmlPart(&m, e.kind, e); err != nil {
				return err
			}
		}
	}
	return r.send(m, e)
}

// oneSubject gives a mail about a game to a user who chose "change
// subject ... game" the game's one subject ("Lyngk Board 102 alice-bob",
// template game.subject): Gmail and Outlook group a conversation by
// subject as well as by References, and gamerz's subjects change with
// every mail. What the subject would have said opens the text instead;
// the HTML part says it already (its heading, the status, the comment).
// Any other mail keeps its subject.
func (r *request) oneSubject(e envelope, subject, body string) (string, string, error) {
	if e.board == 0 || e.key == "" {
		return subject, body, nil
	}
	u, ok, err := r.loadUser(e.key)
	if err != nil || !ok || u.Subject != subjectGame {
		return subject, body, err
	}
	g, ok, err := r.loadGame(e.board)
	if err != nil || !ok {
		return subject, body, err
	}
	gm, err := r.e.gameOf(g)
	if err != nil {
		return "", "", err
	}
	one, err := r.e.cfg.Templates.Render("game.subject", kv{"Title": gm.Title(), "Board": g.Board, "Players": g.Players})
	if err != nil {
		return "", "", err
	}
	return one, subject + "\n\n" + body, nil
}

// wrapped are the kinds of mail whose whole text is the server's, wrapped
// to templates.Width: a userid, an address list or a listing may make a
// line longer. Board, error and chat mails hold a board or what a player
// wrote; their own texts are wrapped where they are made (errors, notices).
var wrapped = map[string]bool{"signup": true, "account": true, "games": true, "history": true, "standings": true,
	"list": true, "ratings": true, "message-sent": true,
	"queued": true, "queue-dropped": true,
	"tournament": true, "tournaments": true, "tournament-start": true, "tournament-round": true,
	"tournament-end": true, "tournament-cancelled": true}

// send queues m, within the bounds of one incoming mail (bounds.go).
func (r *request) send(m Mail, e envelope) error {
	to, err := r.deliverable(e.kind, m.To)
	if err != nil {
		return err
	}
	if len(to) == 0 {
		// Held back from a bouncing address: the mail was answered, to
		// nobody (an empty, not a nil, list of mails: see Handle).
		if r.out == nil {
			r.out = []Mail{}
		}
		return nil
	}
	m.To = to
	m = r.withBounceNote(r.thread(m, e))
	if !r.bounded {
		m.Body = cutBody(m, MaxReply)
		r.out = append(r.out, m)
		return nil
	}
	return r.bound(m)
}

// thread sets m's loop and threading headers. A mail to the sender of the
// command is a reply (RFC 3834 §3.1.3-5: In-Reply-To, References,
// Auto-Submitted: auto-replied); a mail to anybody else, or caused by a
// timer, is auto-generated. A mail about a game starts its References with
// the game's thread root for the recipient, and one that answers no mail
// of the recipient is a reply to that root: every mail client then shows a
// game as one conversation. References keeps the root, the first and the
// newest ids (RFC 5322 §3.6.4), at most maxRefs, each at most maxIDLen
// bytes: an incoming header cannot swell the reply. A reply to a stranger
// names none of his ids: a Message-ID is text the sender chose, and mail
// to a stranger carries none (no backscatter, backscatter.go).
func (r *request) thread(m Mail, e envelope) Mail {
	m.AutoSubmitted = "auto-generated"
	var root string
	if e.board != 0 {
		root = r.threadRoot(e.board, e.key, m.To)
		m.InReplyTo, m.References = root, []string{root}
	}
	if r.in.From != "" && slices.ContainsFunc(m.To, func(a string) bool { return strings.EqualFold(a, r.in.From) }) {
		m.AutoSubmitted = "auto-replied"
		if id := r.in.MessageID; id != "" && len(id) <= maxIDLen && !r.stranger {
			var refs []string
			for _, ref := range r.in.References {
				if len(ref) <= maxIDLen && ref != root && ref != id {
					refs = append(refs, ref)
				}
			}
			keep := maxRefs - 1 - len(m.References)
			if len(refs) > keep {
				refs = append(refs[:1], refs[len(refs)-(keep-1):]...)
			}
			m.InReplyTo = id
			m.References = append(append(m.References, refs...), id)
		}
	}
	return m
}

// threadRoot is the Message-ID that roots the thread of board's mails to
// one recipient (by userid key, else by first address): never sent, the
// same for every mail of the game to that recipient, and not of the reply
// token's form. It is a digest, so it tells nothing of the recipient.
func (r *request) threadRoot(board int, key string, to []string) string {
	if key == "" && len(to) > 0 {
		key = "@" + strings.ToLower(to[0])
	}
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%d\x00%s", r.e.cfg.Domain, board, key)))
	return fmt.Sprintf("game-%d.%x@%s", board, sum[:10], r.e.cfg.Domain)
}

// errorView is the data of the error mail (templates/error.tmpl).
type errorView struct {
	Text  string
	Game  *gameView
	Quote []string
}

// refused sends the error mail for ref to the sender. quote adds the
// offending command (never more: the rest of the mail may be long, or
// not the sender's), at most MaxQuote bytes of it.
func (r *request) refused(ref *refusal, quote bool) error {
	if r.stranger && r.bounded {
		// No backscatter: a stranger's answer carries no text he chose,
		// no quote, no argument, no userid or address he typed.
		switch {
		case r.silent:
			return nil
		case ref.key == whyUnknownCommand:
			// Not the word he wrote: only the suggestions, ours.
			ref = refuse(whyNoCommand, kv{"Suggest": ref.data["Suggest"]})
		case !strangerSafe[ref.key]:
			ref = refuse(whyStranger, nil)
		}
		quote = false
	}
	text, err := r.refusalText(ref)
	if err != nil {
		return err
	}
	ev := errorView{Text: text}
	e := envelope{to: []string{r.in.From}, intro: text}
	// The game the error is about: the one whose summary it shows, else
	// the one it names, if that exists.
	board := ref.board
	if n, ok := ref.data["Board"].(int); ok && board == 0 {
		board = n
	}
	if board != 0 {
		g, ok, err := r.loadGame(board)
		if err != nil {
			return err
		}
		if ok {
			e.board = g.Board
			u, err := r.sender(g)
			if err != nil {
				return err
			}
			if u != nil {
				e.key, e.html = strings.ToLower(u.ID), u.html()
			}
			if ref.board != 0 {
				if ev.Game, err = r.e.view(g, -1, boardMailRows); err != nil {
					return err
				}
				e.game = ev.Game
				// The mail shows the game's current position: to one of
				// its players it carries that player's token, so that a
				// reply to it moves, as a reply to a board mail does.
				if u != nil && g.player(e.key) != 0 && !g.over() {
					if e.id, err = r.messageID(g, e.key); err != nil {
						return err
					}
					e.play = true
					ev.Game.forTurn(g, e.key)
				}
			}
		}
	}
	if quote {
		q := []string{"Subject: " + r.in.Subject, ""}
		if r.line != "" && !r.script.FromSubject {
			q = append(q, r.line)
		}
		ev.Quote = quoteLines(q)
		e.quote = ev.Quote
	}
	return r.mailAbout("error", ev, e)
}

// refusalText is the text of ref, as the error mail says it and the play
// page shows it, wrapped to templates.Width.
func (r *request) refusalText(ref *refusal) (string, error) {
	// An argument echoed back is cut (MaxEcho): it may be a megabyte. A
	// reason is ours, but may quote the argument in turn.
	data := r.gameWords(ref.data["Board"])
	for k, v := range ref.data {
		if s, ok := v.(string); ok {
			if k == "Reason" {
				v = cutRunes(s, 4*MaxEcho)
			} else {
				v = echo(s)
			}
		}
		data[k] = v
	}
	if ref.key == whyNoCommand {
		ex, err := r.moveExamples()
		if err != nil {
			return "", err
		}
		data["Examples"] = ex
	}
	text, err := r.e.cfg.Templates.Render("err."+string(ref.key), data)
	if err != nil {
		return "", err
	}
	if s, ok := ref.data["Suggest"].([]string); ok && len(s) > 0 {
		more, err := r.e.cfg.Templates.Render("suggest", s)
		if err != nil {
			return "", err
		}
		text += "\n\n" + strings.TrimRight(more, "\n")
	}
	return templates.Wrap(text, templates.Width), nil
}

// LongLines returns the lines of a mail's text wider than
// templates.Width that the server wrote: not the lines of what a player
// wrote (quoted with ">", or a comment after "USERID writes:" or a chat's
// "USERID writes about Yinsh Board 101:" up to the next line of stars),
// not a line holding only a URL.
func LongLines(text string) []string {
	var long []string
	comment := false
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasSuffix(l, " writes:") || strings.Contains(l, " writes about ") && strings.HasSuffix(l, ":"):
			comment = true
			continue
		case strings.HasPrefix(l, "****"):
			comment = false
		}
		t := strings.TrimSpace(l)
		url := !strings.Contains(t, " ") && (strings.HasPrefix(t, "http://") || strings.HasPrefix(t, "https://"))
		if comment || strings.HasPrefix(l, ">") || url {
			continue
		}
		if utf8.RuneCountInString(l) > templates.Width {
			long = append(long, l)
		}
	}
	return long
}

// gameWords is the start of the data of an error text or notice: Title
// and GameWord, the name and the word of the game it is about, and
// Notation, how that game's moves are written (gameText
// "notation-format"): board's
// game when board (an int) names one, else the game of the command being
// run, else the first game the server offers.
func (r *request) gameWords(board any) kv {
	name := r.word
	if n, ok := board.(int); ok {
		if g, found, err := r.loadGame(n); err == nil && found {
			name = g.Game
		}
	}
	gm, ok := r.e.games[name]
	if !ok {
		gm = r.e.cfg.Games[0]
		name = gm.Name()
	}
	return kv{"Title": gm.Title(), "GameWord": name, "Notation": r.e.gameText(name, "notation-format")}
}
