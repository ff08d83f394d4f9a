package record

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"

	"lyngk.example/lyngk/engine/games"
)

// Boardspace's SGF dialect, as its archive files are written: a root node
// of properties (GM, SU the game and variant, DT the date as Java prints
// it, GN the game's name, RE the result in words, P0 and P1 the players as
// `id "NAME"`), then one node per step, `; P0[7 place wr  G 11]`: the
// player (P0 first, P1 second), a running number and the step; a "Done"
// node after each step, "Start White" (LYNGK "Start P0") first, "Resign"
// for a resignation (by the loser, in turn or not: read back, it is the
// record's last entry), a "Done" alone for a pass. Readers skip properties they do not know; this
// server adds two of its own to the root: BN, the board number (LYNGK's
// start depends on it), and EN, how the game ended when not by the rules
// (the Termination of a text record).

// dtFormat is Java's Date.toString, which boardspace writes in DT.
const dtFormat = "Mon Jan 02 15:04:05 MST 2006"

// WriteSGF writes r as boardspace does, one game tree; bs is r's game.
func WriteSGF(r Record, bs games.Boardspace) ([]byte, error) {
	var b bytes.Buffer
	if err := writeTree(&b, r, bs); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteCollection writes rs as one SGF collection, one tree a game; the
// games of rs not in gs (or without boardspace's records) are left out.
func WriteCollection(rs []Record, gs []games.Game) ([]byte, error) {
	var b bytes.Buffer
	for _, r := range rs {
		g, ok := Find(gs, r.Game)
		if !ok {
			continue
		}
		bs, ok := g.Rules.(games.Boardspace)
		if !ok {
			continue
		}
		if err := writeTree(&b, r, bs); err != nil {
			return nil, err
		}
	}
	return b.Bytes(), nil
}

func writeTree(b *bytes.Buffer, r Record, bs games.Boardspace) error {
	gm, su, start := bs.BoardspaceHeader(r.Variant)
	prop := func(name, value string) { fmt.Fprintf(b, "%s[%s]\n", name, escape(value)) }
	b.WriteString("(;\n")
	prop("GM", gm)
	prop("SU", su)
	if !r.Date.IsZero() {
		prop("DT", r.Date.UTC().Format(dtFormat))
	}
	prop("GN", fmt.Sprintf("%s-%d", r.Game, r.Board))
	prop("BN", strconv.Itoa(r.Board))
	if r.Termination != "" {
		prop("EN", r.Termination)
	}
	switch w := r.Winner(); {
	case w > 0:
		prop("RE", "Game won by "+r.Players[w-1])
	case r.Result == Tie:
		prop("RE", "The game is a draw")
	}
	prop("P0", `id "`+r.Players[0]+`"`)
	prop("P1", `id "`+r.Players[1]+`"`)
	n := 0
	node := func(player int, step string) {
		fmt.Fprintf(b, "; P%d[%s]\n", player-1, escape(strconv.Itoa(n)+" "+step))
		n++
	}
	node(1, start)
	player := 1
	for i, m := range r.Moves {
		if m == Resign || m == Forfeit {
			break
		}
		steps, err := bs.BoardspaceSteps(m, player)
		if err != nil {
			return fmt.Errorf("record: move %d (%s): %w", i+1, m, err)
		}
		if len(steps) == 0 {
			node(player, "Done ") // a pass: boardspace's player clicks Done alone
		}
		for _, s := range steps {
			node(player, s)
			node(player, "Done ")
		}
		player = 3 - player
	}
	if r.Termination == "resign" {
		// By the loser, who may have resigned out of turn (the
		// record then has no entry of it).
		if w := r.Winner(); w > 0 {
			player = 3 - w
		}
		node(player, "Resign ")
		node(player, "Done ")
	}
	b.WriteString(")\n")
	return nil
}

// escape writes an SGF value: "]" and "\" escaped (SGF FF[4], Text).
func escape(s string) string { return strings.NewReplacer(`\`, `\\`, `]`, `\]`).Replace(s) }

// ReadSGF reads the game trees of an SGF file of gs's games (a
// collection holds several), each into a Record whose moves are the
// players' turns in the game's notation, read from the steps by the game's
// games.Boardspace: one turn is the steps one player makes in a row.
func ReadSGF(data []byte, gs []games.Game) ([]Record, error) {
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrFormat, MaxBytes)
	}
	trees, err := parseSGF(data)
	if err != nil {
		return nil, err
	}
	var out []Record
	for t, nodes := range trees {
		r, err := readTree(nodes, gs)
		if err != nil {
			if len(trees) > 1 {
				return nil, fmt.Errorf("game %d of the file: %w", t+1, err)
			}
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// property is one property of a node, with its values.
type property struct {
	name   string
	values []string
}

type node []property

func (n node) get(name string) (string, bool) {
	for _, p := range n {
		if p.name == name && len(p.values) > 0 {
			return p.values[0], true
		}
	}
	return "", false
}

// parseSGF reads the trees of a collection: each its main line of nodes
// (variations, which boardspace does not write, are read as the main line
// going on).
func parseSGF(data []byte) ([][]node, error) {
	var trees [][]node
	depth := 0
	i := 0
	bad := func(why string) ([][]node, error) {
		return nil, fmt.Errorf("%w: SGF at byte %d: %s", ErrFormat, i, why)
	}
	nodes := 0
	for i < len(data) {
		c := data[i]
		switch {
		case c == '(':
			if depth == 0 {
				trees = append(trees, nil)
			}
			depth++
			if depth > 100 {
				return bad("variations nested too deep")
			}
			i++
		case c == ')':
			if depth == 0 {
				return bad("a ) without its (")
			}
			depth--
			i++
		case c == ';':
			if depth == 0 {
				return bad("a node outside a game tree")
			}
			nodes++
			if nodes > 20*MaxMoves {
				return bad("too many nodes")
			}
			trees[len(trees)-1] = append(trees[len(trees)-1], nil)
			i++
		case c >= 'A' && c <= 'Z':
			t := trees
			if depth == 0 || len(t[len(t)-1]) == 0 {
				return bad("a property outside a node")
			}
			j := i
			// Boardspace's P0 and P1 hold digits, which SGF's
			// identifiers do not.
			for j < len(data) && (data[j] >= 'A' && data[j] <= 'Z' || data[j] >= '0' && data[j] <= '9') && j-i < 16 {
				j++
			}
			p := property{name: string(data[i:j])}
			i = j
			for {
				for i < len(data) && isSpace(data[i]) {
					i++
				}
				if i >= len(data) || data[i] != '[' {
					break
				}
				i++
				var v []byte
				for ; i < len(data) && data[i] != ']'; i++ {
					if data[i] == '\\' && i+1 < len(data) {
						i++
					}
					v = append(v, data[i])
				}
				if i >= len(data) {
					return bad("a value without its ]")
				}
				i++
				p.values = append(p.values, string(v))
			}
			if len(p.values) == 0 {
				return bad("property " + p.name + " without a value")
			}
			last := &t[len(t)-1][len(t[len(t)-1])-1]
			*last = append(*last, p)
		case isSpace(c):
			i++
		default:
			return bad(fmt.Sprintf("unexpected %q", c))
		}
	}
	if depth != 0 {
		return bad("a game tree without its )")
	}
	if len(trees) == 0 {
		return bad("no game tree")
	}
	return trees, nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\r' || c == '\t' }

// playerID reads `id "NAME"`: the name is between the first and the last
// quote (boardspace escapes none in it).
func playerID(v string) string {
	v = strings.TrimSpace(v)
	if rest, ok := strings.CutPrefix(v, "id"); ok {
		v = strings.TrimSpace(rest)
		if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
			v = v[1 : len(v)-1]
		}
	}
	return v
}

func readTree(nodes []node, gs []games.Game) (Record, error) {
	var r Record
	if len(nodes) == 0 {
		return r, fmt.Errorf("%w: an empty game tree", ErrFormat)
	}
	root := nodes[0]
	su, _ := root.get("SU")
	var bs games.Boardspace
	for _, g := range gs {
		if b, ok := g.Rules.(games.Boardspace); ok {
			if v, ok := b.BoardspaceVariant(su); ok {
				bs, r.Game, r.Variant = b, g.Name(), v
				break
			}
		}
	}
	if bs == nil {
		return r, fmt.Errorf("%w: SU[%s] is no game here", ErrFormat, su)
	}
	for i, name := range []string{"P0", "P1"} {
		v, _ := root.get(name)
		r.Players[i] = playerID(v)
	}
	if v, ok := root.get("BN"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return r, fmt.Errorf("%w: BN[%s] is no board number", ErrFormat, v)
		}
		r.Board = n
	}
	if v, ok := root.get("DT"); ok {
		if t, err := time.Parse(dtFormat, v); err == nil {
			r.Date = t
		}
	}
	r.Termination, _ = root.get("EN")
	r.Result = Unknown
	if re, ok := root.get("RE"); ok {
		r.Result = resultOf(re, r.Players)
	}
	// The steps, by player, grouped into turns.
	var steps []string
	player := 0
	flush := func() error {
		if len(steps) == 0 {
			return nil
		}
		if len(r.Moves) == MaxMoves {
			return fmt.Errorf("%w: more than %d moves", ErrFormat, MaxMoves)
		}
		m, err := bs.BoardspaceMove(steps, player)
		if err != nil {
			return fmt.Errorf("record: move %d: %w", len(r.Moves)+1, err)
		}
		r.Moves = append(r.Moves, m)
		r.Steps = append(r.Steps, strings.Join(steps, "; "))
		steps = nil
		return nil
	}
	for _, n := range nodes[1:] {
		for _, p := range n {
			if p.name != "P0" && p.name != "P1" {
				continue
			}
			who := int(p.name[1]-'0') + 1
			step := strings.TrimSpace(p.values[0])
			if f := strings.Fields(step); len(f) > 1 {
				if _, err := strconv.Atoi(f[0]); err == nil {
					step = strings.TrimSpace(step[len(f[0]):])
				}
			}
			op := strings.ToLower(strings.SplitN(step, " ", 2)[0])
			switch op {
			case "done":
				if player != 0 && who != player {
					// A Done alone: the other player passed.
					if err := flush(); err != nil {
						return r, err
					}
					if len(r.Moves) == MaxMoves {
						return r, fmt.Errorf("%w: more than %d moves", ErrFormat, MaxMoves)
					}
					r.Moves = append(r.Moves, games.Pass)
					r.Steps = append(r.Steps, step)
					player = who
				}
				continue
			case "", "start", "time", "pass", "edit":
				continue
			case "resign":
				if err := flush(); err != nil {
					return r, err
				}
				r.Moves = append(r.Moves, Resign)
				r.Steps = append(r.Steps, step)
				if r.Termination == "" {
					r.Termination = "resign"
				}
				return r, nil
			}
			if who != player {
				if err := flush(); err != nil {
					return r, err
				}
				player = who
			}
			steps = append(steps, step)
		}
	}
	if err := flush(); err != nil {
		return r, err
	}
	if r.Termination == "forfeit" {
		r.Moves = append(r.Moves, Forfeit)
		r.Steps = append(r.Steps, "")
	}
	return r, nil
}

// resultOf reads RE: a draw, or the winner named ("Game won by NAME", in
// whatever language the winner's client wrote it: the name is looked for).
func resultOf(re string, players [2]string) string {
	low := strings.ToLower(re)
	switch {
	case strings.Contains(low, "draw"):
		return Tie
	case players[0] != "" && strings.Contains(low, strings.ToLower(players[0])) &&
		!(players[1] != "" && strings.Contains(low, strings.ToLower(players[1])) && len(players[1]) > len(players[0])):
		return WhiteWon
	case players[1] != "" && strings.Contains(low, strings.ToLower(players[1])):
		return BlackWon
	}
	return Unknown
}
