package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"lyngk.example/lyngk/store"
)

// runBackup is `lyngk backup -db FILE OUT`: a consistent copy of the store
// taken inside one read transaction (bbolt's Tx.WriteTo). When the daemon
// holds the store, the copy is made by the daemon itself through its
// control socket, so backups never need a stop. OUT is written to a
// temporary file, synced and renamed: it is never half written.
// Restoring is copying OUT back to the store's path while the daemon is
// stopped (see deploy/README.md, "Operating it").
func runBackup(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("backup", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dbPath := fs.String("db", "", "the store `FILE`")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *dbPath == "" || fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: lyngk backup -db FILE OUT")
		return 2
	}
	if _, err := os.Stat(*dbPath); err != nil {
		// Never create an empty store by mistake: a typo must not look like a backup.
		fmt.Fprintf(stderr, "lyngk: no store: %v\n", err)
		return 1
	}
	out, err := filepath.Abs(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "lyngk: %v\n", err)
		return 1
	}
	err = withStore(*dbPath, "backup "+out, nil, store.Limits{}, stdout, func(db *store.DB) error {
		if err := db.BackupFile(out); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "backup of %s written to %s\n", db.Path(), out)
		return nil
	})
	if err != nil {
		fmt.Fprintf(stderr, "lyngk: backup: %v\n", err)
		return 1
	}
	return 0
}
