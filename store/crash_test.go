package store_test

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"lyngk.example/lyngk/store"
)

// crashEnv names the store file a re-executed test binary writes to until
// it is killed (see crashChild).
const crashEnv = "LYNGK_STORE_CRASH_DB"

func TestMain(m *testing.M) {
	if path := os.Getenv(crashEnv); path != "" {
		os.Exit(crashChild(path))
	}
	os.Exit(m.Run())
}

// crashRecord is what transaction i writes, under key %08d, in each of four
// buckets, engine-owned and store-owned. Sizes vary so pages split.
func crashRecord(i int) []byte {
	return append(fmt.Appendf(nil, "%08d:", i), bytes.Repeat([]byte{'a' + byte(i%26)}, 100+i%3000)...)
}

// crashWarmup is how many transactions a child commits before it tells the
// parent that it is under way.
const crashWarmup = 20

// crashChild appends transactions forever, carrying on from what the file
// holds. After crashWarmup commits it prints, once, how many the file holds.
func crashChild(path string) int {
	db, err := store.Open(path, store.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	start := 0
	err = db.View(func(tx *store.Tx) error {
		return tx.ForEach(store.BucketUsers, func(string, []byte) error { start++; return nil })
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for i := start; ; i++ {
		err := db.Update(func(tx *store.Tx) error {
			key, val := fmt.Sprintf("%08d", i), crashRecord(i)
			if err := tx.Put(store.BucketUsers, key, val); err != nil {
				return err
			}
			if err := tx.MarkSeen(key, time0); err != nil {
				return err
			}
			if _, err := tx.Enqueue(robot, []string{key + "@example.com"}, val, time0); err != nil {
				return err
			}
			return tx.Put(store.BucketGames, key, val)
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if i+1 == start+crashWarmup {
			fmt.Println(i + 1)
		}
	}
}

// TestCrashSafety kills a writer with SIGKILL in the middle of its loop of
// transactions, several times over the same file; every transaction must be
// either wholly there or wholly absent, and the committed ones a prefix.
func TestCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	path := filepath.Join(t.TempDir(), "crash.db")
	total := 0
	for round := range 20 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), crashEnv+"="+path)
		cmd.Stderr = os.Stderr
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		line, err := bufio.NewReader(stdout).ReadString('\n')
		if want := fmt.Sprintf("%d\n", total+crashWarmup); line != want {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("round %d: child said %q (%v), want %q", round, line, err, want)
		}
		// A random pause puts the kill at any point of a transaction (one
		// commit takes well under a millisecond here). The child writes
		// nothing more, so no pipe wake-up ties the parent's timer to the
		// end of a commit. The verdict does not depend on the pause.
		pause := rand.N(10 * time.Millisecond)
		time.Sleep(pause)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		err = cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("round %d: child ended with %v, not by SIGKILL", round, err)
		}
		n := checkCrashFile(t, path)
		if n < total+crashWarmup {
			t.Fatalf("round %d: %d transactions kept, want at least the %d reported", round, n, total+crashWarmup)
		}
		t.Logf("round %d: killed %v after the report; %d transactions kept", round, pause, n-total)
		total = n
	}
}

// checkCrashFile reopens the store and returns how many transactions it
// holds, failing the test unless each is complete and they are 0..n-1.
func checkCrashFile(t *testing.T, path string) int {
	t.Helper()
	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer db.Close()
	n := 0
	view(t, db, func(tx *store.Tx) error {
		err := tx.ForEach(store.BucketUsers, func(key string, val []byte) error {
			if want := fmt.Sprintf("%08d", n); key != want {
				t.Fatalf("users holds %s where %s belongs: a transaction is missing", key, want)
			}
			if !bytes.Equal(val, crashRecord(n)) {
				t.Fatalf("users/%s holds a torn value", key)
			}
			n++
			return nil
		})
		if err != nil {
			return err
		}
		games := 0
		err = tx.ForEach(store.BucketGames, func(key string, val []byte) error {
			if key != fmt.Sprintf("%08d", games) || !bytes.Equal(val, crashRecord(games)) {
				t.Fatalf("games/%s does not match users", key)
			}
			games++
			return nil
		})
		if err != nil {
			return err
		}
		out, err := tx.Outbox()
		if err != nil {
			return err
		}
		if games != n || len(out) != n {
			t.Fatalf("%d users, %d games, %d queued mails: a transaction was half applied", n, games, len(out))
		}
		for i, m := range out {
			if m.ID != uint64(i+1) || !bytes.Equal(m.Data, crashRecord(i)) {
				t.Fatalf("queued mail %d: ID %d, data %.20q", i, m.ID, m.Data)
			}
		}
		for k := range n + 1 {
			if seen, err := tx.Seen(fmt.Sprintf("%08d", k)); seen != (k < n) || err != nil {
				t.Fatalf("dedupe record of transaction %d: %v, %v; want %v", k, seen, err, k < n)
			}
		}
		return nil
	})
	return n
}
