#!/usr/bin/env bash
# e2e.sh: the end-to-end suite of `lyngk serve` against real Dovecot and
# Postfix on loopback. Installs the Debian packages when missing,
# starts private servers in a temporary directory, runs the Go e2e tests and
# benchmarks of cmd/lyngk, and stops the servers whatever happens.
#
#   .ci/e2e.sh            tests, then the benchmarks
#   E2E_BENCH=0 .ci/e2e.sh   tests only
#   E2E_KEEP=1 .ci/e2e.sh    keep the server directory (logs; mail in DIR/disk.img) afterwards
#   E2E_RUN=TestE2EOAuth2 .ci/e2e.sh   only the tests that match (go test -run; default E2E)
#   E2E_RUN='^$' E2E_BENCHES=BenchmarkE2EThroughput:1x .ci/e2e.sh   only that benchmark (NAME:BENCHTIME ...)
#   LYNGK_E2E_BIN=/path/lyngk   the tests run that server binary (another tree's, for a before/after)
#   LYNGK_E2E_PROFILE=DIR LYNGK_E2E_PERF=1   the throughput benchmarks save the server's CPU profiles, count its system calls
#
# Exit status: that of go test. On a machine that cannot run the suite (not
# root, or no Debian packaging) it says SKIP and exits 0, so that `make test`
# works everywhere.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "$(id -u)" != 0 ]; then
	echo "e2e: SKIP: the end-to-end suite needs root to install and run Postfix" >&2
	exit 0
fi
if ! command -v dpkg-query >/dev/null || ! command -v apt-get >/dev/null; then
	echo "e2e: SKIP: the end-to-end suite needs a Debian system (apt-get, dpkg) for Dovecot and Postfix" >&2
	exit 0
fi

# Close every descriptor inherited beyond stdin, stdout and stderr: run as
# `flock LOCK .ci/e2e.sh`, the lock's descriptor would otherwise pass on to
# the mail servers and to every `lyngk serve` of the tests, and one of them
# left running would hold the lock for good (flock itself keeps it held
# until this script ends).
for fd in /proc/$$/fd/*; do
	fd=${fd##*/}
	# 255 is where bash reads this script from.
	if [ "$fd" -gt 2 ] 2>/dev/null && [ "$fd" != 255 ]; then eval "exec $fd>&-" 2>/dev/null || true; fi
done

DIR=$(mktemp -d "${TMPDIR:-/tmp}/lyngk-e2e.XXXXXX")
status=0

# stop_lyngk: SIGKILL to any `lyngk serve` the tests built under DIR and left
# running (go test killed at its timeout runs no cleanup).
stop_lyngk() {
	local exe pid
	for exe in /proc/[0-9]*/exe; do
		case "$(readlink "$exe" 2>/dev/null)" in
		"$DIR"/bin-*/lyngk)
			pid=${exe#/proc/}
			pid=${pid%/exe}
			echo "e2e: killing a leftover lyngk serve (pid $pid)" >&2
			kill -KILL "$pid" 2>/dev/null || true
			;;
		esac
	done
}

# shellcheck disable=SC2317 # runs from the EXIT trap
cleanup() {
	local rc=$?
	stop_lyngk
	.ci/mailservers.sh stop "$DIR" || rc=1
	if [ "$rc" != 0 ] || [ "$status" != 0 ]; then
		echo "e2e: --- last lines of the Dovecot log ---" >&2
		tail -n 40 "$DIR/dovecot/dovecot.log" >&2 2>/dev/null || true
		echo "e2e: --- last lines of the Postfix log ---" >&2
		tail -n 40 "$DIR/postfix/maillog" >&2 2>/dev/null || true
	fi
	if [ "${E2E_KEEP:-0}" = 1 ]; then
		echo "e2e: kept $DIR" >&2
	else
		rm -rf "$DIR"
	fi
	exit "$rc"
}
trap cleanup EXIT

start=$(date +%s)
.ci/mailservers.sh start "$DIR"

export LYNGK_E2E=1 LYNGK_E2E_DIR="$DIR"
go test -count=1 -timeout 12m -run "${E2E_RUN:-E2E}" -v ./cmd/lyngk/ || status=$?
# bench NAME BENCHTIME: one benchmark on fresh mail servers, so that its
# figures do not depend on what ran before (mailboxes and Postfix's queue).
# b.Loop benchmarks: -benchtime Nx is N moves (latency) or N bursts of
# games × moves (throughput).
bench() {
	.ci/mailservers.sh stop "$DIR" &&
		find "$DIR" -mindepth 1 -delete &&
		.ci/mailservers.sh start "$DIR" &&
		go test -count=1 -timeout 8m -run '^$' -bench "^$1\$" -benchtime "$2" ./cmd/lyngk/
}
if [ "$status" = 0 ] && [ "${E2E_BENCH:-1}" != 0 ]; then
	for b in ${E2E_BENCHES:-BenchmarkE2ELatency:40x BenchmarkE2EThroughput:1x BenchmarkE2EThroughputSameHost:1x}; do
		bench "${b%%:*}" "${b#*:}" || status=$?
	done
fi
echo "e2e: finished in $(($(date +%s) - start)) s with status $status" >&2
exit "$status"
