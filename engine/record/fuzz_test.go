package record_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"lyngk.example/lyngk/engine/games"
	"lyngk.example/lyngk/engine/record"
)

// seeds adds the files of testdata (both formats, both games, the real
// boardspace games) to f's corpus.
func seeds(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.*"))
	more, _ := filepath.Glob(filepath.Join("testdata", "boardspace", "*.sgf"))
	for _, name := range append(files, more...) {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("[Game \"YINSH\"]\n\n1. e3\n2. --\n3. resign\n"))
	f.Add([]byte("(;SU[lyngk]BN[3];P0[Claim R F];P0[Move A 1 B 2];P1[Done ])(;SU[Yinsh])"))
}

// FuzzReadText: no input crashes the reader; what it reads writes back
// and reads again to the same record.
func FuzzReadText(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := record.ReadText(data, both)
		if err != nil {
			return
		}
		g, _ := record.Find(both, r.Game)
		again, err := record.ReadText(record.WriteText(r, g.Title()), both)
		if err != nil {
			t.Fatalf("%v\n%s", err, record.WriteText(r, g.Title()))
		}
		if !same(again, r) {
			t.Fatalf("read back %+v\nwant %+v", again, r)
		}
	})
}

// FuzzReadSGF: no input crashes the reader or the replay; a game that
// reads and replays writes back to SGF that reads and replays to the same
// moves, result and players.
func FuzzReadSGF(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		rs, err := record.ReadSGF(data, both)
		if err != nil {
			return
		}
		for _, r := range rs {
			g, _ := record.Find(both, r.Game)
			_, moves, err := record.Replay(g.Rules, r)
			if err != nil {
				continue
			}
			r.Moves, r.Steps = moves, nil
			out, err := record.WriteSGF(r, g.Rules.(games.Boardspace))
			if err != nil {
				t.Fatalf("write: %v", err)
			}
			back, err := record.ReadSGF(out, both)
			if err != nil || len(back) != 1 {
				t.Fatalf("read back: %v\n%s", err, out)
			}
			_, again, err := record.Replay(g.Rules, back[0])
			if err != nil || !slices.Equal(again, moves) || back[0].Result != r.Result || back[0].Players != r.Players {
				t.Fatalf("replayed back %v (%v), want %v\n%s", again, err, moves, out)
			}
		}
	})
}
