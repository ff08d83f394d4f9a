package engine

import (
	"errors"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/lyngk"
	"lyngk.example/lyngk/templates"
)

// FuzzTournamentOptions: whatever options "tournament create" is given,
// parseTourOptions either refuses them (a refusal, never another error or
// a panic) or returns a tournament within the bounds: 2 ≤ MIN ≤ MAX ≤ 64,
// a round robin of at most 16, Swiss rounds 1 to 12 and fewer than MAX,
// -double only for a round robin, -rounds only for a Swiss, a variant of
// the game.
func FuzzTournamentOptions(f *testing.F) {
	set, err := templates.Load("")
	if err != nil {
		f.Fatal(err)
	}
	e, err := New(Config{Games: []games.Game{{Rules: lyngk.Rules}}, Server: "lyngk@example.net", Templates: set, BcryptCost: bcrypt.MinCost})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"", "-format swiss -rounds 3 -players 8-8", "-double -rated -private pw -stack6",
		"-format knockout -players 2-64", "-players 4-17", "-rounds 13", "-format swiss -rounds 5 -players 4-5",
		"-players 1-4", "-players 5-3", "-private", "-format", "-s -S -players 02-3", "-players -1--2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		r := &request{e: e}
		o, err := r.parseTourOptions("lyngk", strings.Fields(line))
		var ref *refusal
		switch {
		case errors.As(err, &ref):
			return
		case err != nil:
			t.Fatalf("%q: %v, not a refusal", line, err)
		}
		bad := o.min < MinTournamentPlayers || o.max < o.min || o.max > MaxTournamentPlayers ||
			o.format == FormatRoundRobin && o.max > MaxRoundRobinPlayers ||
			o.format == FormatSwiss && o.hasRounds && (o.rounds < 1 || o.rounds > MaxSwissRounds || o.rounds >= o.max) ||
			o.hasRounds && o.format != FormatSwiss || o.double && o.format != FormatRoundRobin ||
			o.variant != "standard" && o.variant != "stack6"
		if bad {
			t.Fatalf("%q accepted as %+v", line, o)
		}
	})
}
