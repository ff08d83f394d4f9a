package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"lyngk.example/lyngk/engine/bounded"
	"lyngk.example/lyngk/engine/games"
)

// One picture per position. The PNG of a position is drawn once and kept
// in the engine's memory (a bounded cache, pictureBudget bytes), by game,
// board, the moves that led to the position, the players' names and how
// the game ended (the picture's legend): every mail and every web request
// that shows that position shares it. The moves name the position better
// than the game's version would: a comment or a draw offer leaves the
// picture as it was, a take-back that removes the move gives another key.
//
// And none is drawn inside the store's write transaction when it can be
// helped: before applying a mail (or a robot move), the caller asks
// Forecast which pictures Handle will show, draws them with Draw, on as
// many cores as it likes, and Handle then finds them in memory. The
// forecast is Handle itself, run against a read transaction whose writes
// are dropped, password checks answered from memory only; a picture it
// misses (the game changed in between) is drawn inside, as before, and
// counted (PicturesDrawn). The outbox is unchanged: a mail is committed
// whole, its picture in it, so a crash loses or repeats nothing.

// pictureBudget bounds the pictures kept: about 1,400 of 23 KB.
const pictureBudget = 32 << 20

// A Drawing is a picture a mail will show, forecast before the write
// transaction; Draw makes it.
type Drawing struct {
	key   string
	board int
	pic   games.Picture
	pos   games.Position
	names [2]string
	marks *[2]string
}

// Where a picture was drawn, for PicturesDrawn.
const (
	drawnBefore = iota
	drawnTransaction
	drawnWeb
)

// pictures is the engine's memory of pictures.
type pictures struct {
	cache *bounded.Cache[[]byte]
	drawn [3]atomic.Int64
}

func newPictures() *pictures {
	return &pictures{cache: bounded.New(pictureBudget, func(b []byte) int { return len(b) })}
}

// drawing describes the picture of pos of board, a game of gm.
func drawing(gm games.Game, board int, pos games.Position, names [2]string, marks *[2]string) Drawing {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%s\x00%q\x00", gm.Name(), board, strings.Join(pos.Moves(), " "), names)
	if marks != nil {
		fmt.Fprintf(h, "%q", *marks)
	}
	return Drawing{key: string(h.Sum(nil)), board: board, pic: gm.Picture, pos: pos.Clone(), names: names, marks: marks}
}

// png returns the picture of d, drawn unless it is held (counted by
// where).
func (e *Engine) png(d Drawing, where int) ([]byte, error) {
	if png, ok := e.pics.cache.Lookup(d.key); ok {
		return png, nil
	}
	png, err := d.pic.PNG(d.pos, d.names, d.marks)
	if err != nil {
		return nil, fmt.Errorf("engine: board %d: %w", d.board, err)
	}
	e.pics.drawn[where].Add(1)
	e.pics.cache.Put(d.key, png)
	return png, nil
}

// Draw makes the picture of d and keeps it for Handle (or RobotMove). It
// is safe to call from several goroutines at once.
func (e *Engine) Draw(d Drawing) error {
	_, err := e.png(d, drawnBefore)
	return err
}

// PicturesDrawn counts the pictures drawn before the write transaction
// (Draw), inside it (a forecast missed, or none was made) and for the web
// (PNG).
func (e *Engine) PicturesDrawn() (before, transaction, web int64) {
	return e.pics.drawn[drawnBefore].Load(), e.pics.drawn[drawnTransaction].Load(), e.pics.drawn[drawnWeb].Load()
}

// PNG is the picture of pos, position of board (a game of gm), for the
// web, the same the mails show, from memory when it was drawn before;
// etag names it (a strong validator: the same etag, the same bytes).
func (e *Engine) PNG(gm games.Game, board int, pos games.Position, names [2]string, marks *[2]string) (png []byte, etag string, err error) {
	if gm.Picture == nil {
		return nil, "", fmt.Errorf("engine: board %d: no picture", board)
	}
	d := drawing(gm, board, pos, names, marks)
	png, err = e.png(d, drawnWeb)
	return png, `"` + hex.EncodeToString([]byte(d.key[:16])) + `"`, err
}

// maxForecastBody is the largest mail body Forecast looks at: a move, a
// reply quoting a board mail or a few commands are a few KB; a bigger mail
// would cost its reading twice (memory included: TestServeBigMailsBounded)
// for a picture it rarely shows, which Handle then draws itself.
const maxForecastBody = 64 << 10

// Forecast returns the pictures Handle would draw for in, applied to the
// store as tx shows it: Handle's own run on a copy of the writes that is
// dropped, with no password check but those already answered in memory
// (Verify), no bcrypt, nothing written and no mail sent. A body over 64 KB
// is not looked at (none forecast).
func (e *Engine) Forecast(tx Tx, in Inbound, now time.Time) []Drawing {
	in.From = strings.TrimSpace(in.From)
	if e.unanswerable(in) || in.TooBig || len(in.Body) > maxForecastBody {
		return nil
	}
	r := &request{e: e, tx: newPending(tx), in: in, now: now, budget: budget{bounded: true}, forecast: true}
	if guard(r.handle) != nil {
		return nil
	}
	return r.drawings
}

// ForecastRobot is Forecast for RobotMove.
func (e *Engine) ForecastRobot(tx Tx, t RobotTurn, m games.Move, now time.Time) []Drawing {
	var out []Drawing
	_ = guard(func() error {
		r := &request{e: e, tx: newPending(tx), now: now, forecast: true}
		if _, err := e.robotMove(r, t, m); err != nil {
			return err
		}
		out = r.drawings
		return nil
	})
	return out
}
