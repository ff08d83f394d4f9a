package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/review"
)

// The robot's review of a game that ends: the three turns where the
// loser's chance fell most (package review), each with the move the robot
// would have played, in the game-over mail itself, after the result.
//
// A review costs up to a second of one core, so it is never made in the
// write transaction, where every other mail would wait for it. The
// transaction that ends a won game composes its game-over mails as it
// always did, pictures and reply tokens included, but holds the mails of
// the recipients who take reviews: it stores them in bucket reviews
// (reviewOwed, beside the game change, so a crash loses nothing), each with
// the place its review goes (ReviewMark, cut out of the stored text), and
// queues nothing for them. A worker outside the write lock (engine/daemon)
// reads the records (PendingReviews, oldest game first), makes one review
// at a time (MakeReview), and commits the held mails with the review put
// in, and the record's deletion, in one transaction (ReviewMails): a crash
// before that commit makes the review again at the next start, one after
// it sends nothing twice. A player who turned reviews off gets his
// game-over mail at once; when nobody takes the review nothing is held.
//
// The wait is bounded: a game-over mail never waits more than ReviewWait
// after the game's end. A review not made by then (the worker giving way
// to a busy outbox, a queue of reviews, a failure) is dropped, and the held
// mails go as they were composed, without it (ReviewMails of a review not
// made): the mail a player waits for is the result, the review only adds
// to it. Such a review is not mailed later on its own: the game-over mail
// that went ends the matter (a second mail a minute later about a game
// already over is one more mail to read), and the game's page still shows
// the chart of the chances.
//
// The budget: at most ReviewPlayouts playouts of one worker a game,
// review.Playouts a position or fewer for a long game, and no review at
// all when that leaves under minReviewPlayouts a position (the game-over
// mails then go at once). YINSH is the costlier game to search: a game of
// 46 moves at 200 a position costs 0.93 s of one core (BenchmarkReview),
// so a review costs at most about a second of one core, LYNGK's far less.

// ReviewWait bounds how long a game-over mail waits for its review, from
// the game's end: long enough for a review behind a few others on a busy
// server, short enough that the result is still news.
const ReviewWait = time.Minute

// reviewMark is ReviewMark in a held game-over mail: a control character
// no text of a mail carries otherwise (comments lose theirs, cleanText).
const reviewMark = "\x1e"

// ReviewPlayouts bounds the playouts of one game-over review.
const ReviewPlayouts = 10_000

// minReviewPlayouts is the least search of a position worth a review.
const minReviewPlayouts = 20

// bucketReviews holds the reviews owed (store.BucketReviews), keyed like
// the game.
const bucketReviews = "reviews"

// reviewOwed is a record of bucket reviews: the game ended at Ended with
// Moves moves, and its review is owed to the recipients of Mails, their
// game-over mails held for it. Each picture the mails show is kept once,
// in Pictures by its PictureID.
type reviewOwed struct {
	V        int               `json:"v"`
	Moves    int               `json:"moves"`
	Ended    time.Time         `json:"ended"`
	Mails    []heldMail        `json:"mails,omitempty"`
	Pictures map[string][]byte `json:"pictures,omitempty"`
}

// heldMail is a game-over mail held for its review: the mail as composed
// (without its picture), its recipient's userid (the line that turns
// reviews off names it) and where the review goes in its text and in its
// HTML part (-1: nowhere, the mark was cut off or there is no HTML part).
type heldMail struct {
	Mail   Mail   `json:"mail"`
	User   string `json:"user"`
	BodyAt int    `json:"body_at"`
	HTMLAt int    `json:"html_at"`
}

func (w *reviewOwed) version() int { return w.V }

// reviewPlayouts is the search of one position of a game of n moves, 0
// when the game is too long for the budget.
func reviewPlayouts(n int) int {
	p := min(review.Playouts, ReviewPlayouts/(n+1))
	if p < minReviewPlayouts {
		return 0
	}
	return p
}

// reviewJob is the search of one review.
type reviewJob struct {
	robot    games.Robot
	start    games.Position
	moves    []string
	loser    int
	playouts int
}

// reviewView is the data of the review in a game-over mail (templates:
// review of board.tmpl, review.html of mail.html): the loser and his
// costliest turns.
type reviewView struct {
	Loser string
	Turns []reviewTurn
	// URL is the game's page, with the chart of the chances ("" without
	// Config.WebURL).
	URL string
	// User is the recipient's userid, for the line that turns reviews off.
	User string
}

// reviewTurn is one of them: move K, the loser's chance before and after
// it in percent, and the robot's move there.
type reviewTurn struct {
	K             int
	Move, Best    string
	Before, After int
}

// reviews counts the reviews made.
type reviews struct {
	made atomic.Int64
}

