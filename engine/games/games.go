// Package games is the contract between the server (package engine and its
// web part) and each game it offers. A game brings its rules (Rules and
// Position: the positions, the notation, the text board), and may bring a
// picture (Picture), clicks for the play page (Input) and a robot player
// (Robot); Game puts them together under the game's word. The engine knows
// no game but through these interfaces: only cmd/lyngk builds the list of
// games the server offers and hands it to the engine (engine.Config.Games).
//
// A rules package imports nothing of the server but this package; with
// the default adapter (adapter.go: Entry, Playable) it writes only its
// rules, its picture only its drawing (Pictures), its robot only its
// policy (package mcts's Robot). Its picture and robot are siblings that
// import it. This package imports the standard library only. A game's texts
// (its help page, notation, rules, challenge options) are templates named
// GAME.NAME in templates/GAME.tmpl; engine/README.md's "How it is built" lists them.
// Package gamestest is a whole game for tests.
package games

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Outcome is where a game stands by its rules.
type Outcome uint8

// The outcomes.
const (
	Playing Outcome = iota
	Won
	Tie
)

// String returns "playing", "won" or "tie": the words of the records, the
// JSON and `lyngk analyze`.
func (o Outcome) String() string {
	switch o {
	case Won:
		return "won"
	case Tie:
		return "tie"
	}
	return "playing"
}

// Move is a move of some game, parsed against a position (Position.Parse).
// String is its normalised notation, as the record stores it.
type Move interface {
	String() string
}

// Strings is the notation of each of moves, in order (nil for none): a
// game's Position.Moves and Legal from its own move type.
func Strings[M Move](moves []M) []string {
	var out []string
	for _, m := range moves {
		out = append(out, m.String())
	}
	return out
}

// Pass is the record's entry for an automatic pass, in every game: a
// player who cannot move does not, and the record says so.
const Pass = "--"

// Errors a Position returns, wrapped in a *MoveError.
var (
	ErrNotation = errors.New("games: bad move notation")
	ErrIllegal  = errors.New("games: illegal move")
)

// MoveError is a move refused by the rules or by its notation. Reason is
// what the player reads, capitalised, in the game's own words; Move is the
// move as written (bad notation) or normalised (illegal).
type MoveError struct {
	Err    error // ErrNotation or ErrIllegal
	Move   string
	Reason string
	// Cause is the rules' own error, whole, when there is one (SPEC §5's
	// `lyngk analyze` writes LYNGK's notation errors so).
	Cause error
}

func (e *MoveError) Error() string { return fmt.Sprintf("%v %q: %s", e.Err, e.Move, e.Reason) }
func (e *MoveError) Unwrap() error { return e.Err }

// Rules is a game's entry: its word, its variants and new positions.
type Rules interface {
	// Name is the game's word, lower case: the first word of its
	// commands ("lyngk move 101 ..."), and its name in the records.
	Name() string
	// Title is the game's name in subjects and headings ("Lyngk").
	Title() string
	// Variant reads an option of the challenge command ("-stack6", any
	// prefix the game allows) and returns the variant it selects; "" is
	// the default variant. ok is false for an option the game does not
	// know. "-" followed by a variant's name must select that variant (a
	// parsed command is written back so).
	Variant(option string) (variant string, ok bool)
	// New returns the start of game board (the board number may seed the
	// start, as LYNGK's) in variant, one Variant returned.
	New(board int, variant string) (Position, error)
	// MoveWords is the number of leading words (at least 1 when words is
	// not empty) that make up the move a player wrote, when a move is
	// written in several words ("R, e4-e5 #7"): joined without spaces,
	// they are the move; the words after it open the player's comment.
	MoveWords(words []string) int
	// LooksLikeMove reports whether s reads as a move of the game,
	// legal or not: a plain reply without a board mail to answer is then
	// told how to move rather than that it is no command.
	LooksLikeMove(s string) bool
}

// Setup is an add-on a game's Rules may offer (found with a type
// assertion): positions other than the start, for `lyngk analyze`'s
// -seed, -position and -turn (SPEC §5). A game whose start depends on the
// board number offers -seed N as New(N, variant).
type Setup interface {
	Rules
	// ReadBoard reads a position from its text board, as Position.Board
	// writes it, in variant (which the text may also say itself); names
	// are the players it names.
	ReadBoard(block, variant string) (p Position, names [2]string, err error)
	// SetTurn gives the move to player (1 or 2) in p, a position of the
	// game, with an empty record from there.
	SetTurn(p Position, player int) error
	// VariantNames are the names of the game's variants, the default
	// first: analyze's flags (-stack6) choose the others.
	VariantNames() []string
}

// Position is a game's position with its record of moves. The engine holds
// a position only for the request at hand: it is replayed from the stored
// moves each time.
type Position interface {
	// Turn is 1 or 2, the player to move; 0 when the game is over.
	Turn() int
	Outcome() Outcome
	// Winner is 1 or 2 when won, else 0.
	Winner() int
	// Parse reads a move as a player writes it, optionally followed by
	// "#n", the move number the player believes it is (num 0 when
	// absent). Errors are *MoveError with ErrNotation.
	Parse(s string) (m Move, num int, err error)
	// Play applies m, then any automatic passes that follow it. Errors
	// are *MoveError with ErrIllegal; the position is unchanged then.
	Play(m Move) error
	// Moves is the record: normalised moves, Pass for the automatic
	// passes.
	Moves() []string
	// Legal is every legal move as written in the mails, in the game's
	// order; none when the game is over.
	Legal() []string
	// Board is the text board of the mails, naming the players (challenge
	// order).
	Board(names [2]string) string
	// Fields are the position's own fields of the JSON (`lyngk analyze
	// -json`, /game/N.json), after status and winner, in order.
	Fields() []Field
	// Clone returns an independent copy.
	Clone() Position
}

