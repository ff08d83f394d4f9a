# Two commands on a fresh machine: `make run` (local all-in-one server) and
# `make test` (every test, the end-to-end suite included when Dovecot and
# Postfix can be installed; it says so when it skips).

GO       ?= go
BIN      ?= bin/lyngk
FUZZTIME ?= 20s

.PHONY: run build test unit e2e bench bench-abuse bench-scale bench-robot bench-robot-outside fuzz lint clean

# make run ARGS="-local-smtp 127.0.0.1:3525": flags for lyngk serve.
run: build
	exec $(BIN) serve $(ARGS)

build:
	CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN) ./cmd/lyngk

test: lint unit e2e

unit:
	$(GO) test -count=1 ./...

e2e:
	bash .ci/e2e.sh

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./engine/... ./store/... ./mailer/... ./cmd/...

# The abuse benchmark at full strength: each flood of forged mail at
# 100 a second for 30 s against lyngk serve in local mode while a probe pair
# plays by reply, its p99 asserted under 2 s; among them the daily-cap flood
# (forged help under a mails_per_day the flood alone would spend) and a
# mixed flood of every kind under that cap (the unit tests run it at 25 a
# second for 2 s).
bench-abuse:
	LYNGK_ABUSE_RATE=100 LYNGK_ABUSE_SECONDS=30 $(GO) test -count=1 -timeout 30m -run '^TestServeAbuseFloods$$' -v ./cmd/lyngk

# The store-size benchmark: stores of 1k, 10k and 100k games written by
# lyngk bench-store (SCALE_MAX=1000000 adds 1M), and on each the mail
# commands and web pages through lyngk serve, 10,000 random pages and the
# server's memory after them, the minute timer and the hourly prune; it
# prints the table of deploy/BENCHMARKS.md ("Store size").
# SCALE_STORES=/tmp/scale-%d.db measures a copy of each such store that
# exists (%d the number of games) instead of writing one: a million games
# written once by lyngk bench-store -db /tmp/scale-1000000.db -games
# 1000000 serve several runs. SCALE_BIN=FILE measures that lyngk's serve
# (an older build, for a figure before a change) instead of this tree's.
SCALE_MAX ?= 100000
SCALE_STORES ?=
SCALE_BIN ?=
bench-scale:
	LYNGK_BENCH_SCALE_MAX=$(SCALE_MAX) LYNGK_BENCH_SCALE_STORES=$(SCALE_STORES) LYNGK_BENCH_SCALE_BIN=$(SCALE_BIN) $(GO) test -count=1 -timeout 4h -run '^TestBenchScale$$' -v ./cmd/lyngk

# The robot strength benchmark: in LYNGK and YINSH each level against the
# one below it and against the previous robot at the level's budget, the
# weakest against a random and a greedy player; colours alternating, every
# robot move checked by the rules, CPU a move against each level's budget;
# it prints the Markdown tables of README's benchmarks. One search at a
# time (one core). The default, the two lowest levels at 100 games a
# match, takes about 15 minutes of one core (909 s on a quiet machine);
# ROBOT_LEVELS=all adds robot (2 s a move) and robot-max (10 s), which take
# days at 100 games a match: choose ROBOT_GAMES and ROBOT_GAME (lyngk,
# yinsh) to suit, ROBOT_MATCHES (levels, baseline, floor; all when empty)
# for some kinds of match only, ROBOT_STOP=1 to stop a match once its
# score shows it above or below its threshold (65 % over the level below
# or the floor; 90 % YINSH, 75 % LYNGK over the previous robot; wrong at
# most 2.5 % of the time each side, robotmatch.Result.Verdict), and
# ROBOT_MINUTES=M to stop each match after M minutes with what it has;
# ROBOT_FIRST=B starts each match at board (and seeds) B instead of 1, to
# play a long match in parts.
ROBOT_GAMES  ?= 100
ROBOT_FIRST  ?= 1
ROBOT_LEVELS ?= robot-novice,robot-club
ROBOT_GAME   ?= lyngk,yinsh
bench-robot:
	LYNGK_BENCH_ROBOT=1 LYNGK_BENCH_ROBOT_GAMES=$(ROBOT_GAMES) LYNGK_BENCH_ROBOT_GAME=$(ROBOT_GAME) \
		LYNGK_BENCH_ROBOT_LEVELS=$(if $(filter all,$(ROBOT_LEVELS)),,$(ROBOT_LEVELS)) \
		LYNGK_BENCH_ROBOT_MATCHES=$(ROBOT_MATCHES) LYNGK_BENCH_ROBOT_STOP=$(ROBOT_STOP) \
		LYNGK_BENCH_ROBOT_MINUTES=$(ROBOT_MINUTES) LYNGK_BENCH_ROBOT_FIRST=$(ROBOT_FIRST) \
		$(GO) test -count=1 -timeout 0 -run '^TestBenchRobot$$' -v ./cmd/lyngk

# make bench-robot-outside ROBOT_OUTSIDE='/path/to/program args': the YINSH
# robot thinking ROBOT_THINK a turn against an outside YINSH program of the
# course protocol (package engine/robotmatch/outside), ROBOT_GAMES games, one
# core; deploy/BENCHMARKS.md says which program it was and how it was built.
ROBOT_THINK ?= 2s
bench-robot-outside:
	ROBOT_OUTSIDE='$(ROBOT_OUTSIDE)' ROBOT_OUTSIDE_GAMES=$(ROBOT_GAMES) ROBOT_OUTSIDE_THINK=$(ROBOT_THINK) GOMAXPROCS=1 \
		$(GO) test -count=1 -timeout 0 -run '^TestBenchRobotOutside$$' -v ./cmd/lyngk

# Each fuzz target runs for FUZZTIME; go test -fuzz takes one target at a time.
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
		for t in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
			echo "fuzz $$pkg $$t"; \
			$(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg; \
		done; \
	done

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go') 2>/dev/null); \
		if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

clean:
	rm -rf bin
