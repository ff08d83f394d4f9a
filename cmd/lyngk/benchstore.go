package main

import (
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"time"

	"lyngk.example/lyngk/engine"
	"lyngk.example/lyngk/engine/benchstore"
	"lyngk.example/lyngk/engine/daemon"
	"lyngk.example/lyngk/store"
	"lyngk.example/lyngk/templates"
)

// runBenchStore is `lyngk bench-store -db FILE -games N [-players M]
// [-running R] [-seed S] [-now TIME]`: a synthetic store for sizing and
// benchmarks (package benchstore says what it holds). It refuses an
// existing FILE, so that it can never add made-up games to a real store,
// and removes what it wrote when it fails.
func runBenchStore(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("bench-store", flag.ContinueOnError)
	fl.SetOutput(stderr)
	dbPath := fl.String("db", "", "the store `FILE` to create (it must not exist)")
	nGames := fl.Int("games", 0, "number of games `N`")
	players := fl.Int("players", 0, "number of accounts `M` (0: one per 10 games)")
	running := fl.Int("running", -1, "games still running `R` (-1: 2 % of the games)")
	seed := fl.Uint64("seed", 1, "the seed `S`: the same seed and -now, the same store")
	nowFlag := fl.String("now", "", "the store's present, RFC 3339 `TIME` (default: now)")
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if *dbPath == "" || *nGames < 1 || fl.NArg() != 0 {
		fmt.Fprintln(stderr, "usage: lyngk bench-store -db FILE -games N [-players M] [-running R] [-seed S] [-now TIME]")
		return 2
	}
	var now time.Time
	if *nowFlag != "" {
		var err error
		if now, err = time.Parse(time.RFC3339, *nowFlag); err != nil {
			fmt.Fprintf(stderr, "lyngk bench-store: -now: %v\n", err)
			return 2
		}
	}
	switch _, err := os.Lstat(*dbPath); {
	case err == nil:
		fmt.Fprintf(stderr, "lyngk bench-store: %s exists: it writes a new store only\n", *dbPath)
		return 1
	case !errors.Is(err, fs.ErrNotExist):
		fmt.Fprintf(stderr, "lyngk bench-store: %v\n", err)
		return 1
	}
	began := time.Now()
	said := began
	sum, err := writeBenchStore(*dbPath, benchstore.Options{Games: *nGames, Players: *players, Running: *running,
		Seed: *seed, Now: now, Progress: func(done int) {
			// Every 10 s: a million games take minutes.
			if time.Since(said) >= 10*time.Second {
				said = time.Now()
				fmt.Fprintf(stderr, "bench-store: %d of %d games started (%s)\n", done, *nGames, time.Since(began).Round(time.Second))
			}
		}})
	if err != nil {
		os.Remove(*dbPath)
		fmt.Fprintf(stderr, "lyngk bench-store: %v\n", err)
		return 1
	}
	size := int64(0)
	if st, err := os.Stat(*dbPath); err == nil {
		size = st.Size()
	}
	fmt.Fprintf(stdout, "%s: %d games (running %v, finished %v), %d players, %d MB, in %s\n", *dbPath, *nGames,
		sum.Running, sum.Finished, sum.Players, size>>20, time.Since(began).Round(time.Millisecond))
	return 0
}

// writeBenchStore creates the store at path and fills it. The engine is
// the server's (the games offered, the templates), its reply tokens drawn
// from the seed.
func writeBenchStore(path string, o benchstore.Options) (benchstore.Summary, error) {
	tpl, err := templates.Load("")
	if err != nil {
		return benchstore.Summary{}, err
	}
	var key [32]byte
	binary.LittleEndian.PutUint64(key[:], o.Seed)
	eng, err := engine.New(engine.Config{Games: offered(), Server: defaultConfig().Server, Templates: tpl,
		Rand: rand.NewChaCha8(key)})
	if err != nil {
		return benchstore.Summary{}, err
	}
	db, err := store.Open(path, store.Options{})
	if err != nil {
		return benchstore.Summary{}, err
	}
	// Written through the daemon, the one writer of a store, as the
	// server's own changes are.
	d := daemon.New(daemon.Config{DB: db, Engine: eng})
	sum, err := benchstore.Generate(context.Background(), eng, func(fn func(engine.Tx) error) error {
		return d.Update(context.Background(), "bench-store", func(tx *store.Tx) error { return fn(tx) })
	}, o)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return sum, err
}