// Side is what one player has beside the board: labels (LYNGK: the colours
// claimed) and a count (LYNGK: the stacks removed). LabelsTitle names the
// labels as a heading ("Colours claimed") and None says there are none
// ("no colour claimed"); Unit is what Count counts, singular and plural
// ({"stack", "stacks"}).
type Side struct {
	Labels      []Label
	Count       int
	LabelsTitle string
	None        string
	Unit        [2]string
}

// Label is a named thing a player holds, with the colours it is drawn in:
// Hex the background, Ink the text ("#rrggbb").
type Label struct{ Name, Hex, Ink string }

// Field is one named value of a position's JSON.
type Field struct {
	Name  string
	Value any
}

// Picture draws a game's positions, for the mails' HTML part (PNG) and the
// web pages (SVG, PNG).
type Picture interface {
	// Size is the picture's size in pixels.
	Size() (width, height int)
	// PNG and SVG draw p with the players' names. marks, when set, say
	// how an ended game ended for each player ("won", "resigned", ...),
	// which the position alone cannot tell.
	PNG(p Position, names [2]string, marks *[2]string) ([]byte, error)
	SVG(p Position, names [2]string, marks *[2]string) ([]byte, error)
	// Sides is what each player has beside the board, as the picture's
	// legend shows it: what the mails' HTML part and the game page list
	// under the players.
	Sides(p Position) [2]Side
}

// Input is what the play page needs to let a player move by clicking the
// picture.
type Input interface {
	// Spots are the points of p a player may click, in the picture's
	// pixels.
	Spots(p Position) []Spot
	// Clicks says how legal move m of p is clicked.
	Clicks(p Position, m string) (Click, error)
}

// Spot is a point of the picture to click: a circle of radius R at X, Y.
type Spot struct {
	Point   string
	X, Y, R float64
}

// Click is how a move is made by clicks: From, then To, then Choice when
// the move has one (LYNGK: the colour claimed); or, for a move of more
// parts, Steps instead. The JSON is the play page script's.
//
// Steps is the move as a sequence of clicks, one a step; a step is the
// points any of which makes it (YINSH: a row removed is either of its two
// ends). The page narrows the legal moves click by click to those whose
// steps so far hold the points clicked, marks the points of the next step,
// and takes a move when it is the only one whose steps are all clicked;
// moves that the same clicks make (two rows with a common end) are then
// offered as buttons. A game's clicks are all From/To or all Steps.
type Click struct {
	Move   string     `json:"m"`
	From   string     `json:"f,omitempty"`
	To     string     `json:"t,omitempty"`
	Choice string     `json:"c,omitempty"`
	Steps  [][]string `json:"s,omitempty"`
}

// Robot is a game's robot player.
type Robot interface {
	// Think chooses a move for the player to move in p within the budget
	// of o. It returns ctx.Err() when ctx ends first.
	Think(ctx context.Context, p Position, o Think) (Thought, error)
	// AcceptDraw says whether the robot, player `player` of p, accepts a
	// draw offered now.
	AcceptDraw(p Position, player int) bool
}

// Think is the budget of a robot's search: Playouts in all when above 0
// (deterministic for a Seed), else as many as fit in Time.
type Think struct {
	Playouts int
	Time     time.Duration
	Workers  int
	Seed     uint64
}

// Thought is the robot's choice.
type Thought struct {
	Move     Move
	Playouts int
	Value    float64 // the mean result of Move for the robot, 0..1
}

// Game is one game the server offers: its rules, and what it brings
// beyond them (nil when it has none: no picture, then text mails only; no
// input, then the play page's forms only; no robot, then nobody can
// challenge the robot player to it, and no game of it is reviewed).
type Game struct {
	Rules
	Picture Picture
	Input   Input
	Robot   Robot
	// Judge, when set, is the robot the review of a finished game asks
	// for each side's chance and the better move (package review): a
	// search whose Value reads as a chance, where the robot that plays
	// is tuned to win rather than to estimate. nil: Robot.
	Judge Robot
}

// Reviewer is the robot that reviews the game's finished games: Judge,
// else Robot (nil when the game has neither).
func (g Game) Reviewer() Robot {
	if g.Judge != nil {
		return g.Judge
	}
	return g.Robot
}

// Variants are the names of a game's variants, the default first: the
// variant numbered v, of the game's own type V, is named Variants[v], as
// the challenge option, the records and the JSON write it. They are what a
// game's Variant and New read (Rules.Variant, Rules.New).
type Variants[V ~uint8] []string

// Choose reads a challenge option as Rules.Variant does: "" is the
// default variant; "-" and the name of another variant, or a prefix of it
// down to two characters ("-s" for "-stack6"), in any case, is that one.
func (vs Variants[V]) Choose(option string) (string, bool) {
	if option == "" && len(vs) > 0 {
		return vs[0], true
	}
	for _, name := range vs[min(len(vs), 1):] {
		if len(option) >= 2 && strings.HasPrefix("-"+name, strings.ToLower(option)) {
			return name, true
		}
	}
	return "", false
}

// Named returns the variant named name, one Choose returned.
func (vs Variants[V]) Named(name string) (V, error) {
	for i, n := range vs {
		if n == name {
			return V(i), nil
		}
	}
	return 0, fmt.Errorf("games: no variant %q", name)
}