// reviewOf is the job of g's review, nil for a game that gets none: not
// won (a tie, a cancelled game), a game without a robot, one without a
// move to review (forfeited at the start), or one too long for the
// budget.
func (e *Engine) reviewOf(g *game) (*reviewJob, error) {
	if g.Status != StatusWon || g.Winner == 0 {
		return nil, nil
	}
	gm, err := e.gameOf(g)
	if err != nil || gm.Reviewer() == nil {
		return nil, err
	}
	moves := g.Moves
	if n := len(moves); n > 0 && isTerminal(moves[n-1]) {
		moves = moves[:n-1]
	}
	playouts := reviewPlayouts(len(moves))
	if playouts == 0 || len(moves) == 0 {
		return nil, nil
	}
	start, err := e.position(g, 0)
	if err != nil {
		return nil, err
	}
	return &reviewJob{robot: gm.Reviewer(), start: start, moves: moves, loser: 3 - g.Winner, playouts: playouts}, nil
}

// changeMails sends the board mail of a change of g, v, to its players
// and watchers (boardMails). The game-over mails of a game whose review is
// owed go only to those who take no review; the others are held in bucket
// reviews, in the same transaction, for the review worker (ReviewMails).
// A forecast holds nothing: it draws the same pictures either way.
func (r *request) changeMails(g *game, v *gameView, c *commentView) error {
	keys := recipients(g)
	held, err := r.owedReview(g)
	if err != nil || len(held) == 0 {
		if err == nil {
			err = r.boardMails(g, "board", v, keys, c)
		}
		return err
	}
	atOnce := slices.DeleteFunc(slices.Clone(keys), func(k string) bool { return slices.Contains(held, k) })
	if err := r.boardMails(g, "board", v, atOnce, c); err != nil {
		return err
	}
	w := reviewOwed{V: recordVersion, Moves: len(g.Moves), Ended: g.Ended, Pictures: map[string][]byte{}}
	hv := *v
	hv.ReviewMark = reviewMark
	for _, key := range held {
		u, _, err := r.loadUser(key)
		if err != nil {
			return err
		}
		from := len(r.out)
		if err := r.boardMails(g, "board", &hv, []string{key}, c); err != nil {
			return err
		}
		// bound may have dropped a mail before from for want of room.
		from = min(from, len(r.out))
		for _, m := range r.out[from:] {
			h := heldMail{Mail: m, User: u.ID}
			h.Mail.Body, h.BodyAt = cutMark(m.Body)
			h.Mail.HTML, h.HTMLAt = cutMark(m.HTML)
			if m.Picture != nil {
				w.Pictures[m.PictureID] = m.Picture
				h.Mail.Picture = nil
			}
			w.Mails = append(w.Mails, h)
		}
		r.out = r.out[:from]
	}
	if len(w.Mails) == 0 {
		return nil
	}
	return save(r.tx, bucketReviews, gameKey(g.Board), &w)
}

// cutMark returns s without its reviewMark, and where it was (-1: not in
// s).
func cutMark(s string) (string, int) {
	i := strings.Index(s, reviewMark)
	if i < 0 {
		return s, -1
	}
	return s[:i] + s[i+len(reviewMark):], i
}

// owedReview returns the recipients of g's game-over mails who get its
// review, none when the game gets no review or nobody who takes its mails
// wants one, or in a forecast.
func (r *request) owedReview(g *game) ([]string, error) {
	if r.forecast || !g.over() {
		return nil, nil
	}
	j, err := r.e.reviewOf(g)
	if err != nil || j == nil {
		return nil, err
	}
	return r.reviewReaders(g)
}

// reviewReaders are the users among g's players and watchers who get its
// review: an address, and review not turned off.
func (r *request) reviewReaders(g *game) ([]string, error) {
	var out []string
	for _, key := range recipients(g) {
		u, ok, err := r.loadUser(key)
		if err != nil {
			return nil, err
		}
		if ok && len(u.Addresses) > 0 && u.Review != reviewOff {
			out = append(out, key)
		}
	}
	return out, nil
}

// A PendingReview is a review owed (bucket reviews): PendingReviews reads
// it, MakeReview makes it outside any transaction, ReviewMails mails the
// game-over mails held for it.
type PendingReview struct {
	Board int
	// Ended is when the game ended, Due when its game-over mails go, with
	// the review or without it: Ended + ReviewWait.
	Ended, Due time.Time
	moves      int
	job        *reviewJob // nil: the game gets none after all (gone, changed)
	drops      []review.Drop
	made       bool
}

