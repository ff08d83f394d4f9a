package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"lyngk.example/lyngk/engine/games"
)

// Analysis is a position as `lyngk analyze -json` prints it (SPEC §5); the
// field order is part of that contract, and GameJSON repeats these fields
// with the same meaning. Fields are the game's own (games.Position.Fields;
// LYNGK: claims, removed), between winner and legal.
type Analysis struct {
	Board  string   `json:"board"` // the board block, as in the mails
	Moves  []string `json:"moves"` // normalised, "--" for the passes
	Turn   int      `json:"turn"`  // 1 or 2, 0 when the game is over
	Status string   `json:"status"`
	Winner int      `json:"winner"`
	Fields []games.Field
	Legal  []string `json:"legal"` // sorted
	// Robot is the robot's move, only with -robot.
	Robot string `json:"robot,omitempty"`
}

// Analyze describes pos, whose players are called names (in its board
// block). Status and Winner are those of the rules ("playing", "won",
// "tie").
func Analyze(pos games.Position, names [2]string) Analysis {
	a := Analysis{
		Board:  pos.Board(names),
		Moves:  append([]string{}, pos.Moves()...),
		Turn:   pos.Turn(),
		Status: pos.Outcome().String(),
		Winner: pos.Winner(),
		Fields: pos.Fields(),
		Legal:  append([]string{}, pos.Legal()...),
	}
	slices.Sort(a.Legal)
	return a
}

// MarshalJSON writes the fields in the order of the contract.
func (a Analysis) MarshalJSON() ([]byte, error) {
	fs := []games.Field{{Name: "board", Value: a.Board}, {Name: "moves", Value: a.Moves}, {Name: "turn", Value: a.Turn},
		{Name: "status", Value: a.Status}, {Name: "winner", Value: a.Winner}}
	fs = append(append(fs, a.Fields...), games.Field{Name: "legal", Value: a.Legal})
	if a.Robot != "" {
		fs = append(fs, games.Field{Name: "robot", Value: a.Robot})
	}
	return object(fs)
}

// UnmarshalJSON reads what MarshalJSON wrote; the game's fields come back
// as json.RawMessage, in order.
func (a *Analysis) UnmarshalJSON(b []byte) error {
	var err error
	a.Fields, err = readObject(b, map[string]any{"board": &a.Board, "moves": &a.Moves, "turn": &a.Turn,
		"status": &a.Status, "winner": &a.Winner, "legal": &a.Legal, "robot": &a.Robot})
	return err
}

// GameJSON is a game as /game/N.json serves it: the fields of `lyngk
// analyze -json` for its current position, with the same meaning, and
// number, game (the game's word, games.Rules.Name: "lyngk", "yinsh"),
// variant (the game's: LYNGK "standard" or "stack6", YINSH "normal" or
// "blitz"), players and positions.
//
// Status and winner are the game's, not only the rules': status is
// playing, won, tie (by the rules or an agreed draw), cancelled, resigned
// or forfeit, winner the number (1 or 2, challenge order, as in players)
// of the player who won, 0 for none, so resigned and forfeit games have
// one. Whenever the game is running or ended by the rules both equal what
// `lyngk analyze -json` prints for its moves. A game that ended otherwise
// (resigned, forfeit, agreed draw, cancelled) has turn 0 and no legal
// moves, like any game over.
//
// Moves are those made on the board, passes included (analyze's moves): a
// "resign" or "Forfeit" entry of the record shows only in status.
// Positions[K] is the board block after the first K of them, Positions[0]
// the start, Positions[len(Moves)] equal to Board; it is what `lyngk
// analyze -seed N -players A,B -json` prints as board for those K moves.
type GameJSON struct {
	Number    int       `json:"number"`
	Game      string    `json:"game"`
	Variant   string    `json:"variant"`
	Players   [2]string `json:"players"`
	Board     string    `json:"board"`
	Moves     []string  `json:"moves"`
	Turn      int       `json:"turn"`
	Status    string    `json:"status"`
	Winner    int       `json:"winner"`
	Fields    []games.Field
	Legal     []string `json:"legal"`
	Positions []string `json:"positions"`
}

// MarshalJSON writes the fields in the order of the contract.
func (j GameJSON) MarshalJSON() ([]byte, error) {
	fs := []games.Field{{Name: "number", Value: j.Number}, {Name: "game", Value: j.Game}, {Name: "variant", Value: j.Variant},
		{Name: "players", Value: j.Players}, {Name: "board", Value: j.Board}, {Name: "moves", Value: j.Moves},
		{Name: "turn", Value: j.Turn}, {Name: "status", Value: j.Status}, {Name: "winner", Value: j.Winner}}
	fs = append(append(fs, j.Fields...), games.Field{Name: "legal", Value: j.Legal},
		games.Field{Name: "positions", Value: j.Positions})
	return object(fs)
}

// UnmarshalJSON reads what MarshalJSON wrote; the game's fields come back
// as json.RawMessage, in order.
func (j *GameJSON) UnmarshalJSON(b []byte) error {
	var err error
	j.Fields, err = readObject(b, map[string]any{"number": &j.Number, "game": &j.Game, "variant": &j.Variant, "players": &j.Players,
		"board": &j.Board, "moves": &j.Moves, "turn": &j.Turn, "status": &j.Status, "winner": &j.Winner,
		"legal": &j.Legal, "positions": &j.Positions})
	return err
}

// Field returns the value of the game's field name, nil when it has none.
func (j *GameJSON) Field(name string) any { return field(j.Fields, name) }

// Field returns the value of the game's field name, nil when it has none.
func (a *Analysis) Field(name string) any { return field(a.Fields, name) }

func field(fs []games.Field, name string) any {
	for _, f := range fs {
		if f.Name == name {
			return f.Value
		}
	}
	return nil
}

// object writes fs as one JSON object, in order, without escaping HTML
// (the caller's encoder escapes it if it wants to).
func object(fs []games.Field) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	b.WriteByte('{')
	for i, f := range fs {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := enc.Encode(f.Name); err != nil {
			return nil, err
		}
		b.Truncate(b.Len() - 1) // Encode's newline
		b.WriteByte(':')
		if err := enc.Encode(f.Value); err != nil {
			return nil, fmt.Errorf("engine: json field %s: %w", f.Name, err)
		}
		b.Truncate(b.Len() - 1)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// readObject decodes the object b: the keys of known into their targets,
// every other key into the fields returned, in order, as json.RawMessage.
func readObject(b []byte, known map[string]any) ([]games.Field, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("engine: json: not an object")
	}
	var rest []games.Field
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := t.(string)
		if target, ok := known[key]; ok {
			if err := dec.Decode(target); err != nil {
				return nil, err
			}
			continue
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		rest = append(rest, games.Field{Name: key, Value: raw})
	}
	return rest, nil
}

// JSON returns the game as /game/N.json serves it.
func (d *GameDetail) JSON() (*GameJSON, error) {
	pos, err := d.Position(-1)
	if err != nil {
		return nil, err
	}
	a := Analyze(pos, d.Players)
	j := &GameJSON{Number: d.Board, Game: d.Game, Variant: d.Variant, Players: d.Players, Board: a.Board, Moves: a.Moves,
		Turn: a.Turn, Status: string(d.Status), Winner: d.Winner, Fields: a.Fields, Legal: a.Legal}
	if d.Over() {
		j.Turn, j.Legal = 0, []string{}
	}
	for k := range len(a.Moves) + 1 {
		p, err := d.Position(k)
		if err != nil {
			return nil, err
		}
		j.Positions = append(j.Positions, p.Board(d.Players))
	}
	return j, nil
}
