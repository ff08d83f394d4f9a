package games

import (
	"errors"
	"fmt"
	"slices"
)

// The default adapter. A game's rules keep a position as a value of the
// game's own type G (a copy is an independent position) with moves of its
// own type M and variants of its own type V. When *G has the methods of
// Playable, the game writes no entry nor Position of its own: an Entry
// with its word, title, variants, start and notation is its Rules and
// makes its positions (Entry.Position), and Unwrap finds the game's own
// position in one again, for its picture and robot. Its picture writes
// only its drawing and clicks (Pictures makes them the contract's Picture
// and Input), and its robot only its search policy (package mcts's
// Robot). So a game brings its rules, its picture and its robot policy,
// and nothing twice.

// Playable is a game's own position as the default adapter takes it: the
// methods of *G.
type Playable[G any, M Move] interface {
	*G
	Turn() int
	Winner() int
	Status() Outcome
	// Apply plays m for the player to move; an error that is a Refusal
	// is a move the rules refuse, and leaves the position as it was.
	Apply(m M) error
	Moves() []M
	Legal(buf []M) []M
	Board(names [2]string) string
	// Fields are the position's own fields of the JSON (Position.Fields).
	Fields() []Field
}

// Refusal is an error of a game's Apply that refuses a move by the rules.
// Refusal is the reason the player reads, capitalised, in the game's own
// words.
type Refusal interface {
	error
	Refusal() string
}

// ErrNotOurs is a position of one game handed to another game's picture or
// robot.
var ErrNotOurs = errors.New("games: a position of another game")

// Entry is a game's entry in the contract (Rules), from what the game
// says of itself, and the maker of its positions.
type Entry[G any, M Move, P Playable[G, M], V ~uint8] struct {
	Word, Heading string // Name and Title
	Variants      Variants[V]
	// Start is the start of board number board in variant v.
	Start func(board int, v V) G
	// ParseMove reads a move as a player writes it, optionally followed
	// by "#n" (num 0 when absent); Explain says what is wrong with the
	// notation of one of its errors, capitalised, as the player reads it.
	ParseMove func(s string) (m M, num int, err error)
	Explain   func(err error) string
	// Words is MoveWords.
	Words func(words []string) int
}

// Name is Word.
func (e *Entry[G, M, P, V]) Name() string { return e.Word }

// Title is Heading.
func (e *Entry[G, M, P, V]) Title() string { return e.Heading }

// Variant is Variants.Choose.
func (e *Entry[G, M, P, V]) Variant(option string) (string, bool) { return e.Variants.Choose(option) }

// New returns the Start of board in variant, one Variant returned.
func (e *Entry[G, M, P, V]) New(board int, variant string) (Position, error) {
	v, err := e.Variants.Named(variant)
	if err != nil {
		return nil, err
	}
	return e.Position(e.Start(board, v)), nil
}

// VariantNames are the names of Variants, the default first.
func (e *Entry[G, M, P, V]) VariantNames() []string { return slices.Clone(e.Variants) }

// MoveWords is Words.
func (e *Entry[G, M, P, V]) MoveWords(words []string) int { return e.Words(words) }

// LooksLikeMove reports whether s parses as a move.
func (e *Entry[G, M, P, V]) LooksLikeMove(s string) bool {
	_, _, err := e.ParseMove(s)
	return err == nil
}

// Replay is the start of board in variant v after moves, written as
// players write them, each played by the rules: a fixed position for a
// picture's palette or a test.
func (e *Entry[G, M, P, V]) Replay(board int, v V, moves ...string) (G, error) {
	g := e.Start(board, v)
	for _, s := range moves {
		m, _, err := e.ParseMove(s)
		if err == nil {
			err = P(&g).Apply(m)
		}
		if err != nil {
			return g, fmt.Errorf("games: %s move %q: %w", e.Word, s, err)
		}
	}
	return g, nil
}

// Position returns g as the contract's Position.
func (e *Entry[G, M, P, V]) Position(g G) Position { return &adapted[G, M, P, V]{g: g, e: e} }

// Unwrap returns the game's own position that p holds, when p is a
// position of an Entry with positions G.
func Unwrap[G any](p Position) (*G, bool) {
	a, ok := p.(interface{ own() *G })
	if !ok {
		return nil, false
	}
	return a.own(), true
}

// adapted is the default Position.
type adapted[G any, M Move, P Playable[G, M], V ~uint8] struct {
	g G
	e *Entry[G, M, P, V]
}

// own is called through Unwrap's interface, which staticcheck does not
// follow for a generic type.
//
//lint:ignore U1000 used by Unwrap
func (a *adapted[G, M, P, V]) own() *G { return &a.g }

