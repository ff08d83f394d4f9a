package engine

import (
	"context"
	"crypto/sha256"
	"fmt"
	"math"
	"strings"
	"sync/atomic"

	"lyngk.example/lyngk/engine/bounded"
	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/review"
)

// The robot's review in the game-over mail: the three turns where the
// loser's chance fell most (package review), each with the move the robot
// would have played. Like a picture, a review is never made inside the
// store's write transaction: the forecast of the work that ends a game
// lists it among its Drawings, the daemon makes it with Draw before the
// transaction (or leaves it out when the server is busy: engine/daemon),
// and the game-over mail finds it in the engine's memory. A mail that
// finds none (no forecast, a busy server, a game too long for the budget)
// goes without it; the game's page makes its own review later.
//
// The budget: at most ReviewPlayouts playouts of one worker a game,
// review.Playouts a position or fewer for a long game, and no review in
// the mail when that leaves under minReviewPlayouts a position. YINSH is
// the costlier game to search: a game of 46 moves at 200 a position costs
// 0.93 s of one core (BenchmarkReview), so a review costs at most about a
// second of one core, LYNGK's far less.

// ReviewPlayouts bounds the playouts of one game-over review.
const ReviewPlayouts = 10_000

// minReviewPlayouts is the least search of a position worth a review.
const minReviewPlayouts = 20

// reviewBudget bounds the reviews kept: each is a few hundred bytes.
const reviewBudget = 1 << 20

// reviewPlayouts is the search of one position of a game of n moves, 0
// when the game is too long for the budget.
func reviewPlayouts(n int) int {
	p := min(review.Playouts, ReviewPlayouts/(n+1))
	if p < minReviewPlayouts {
		return 0
	}
	return p
}

// reviewJob is a review to make before the transaction (Drawing.rv).
type reviewJob struct {
	key      string
	robot    games.Robot
	start    games.Position
	moves    []string
	loser    int
	playouts int
}

// reviewView is the review the game-over mail prints (templates: the
// "review" text of board.tmpl, mail.html): the loser's costliest turns.
type reviewView struct {
	Loser string
	Turns []reviewTurn
}

// reviewTurn is one of them: move K, the loser's chance before and after
// it in percent, and the robot's move there.
type reviewTurn struct {
	K             int
	Move, Best    string
	Before, After int
}

// reviews is the engine's memory of the reviews made for the mails.
type reviews struct {
	cache *bounded.Cache[[]review.Drop]
	made  atomic.Int64
}

func newReviews() *reviews {
	return &reviews{cache: bounded.New(reviewBudget, func(ds []review.Drop) int { return 64 + 128*len(ds) })}
}

// reviewOf is the job of g's review, nil for a game the mail shows none
// of: not won (a tie, a cancelled game), a game without a robot, or one
// too long for the budget.
func (e *Engine) reviewOf(g *game) (*reviewJob, error) {
	if g.Status != StatusWon || g.Winner == 0 {
		return nil, nil
	}
	gm, err := e.gameOf(g)
	if err != nil || gm.Robot == nil {
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
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%d\x00%s", gm.Name(), g.Board, g.Winner, strings.Join(moves, " "))
	return &reviewJob{key: string(h.Sum(nil)), robot: gm.Robot, start: start, moves: moves, loser: 3 - g.Winner, playouts: playouts}, nil
}

// makeReview makes the review of j and keeps it for the mail.
func (e *Engine) makeReview(j *reviewJob) error {
	if _, ok := e.revs.cache.Lookup(j.key); ok {
		return nil
	}
	points, err := review.Review(context.Background(), j.robot, j.start, j.moves, j.playouts)
	if err != nil {
		return err
	}
	e.revs.made.Add(1)
	e.revs.cache.Put(j.key, review.Worst(points, j.moves, j.loser, 3))
	return nil
}

// ReviewsMade counts the game-over reviews made (Draw), all of them
// before the write transaction: none is ever made inside.
func (e *Engine) ReviewsMade() int64 { return e.revs.made.Load() }

// gameReview sets v's review of g, finished: listed for the forecast,
// from memory for the mail (none when it was not made).
func (r *request) gameReview(g *game, v *gameView) error {
	j, err := r.e.reviewOf(g)
	if err != nil || j == nil {
		return err
	}
	if r.forecast {
		r.drawings = append(r.drawings, Drawing{key: "review\x00" + j.key, board: g.Board, rv: j})
		return nil
	}
	drops, ok := r.e.revs.cache.Lookup(j.key)
	if !ok || len(drops) == 0 {
		return nil
	}
	v.Review = &reviewView{Loser: g.Players[j.loser-1]}
	for _, d := range drops {
		v.Review.Turns = append(v.Review.Turns, reviewTurn{K: d.K, Move: d.Move, Best: d.Best,
			Before: int(math.Round(100 * d.Before)), After: int(math.Round(100 * d.After))})
	}
	return nil
}
