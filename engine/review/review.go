// Package review is the robot's review of a game: after every move, the
// chance of each player as the game's robot estimates it (the mean result
// of its search from that position), and the moves after which a player's
// chance fell most, each with the move the robot would have played
// instead. It knows no game: it speaks to the game's rules and robot
// through the contract (package games).
//
// The budget is stated per position, in playouts, with one worker and a
// fixed seed, so a review is reproducible and its cost is the number of
// positions times the cost of one search (bench_test.go measures a whole
// game of each).
package review

import (
	"context"
	"fmt"
	"slices"

	"lyngk.example/lyngk/engine/games"
)

// Playouts is the default search of one position: enough for the robot's
// estimate to mean something (its own games think thousands), small enough
// that a game of a hundred moves costs a few seconds of one core.
const Playouts = 200

// Point is the position after move K of the record (0: the start).
type Point struct {
	K int
	// Chance is player 1's chance to win there, 0..1: the robot's
	// estimate for the player to move, seen from player 1; at the end,
	// 1, 0 or 0.5 as the game ended.
	Chance float64
	// Best is the robot's move for the player to move there, "" at the
	// end (and for a pass).
	Best string
}

// Drop is a move after which its player's chance fell: from Before to
// After (the mover's chance, 0..1), where the robot would have played
// Best.
type Drop struct {
	K             int // the move's number in the record
	Player        int // who made it, 1 or 2
	Move          string
	Before, After float64
	Best          string
}

// Review estimates the position after every move of moves (a record
// with its automatic passes, as the game keeps it; a terminal entry left
// out) played from start, with robot searching playouts per position.
func Review(ctx context.Context, robot games.Robot, start games.Position, moves []string, playouts int) ([]Point, error) {
	return Paced(ctx, robot, start, moves, playouts, nil)
}

// Paced is Review with pace (nil: none) called before the search of each
// position: a caller that must give way to other work waits in it (the
// server's review worker, while players' mail is handled), and its error
// stops the review. The review is the same whatever the waits.
func Paced(ctx context.Context, robot games.Robot, start games.Position, moves []string, playouts int, pace func(context.Context) error) ([]Point, error) {
	if playouts < 1 {
		return nil, fmt.Errorf("review: %d playouts", playouts)
	}
	pos := start.Clone()
	var out []Point
	for k := 0; ; k++ {
		if pace != nil {
			if err := pace(ctx); err != nil {
				return nil, err
			}
		}
		p, err := estimate(ctx, robot, pos, k, playouts)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
		if k == len(moves) {
			return out, nil
		}
		if ms := pos.Moves(); moves[k] == games.Pass && len(ms) > k && ms[k] == games.Pass {
			continue // played with the move before it: a point of its own, the same position
		}
		m, _, err := pos.Parse(moves[k])
		if err == nil {
			err = pos.Play(m)
		}
		if err != nil {
			return nil, fmt.Errorf("review: move %d (%s): %w", k+1, moves[k], err)
		}
	}
}

// estimate is the point after move k, pos. A forced move (the only legal
// one) is played first, as often as they come: the robot's search does
// not weigh a position with one move, and its chance is the one after it.
func estimate(ctx context.Context, robot games.Robot, pos games.Position, k, playouts int) (Point, error) {
	p := Point{K: k}
	q := pos
	for q.Outcome() == games.Playing {
		legal := q.Legal()
		if len(legal) != 1 {
			break
		}
		if q == pos {
			q, p.Best = pos.Clone(), legal[0]
		}
		m, _, err := q.Parse(legal[0])
		if err == nil {
			err = q.Play(m)
		}
		if err != nil {
			return p, fmt.Errorf("review: the forced move %s: %w", legal[0], err)
		}
	}
	switch q.Outcome() {
	case games.Won:
		p.Chance = float64(2 - q.Winner()) // 1 when player 1 won, 0 when player 2
		return p, nil
	case games.Tie:
		p.Chance = 0.5
		return p, nil
	}
	th, err := robot.Think(ctx, q.Clone(), games.Think{Playouts: playouts, Workers: 1, Seed: uint64(k) + 1})
	if err != nil {
		return p, err
	}
	p.Chance = th.Value
	if q.Turn() == 2 {
		p.Chance = 1 - th.Value
	}
	if p.Best == "" {
		p.Best = th.Move.String()
	}
	return p, nil
}

// Worst returns the n moves of player after which his chance fell most,
// the biggest fall first (fewer when he lost no chance on more), leaving
// out the moves the robot would have played itself.
func Worst(points []Point, moves []string, player int, n int) []Drop {
	var drops []Drop
	for k := 1; k < len(points) && k <= len(moves); k++ {
		// Moves alternate, passes included.
		if mover := 2 - k%2; mover != player || moves[k-1] == games.Pass {
			continue
		}
		before, after := points[k-1].Chance, points[k].Chance
		if player == 2 {
			before, after = 1-before, 1-after
		}
		// A fall after the move the robot would have played too is the
		// estimate's noise, not the player's mistake.
		if after < before && points[k-1].Best != moves[k-1] {
			drops = append(drops, Drop{K: k, Player: player, Move: moves[k-1], Before: before, After: after, Best: points[k-1].Best})
		}
	}
	slices.SortStableFunc(drops, func(a, b Drop) int {
		switch da, db := a.Before-a.After, b.Before-b.After; {
		case da > db:
			return -1
		case da < db:
			return 1
		}
		return 0
	})
	return drops[:min(n, len(drops))]
}