func (a *adapted[G, M, P, V]) Turn() int        { return P(&a.g).Turn() }
func (a *adapted[G, M, P, V]) Winner() int      { return P(&a.g).Winner() }
func (a *adapted[G, M, P, V]) Outcome() Outcome { return P(&a.g).Status() }
func (a *adapted[G, M, P, V]) Moves() []string  { return Strings(P(&a.g).Moves()) }
func (a *adapted[G, M, P, V]) Legal() []string  { return Strings(P(&a.g).Legal(nil)) }
func (a *adapted[G, M, P, V]) Fields() []Field  { return P(&a.g).Fields() }
func (a *adapted[G, M, P, V]) Clone() Position  { return &adapted[G, M, P, V]{g: a.g, e: a.e} }

func (a *adapted[G, M, P, V]) Board(names [2]string) string { return P(&a.g).Board(names) }

// Parse is the entry's ParseMove, its errors a *MoveError with
// ErrNotation and the entry's Explain.
func (a *adapted[G, M, P, V]) Parse(s string) (Move, int, error) {
	m, num, err := a.e.ParseMove(s)
	if err != nil {
		return nil, 0, &MoveError{Err: ErrNotation, Move: s, Reason: a.e.Explain(err), Cause: err}
	}
	return m, num, nil
}

// Play refuses a move of another game, and makes a Refusal of the rules a
// *MoveError with ErrIllegal; any other error of Apply is the position's
// own failure and passes as it is.
func (a *adapted[G, M, P, V]) Play(m Move) error {
	own, ok := m.(M)
	if !ok {
		return &MoveError{Err: ErrIllegal, Move: m.String(), Reason: fmt.Sprintf("Not a move of %s", a.e.Heading)}
	}
	err := P(&a.g).Apply(own)
	if r, ok := errors.AsType[Refusal](err); ok {
		return &MoveError{Err: ErrIllegal, Move: own.String(), Reason: r.Refusal(), Cause: err}
	}
	return err
}

// Pictures is the default Picture and Input of a game with positions G:
// its picture package's drawing functions and clicks, each taking the
// game's own position. O is the picture's option, Over the option that
// writes how an ended game ended. SpotsOf and ClicksOf may be nil for a
// game without clicks, which then offers no Input.
type Pictures[G any, O any] struct {
	Width, Height int
	DrawPNG       func(g *G, names [2]string, opts ...O) ([]byte, error)
	DrawSVG       func(g *G, names [2]string, opts ...O) ([]byte, error)
	Over          func(marks [2]string) O
	SidesOf       func(g *G) [2]Side
	SpotsOf       func(g *G) []Spot
	ClicksOf      func(g *G, move string) (Click, error)
}

var (
	_ Picture = Pictures[struct{}, int]{}
	_ Input   = Pictures[struct{}, int]{}
)

// own is Unwrap for the picture's methods.
func own[G any](p Position) (*G, error) {
	g, ok := Unwrap[G](p)
	if !ok {
		return nil, fmt.Errorf("%w: %T", ErrNotOurs, p)
	}
	return g, nil
}

// Size is Width×Height.
func (ps Pictures[G, O]) Size() (int, int) { return ps.Width, ps.Height }

// PNG draws p with DrawPNG, marked Over when marks are set.
func (ps Pictures[G, O]) PNG(p Position, names [2]string, marks *[2]string) ([]byte, error) {
	return ps.draw(ps.DrawPNG, p, names, marks)
}

// SVG draws p with DrawSVG, marked Over when marks are set.
func (ps Pictures[G, O]) SVG(p Position, names [2]string, marks *[2]string) ([]byte, error) {
	return ps.draw(ps.DrawSVG, p, names, marks)
}

func (ps Pictures[G, O]) draw(f func(*G, [2]string, ...O) ([]byte, error), p Position, names [2]string, marks *[2]string) ([]byte, error) {
	g, err := own[G](p)
	if err != nil {
		return nil, err
	}
	var opts []O
	if marks != nil {
		opts = append(opts, ps.Over(*marks))
	}
	return f(g, names, opts...)
}

// Sides are what each player of p has beside the board (none for a
// position of another game).
func (ps Pictures[G, O]) Sides(p Position) [2]Side {
	g, err := own[G](p)
	if err != nil {
		return [2]Side{}
	}
	return ps.SidesOf(g)
}

// Spots are the points of p to click (none for a position of another
// game).
func (ps Pictures[G, O]) Spots(p Position) []Spot {
	g, err := own[G](p)
	if err != nil {
		return nil
	}
	return ps.SpotsOf(g)
}

// Clicks says how legal move m of p is clicked.
func (ps Pictures[G, O]) Clicks(p Position, m string) (Click, error) {
	g, err := own[G](p)
	if err != nil {
		return Click{}, err
	}
	return ps.ClicksOf(g, m)
}
