// Command lyngk is the LYNGK play-by-email server: one binary with the
// subcommands of SPEC §5.
//
//	lyngk serve [-config FILE] [-data DIR]   the daemon (local all-in-one mode without mail settings)
//	lyngk process -db FILE [-mbox FILE|-]    apply one mail from stdin (procmail style)
//	lyngk analyze …                          the rules engine on the command line
//	lyngk backup -db FILE OUT                consistent online copy of the store
//	lyngk admin -db FILE [-config FILE] users|games|game N|outbox|bounces   look into the store
//	lyngk oauth2 login -config FILE          the mailbox's OAuth2 refresh token
//	lyngk bench-store -db FILE -games N      a synthetic store for sizing and benchmarks
//
// This package only wires the others together: flags, configuration,
// logging and signals; and it decides how mail meets the store (app.go:
// one transaction per batch, poison mail set aside; passwords.go: bcrypt
// before the transaction, in a bounded pool, and a lane for the mails that
// need it, so that the others are answered meanwhile).
package main

import (
	"fmt"
	"io"
	"os"
)

const usage = `usage: lyngk COMMAND [flags]

commands:
  serve    [-config FILE] [-data DIR] [-local-smtp ADDR] [-local-imap ADDR] [-local-web ADDR] [-check-config]
  process  -db FILE [-mbox FILE|-] [-from ADDR]
  analyze  (-seed N | -position FILE) [-stack6] [-turn 1|2] [-players A,B] [-json] [MOVE…]
           [-robot [-think DURATION] [-playouts N]]
  backup   -db FILE OUT
  admin    -db FILE [-config FILE] users | games | game N | outbox | bounces | broadcast [USERID on|off]
  oauth2   login -config FILE [-data DIR] [-browser [-listen ADDR]]
           get the mailbox's OAuth2 refresh token (device grant, or a browser)
  bench-store -db FILE -games N [-players M] [-running R] [-seed S] [-now TIME]
           write a new synthetic store of N games for sizing and benchmarks

Run "lyngk COMMAND -h" for the flags of one command.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run dispatches to a subcommand and returns the process exit status:
// 0 success, 1 failure, 2 bad usage.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "serve":
		return runServe(rest, stdout, stderr)
	case "process":
		return runProcess(rest, stdin, stdout, stderr)
	case "analyze":
		return runAnalyze(rest, stdout, stderr)
	case "backup":
		return runBackup(rest, stdout, stderr)
	case "admin":
		return runAdmin(rest, stdout, stderr)
	case "oauth2":
		return runOAuth2(rest, stdout, stderr)
	case "bench-store":
		return runBenchStore(rest, stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "lyngk: unknown command %q\n\n%s", cmd, usage)
	return 2
}
