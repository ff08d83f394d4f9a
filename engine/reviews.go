package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"
	"time"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/review"
)

// The robot's review of a game that ends: the three turns where the
// loser's chance fell most (package review), each with the move the robot
// would have played, mailed to the game's players and watchers.
//
// It costs up to a second of one core, so nobody's mail waits for it, not
// even the game-over mail: the transaction that ends a won game records
// in bucket reviews that its review is owed (owedReview, beside the game
// change, so a crash loses nothing), and the game-over mails go at once,
// as fast as any move's. A worker outside the write lock (engine/daemon)
// reads the records (PendingReviews), makes one review at a time
// (MakeReview), and commits its mails with the record's deletion in one
// transaction (ReviewMails), so a crash before that commit makes the
// review again at the next start and one after it sends nothing twice.
// The review follows the game-over mail as a short text mail of its own,
// in the game's thread: a player learns the result at once and reads the
// robot's opinion a second later, rather than wait for the robot to hear
// that he won.
//
// The budget: at most ReviewPlayouts playouts of one worker a game,
// review.Playouts a position or fewer for a long game, and no review at
// all when that leaves under minReviewPlayouts a position. YINSH is the
// costlier game to search: a game of 46 moves at 200 a position costs
// 0.93 s of one core (BenchmarkReview), so a review costs at most about a
// second of one core, LYNGK's far less.

// ReviewPlayouts bounds the playouts of one game-over review.
const ReviewPlayouts = 10_000

// minReviewPlayouts is the least search of a position worth a review.
const minReviewPlayouts = 20

// bucketReviews holds the reviews owed (store.BucketReviews), keyed like
// the game.
const bucketReviews = "reviews"

// reviewOwed is a record of bucket reviews: the game ended at Ended with
// Moves moves, and its review is not mailed yet.
type reviewOwed struct {
	V     int       `json:"v"`
	Moves int       `json:"moves"`
	Ended time.Time `json:"ended"`
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

// reviewView is the review mail's data (templates: review.subject and
// review.body of board.tmpl): the game, the loser and his costliest turns.
type reviewView struct {
	Title   string
	Board   int
	Players [2]string
	Winner  string
	Loser   string
	Turns   []reviewTurn
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
// won (a tie, a cancelled game), a game without a robot, or one too long
// for the budget.
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
	if playouts == 0 {
		return nil, nil
	}
	start, err := e.position(g, 0)
	if err != nil {
		return nil, err
	}
	return &reviewJob{robot: gm.Reviewer(), start: start, moves: moves, loser: 3 - g.Winner, playouts: playouts}, nil
}

// owedReview records, in the transaction that ends g, that its review is
// owed, unless g gets none or nobody who takes its mails wants one.
func (r *request) owedReview(g *game) error {
	if r.forecast {
		return nil
	}
	j, err := r.e.reviewOf(g)
	if err != nil || j == nil {
		return err
	}
	keys, err := r.reviewReaders(g)
	if err != nil || len(keys) == 0 {
		return err
	}
	return save(r.tx, bucketReviews, gameKey(g.Board), &reviewOwed{V: recordVersion, Moves: len(g.Moves), Ended: g.Ended})
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
// it, MakeReview makes it outside any transaction, ReviewMails mails it.
type PendingReview struct {
	Board int
	// Ended is when the game ended.
	Ended time.Time
	moves int
	job   *reviewJob // nil: the game gets none after all (gone, changed)
	drops []review.Drop
	made  bool
}

// PendingReviews returns the first max reviews owed, in board order. It
// reads only bucket reviews and those games.
func (e *Engine) PendingReviews(tx Tx, max int) ([]PendingReview, error) {
	r := &request{e: e, tx: tx}
	var out []PendingReview
	err := tx.ForEach(bucketReviews, func(key string, val []byte) error {
		if len(out) >= max {
			return errEnough
		}
		n, err := boardNumber(strings.TrimLeft(key, "0"))
		if err != nil {
			return fmt.Errorf("engine: reviews/%s: not a board number", key)
		}
		var w reviewOwed
		if _, err := load(tx, bucketReviews, key, &w); err != nil {
			return err
		}
		p := PendingReview{Board: n, Ended: w.Ended, moves: w.Moves}
		g, ok, err := r.loadGame(n)
		if err != nil {
			return err
		}
		if ok && len(g.Moves) == w.Moves {
			if p.job, err = e.reviewOf(g); err != nil {
				return err
			}
		}
		out = append(out, p)
		return nil
	})
	if errors.Is(err, errEnough) {
		err = nil
	}
	return out, err
}

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

// ReviewMails returns, in the write transaction, the mails of p, made,
// and deletes its record: one mail to each player and watcher who takes
// reviews. None when the record is gone (mailed already: a review made
// twice is mailed once), and none but the deletion when the game gets no
// review after all (it changed or was deleted, or the loser made no move
// worse than the robot's).
func (e *Engine) ReviewMails(tx Tx, p PendingReview, now time.Time) ([]Mail, error) {
	var w reviewOwed
	if ok, err := load(tx, bucketReviews, gameKey(p.Board), &w); err != nil || !ok {
		return nil, err
	}
	if err := tx.Delete(bucketReviews, gameKey(p.Board)); err != nil {
		return nil, err
	}
	if p.job == nil || !p.made || len(p.drops) == 0 || w.Moves != p.moves {
		return nil, nil
	}
	r := &request{e: e, tx: tx, now: now}
	g, ok, err := r.loadGame(p.Board)
	if err != nil || !ok || len(g.Moves) != p.moves {
		return nil, err
	}
	gm, err := e.gameOf(g)
	if err != nil {
		return nil, err
	}
	v := &reviewView{Title: gm.Title(), Board: g.Board, Players: g.Players, Winner: g.Players[g.Winner-1],
		Loser: g.Players[p.job.loser-1]}
	if e.cfg.WebURL != "" {
		v.URL = fmt.Sprintf("%s/game/%d", e.cfg.WebURL, g.Board)
	}
	for _, d := range p.drops {
		v.Turns = append(v.Turns, reviewTurn{K: d.K, Move: d.Move, Best: d.Best,
			Before: int(math.Round(100 * d.Before)), After: int(math.Round(100 * d.After))})
	}
	keys, err := r.reviewReaders(g)
	if err != nil {
		return nil, err
	}
	for _, key := range keys {
		u, _, err := r.loadUser(key)
		if err != nil {
			return nil, err
		}
		mv := *v
		mv.User = u.ID
		if err := r.mailAbout("review", &mv, envelope{to: u.Addresses, board: g.Board, key: key}); err != nil {
			return nil, err
		}
	}
	return r.out, nil
}
