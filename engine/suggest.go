package engine

import (
	"maps"
	"slices"
	"strings"
	"unicode/utf8"
)

// Suggestions. A line that is no command is answered with the commands it
// most likely meant, taken from the command table: a game command written
// without its game word ("ratings") is offered after every game's word
// ("lyngk ratings", "yinsh ratings"); a typo ("lyngk shwo", "chalenge",
// "lyngkk show") gets the commands closest to it by edit distance (a
// letter added, dropped, changed, or two letters swapped). The answer is
// bounded: at most maxSuggestions usage lines, all from the table, none
// echoing what the mail wrote; a word longer than maxSuggestWord gets none.

// maxSuggestions bounds the usage lines one answer suggests.
const maxSuggestions = 4

// maxSuggestWord is the longest word compared with the command words: a
// longer one is no typo of any, and comparing it would cost for nothing.
const maxSuggestWord = 24

// candidate is one thing a mistyped word may have meant: the word it is
// compared with, and the usage lines offered when it is the closest.
type candidate struct {
	word  string
	lines []string
}

// suggest returns the usage lines of the commands nearest to line (nil
// when none is near). For a stranger it offers only the commands he gets
// an answer to (strangerCommands): the others are run in silence for him.
func (e *Engine) suggest(line string, stranger bool) []string {
	f := strings.Fields(strings.ToLower(line))
	if len(f) == 0 {
		return nil
	}
	word, cands := f[0], e.candidates(f, stranger)
	if _, ok := e.games[word]; ok && !stranger && len(f) > 1 {
		// "lyngk shwo": the game word is right, the command is not.
		word, cands = f[1], e.gameCandidates(word)
	}
	if utf8.RuneCountInString(word) > maxSuggestWord {
		return nil
	}
	best, limit := -1, 1
	if utf8.RuneCountInString(word) > 4 {
		limit = 2
	}
	var lines []string
	for _, c := range cands {
		d := distance(word, c.word)
		switch {
		case d > limit || (best >= 0 && d > best):
			continue
		case d < best || best < 0:
			best, lines = d, nil
		}
		for _, l := range c.lines {
			if !slices.Contains(lines, l) {
				lines = append(lines, l)
			}
		}
	}
	if len(lines) > maxSuggestions {
		lines = lines[:maxSuggestions]
	}
	return lines
}

// candidates are the words a line's first word f[0] is compared with: the
// common commands' first words, each game command's name (offered after
// every game word), and the game words (a typo of "lyngk").
func (e *Engine) candidates(f []string, stranger bool) []candidate {
	var cs []candidate
	for _, c := range e.commands {
		first, _, two := strings.Cut(c.name, " ")
		switch {
		case stranger && (c.game || !strangerCommands[first]):
		case c.game:
			var lines []string
			for _, g := range e.cfg.Games {
				lines = append(lines, e.forms(c, g.Name())...)
			}
			cs = append(cs, candidate{c.name, lines})
		case two:
			if !slices.ContainsFunc(cs, func(o candidate) bool { return o.word == first }) {
				cs = append(cs, candidate{first, []string{e.usage(first, "")}})
			}
		default:
			cs = append(cs, candidate{c.name, e.forms(c, "")})
		}
	}
	if stranger {
		return cs
	}
	for _, g := range e.cfg.Games {
		lines := []string{e.usage(g.Name(), "")}
		if len(f) > 1 {
			// "lyngkk show 101": the command after the game word says
			// which of the game's commands is meant.
			for _, c := range e.gameCandidates(g.Name()) {
				if c.word == f[1] {
					lines = c.lines
				}
			}
		}
		cs = append(cs, candidate{g.Name(), lines})
	}
	return cs
}

// gameCandidates are game's commands, and the synonyms of their words
// ("mvoe"), each with its usage lines.
func (e *Engine) gameCandidates(game string) []candidate {
	var cs []candidate
	for _, c := range e.commands {
		if c.game {
			cs = append(cs, candidate{c.name, e.forms(c, game)})
		}
	}
	for _, syn := range slices.Sorted(maps.Keys(synonyms)) {
		if c, ok := e.command(synonyms[syn], true); ok {
			cs = append(cs, candidate{syn, e.forms(*c, game)})
		}
	}
	return cs
}

// forms are c's usage lines, after the game word game for a game command,
// as "help commands" writes them.
func (e *Engine) forms(c command, game string) []string {
	var lines []string
	for _, f := range c.forms {
		line := f.usage
		if c.game {
			line = game + " " + line
		}
		lines = append(lines, e.fill(game, line))
	}
	return lines
}

// distance is the edit distance of a and b counting a swap of two
// neighbouring letters as one edit (the optimal string alignment
// distance): "shwo" is one from "show", as "hlep" from "help".
func distance(a, b string) int {
	s, t := []rune(a), []rune(b)
	// d[i][j] is the distance of s[:i] and t[:j].
	d := make([][]int, len(s)+1)
	for i := range d {
		d[i] = make([]int, len(t)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(s); i++ {
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(s)][len(t)]
}