// PendingReviews returns the first max reviews owed, the game that ended
// first first: its mails are the nearest to their Due. It reads bucket
// reviews and the games of those it returns.
func (e *Engine) PendingReviews(tx Tx, max int) ([]PendingReview, error) {
	r := &request{e: e, tx: tx}
	var out []PendingReview
	err := tx.ForEach(bucketReviews, func(key string, val []byte) error {
		n, err := boardNumber(strings.TrimLeft(key, "0"))
		if err != nil {
			return fmt.Errorf("engine: reviews/%s: not a board number", key)
		}
		// The mails are left undecoded: only the game's end is needed.
		var w struct {
			Moves int       `json:"moves"`
			Ended time.Time `json:"ended"`
		}
		if err := json.Unmarshal(val, &w); err != nil {
			return fmt.Errorf("engine: reviews/%s: %w", key, err)
		}
		out = append(out, PendingReview{Board: n, Ended: w.Ended, Due: w.Ended.Add(ReviewWait), moves: w.Moves})
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b PendingReview) int { return a.Ended.Compare(b.Ended) })
	out = out[:min(max, len(out))]
	for i := range out {
		p := &out[i]
		g, ok, err := r.loadGame(p.Board)
		if err != nil {
			return nil, err
		}
		if ok && len(g.Moves) == p.moves {
			if p.job, err = e.reviewOf(g); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// Made reports whether p's review is made (MakeReview): false for a game
// that gets none after all (it changed or was deleted since it ended).
func (p *PendingReview) Made() bool { return p.made }

// ReviewsOwed counts the reviews owed: the backlog of the review worker,
// for the operator's metrics.
func ReviewsOwed(tx Tx) (int, error) {
	n := 0
	err := tx.ForEach(bucketReviews, func(string, []byte) error { n++; return nil })
	return n, err
}

// MakeReview makes p's review, outside any transaction: at most
// ReviewPlayouts playouts of one worker, pace (nil: none) called before
// each position's search (review.Paced). It stops early when ctx ends.
func (e *Engine) MakeReview(ctx context.Context, p *PendingReview, pace func(context.Context) error) error {
	if p.job == nil || p.made {
		return nil
	}
	points, err := review.Paced(ctx, p.job.robot, p.job.start, p.job.moves, p.job.playouts, pace)
	if err != nil {
		return err
	}
	e.revs.made.Add(1)
	p.drops, p.made = review.Worst(points, p.job.moves, p.job.loser, 3), true
	return nil
}

// ReviewsMade counts the reviews made (MakeReview), all of them outside
// the write transaction: none is ever made inside.
func (e *Engine) ReviewsMade() int64 { return e.revs.made.Load() }

// ReviewMails returns, in the write transaction, the game-over mails held
// for p, with its review put in where each was marked when p is made
// (MakeReview), as they were composed without it when it is not (its Due
// passed first, the review failed), and deletes its record. None when the
// record is gone (mailed already: a review made twice is mailed once). A
// review that names no turn (the loser made no move worse than the
// robot's), or whose game changed or was deleted since, is left out. Each
// mail's lines are kept anew for the copies of it in replies (keepSent).
func (e *Engine) ReviewMails(tx Tx, p PendingReview, now time.Time) ([]Mail, error) {
	var w reviewOwed
	if ok, err := load(tx, bucketReviews, gameKey(p.Board), &w); err != nil || !ok {
		return nil, err
	}
	if err := tx.Delete(bucketReviews, gameKey(p.Board)); err != nil {
		return nil, err
	}
	r := &request{e: e, tx: tx, now: now}
	v, err := r.reviewView(p, w.Moves)
	if err != nil {
		return nil, err
	}
	out := []Mail{}
	for _, h := range w.Mails {
		m := h.Mail
		m.Picture = w.Pictures[m.PictureID]
		if v != nil {
			mv := *v
			mv.User = h.User
			if h.BodyAt >= 0 && h.BodyAt <= len(m.Body) {
				text, err := e.cfg.Templates.Render("review", &mv)
				if err != nil {
					return nil, err
				}
				m.Body = m.Body[:h.BodyAt] + text + m.Body[h.BodyAt:]
				m.Body = cutBody(m, MaxReply)
			}
			if h.HTMLAt >= 0 && h.HTMLAt <= len(m.HTML) {
				html, err := e.cfg.Templates.RenderHTML("review.html", &mv)
				if err != nil {
					return nil, err
				}
				m.HTML = m.HTML[:h.HTMLAt] + html + m.HTML[h.HTMLAt:]
			}
		}
		if err := r.keepSent(m.MessageID, &m); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// reviewView is the review of p to put in its game-over mails, nil for
// none: not made, naming no turn, or its game gone or changed since it
// ended with moves moves.
func (r *request) reviewView(p PendingReview, moves int) (*reviewView, error) {
	if p.job == nil || !p.made || len(p.drops) == 0 || moves != p.moves {
		return nil, nil
	}
	g, ok, err := r.loadGame(p.Board)
	if err != nil || !ok || len(g.Moves) != p.moves {
		return nil, err
	}
	v := &reviewView{Loser: g.Players[p.job.loser-1]}
	if r.e.cfg.WebURL != "" {
		v.URL = fmt.Sprintf("%s/game/%d", r.e.cfg.WebURL, g.Board)
	}
	for _, d := range p.drops {
		v.Turns = append(v.Turns, reviewTurn{K: d.K, Move: d.Move, Best: d.Best,
			Before: int(math.Round(100 * d.Before)), After: int(math.Round(100 * d.After))})
	}
	return v, nil
}
