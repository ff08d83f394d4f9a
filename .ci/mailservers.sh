#!/usr/bin/env bash
# mailservers.sh: a private Dovecot (IMAP + LMTP) and Postfix (SMTP) on loopback
# for the end-to-end tests of `lyngk serve`.
#
#   .ci/mailservers.sh start DIR        install the Debian packages if missing, write
#                                       throw-away configs under DIR, start both servers,
#                                       write DIR/env (ports, users, passwords)
#   .ci/mailservers.sh stop DIR         stop both servers (by PID), wait until they are gone,
#                                       unmount DIR/disk
#   .ci/mailservers.sh status DIR       exit 0 when both run, 3 otherwise
#   .ci/mailservers.sh stop-smtp DIR    take Postfix down (its queue stays on disk)
#   .ci/mailservers.sh start-smtp DIR   bring Postfix back
#   .ci/mailservers.sh restart-imap DIR stop Dovecot and start it again (drops every IMAP session)
#   .ci/mailservers.sh queue-size DIR   print how many mails wait in Postfix's queue
#
# Mail flow: anything from 127.0.0.0/8 may submit to Postfix on 127.0.0.1:SMTP_PORT
# without AUTH (that port offers no STARTTLS: the players' clients, and the
# "server without STARTTLS" case); on 127.0.0.1:SUBMISSION_PORT only after
# STARTTLS and AUTH PLAIN, which Postfix checks through Dovecot's auth socket
# (SASL), as a real submission service does. Dovecot serves IMAP with
# STARTTLS on IMAP_PORT (plain login allowed there, for the players) and
# with implicit TLS on IMAPS_PORT. Both use a server certificate for
# 127.0.0.1 and localhost from a throw-away CA made with openssl here:
# DIR/tls/ca.pem (what the robot's tls_ca_file names); DIR/tls/other-ca.pem
# is a second CA that signed nothing (a wrong tls_ca_file). Mail for @e2e.test is relayed over LMTP to Dovecot, which stores it
# in the user's mailbox (sdbox) under DIR/disk/mail. Mail for @remote.test
# stands for players whose mail is hosted elsewhere, as almost all players'
# is: Postfix relays it over SMTP to 127.0.0.1:REMOTE_PORT, where the
# throughput test listens (while no one listens it waits in Postfix's queue).
# Any other domain bounces: nothing leaves the machine.
#
# OAuth2: besides passwords, Dovecot (IMAP, and Postfix's submission through
# its SASL) takes XOAUTH2 and OAUTHBEARER with an access token, which it
# checks by token introspection (RFC 7662, a POST) at
# http://127.0.0.1:OAUTH_PORT/introspect: the issuer the test serves there
# (mailer/oauth/oauthtest). Without it, every token is refused. Users: lyngk (the robot), alice, bob, carol and load0..load3 (mailboxes
# that take load0+anything@e2e.test etc., for the throughput test), all @e2e.test;
# dave is the player whose address TestE2EBounce takes away (it edits DIR/dovecot/users).
#
# Mail and Postfix's queue live in DIR/disk: a journaled ext4 image mounted
# there when the machine allows it (stop unmounts it), else a plain directory.
# A mail server's disk has a journal; without one (as on some CI machines'
# root file system) ext4 skips recently deleted inodes on every file it
# creates, and at a few hundred mails a second that scan costs more CPU than
# Postfix's own work.
#
# Needs root (Postfix does). Ports come from the environment when set:
# E2E_SMTP_PORT (12525), E2E_SUBMISSION_PORT (12587), E2E_IMAP_PORT (11143),
# E2E_IMAPS_PORT (11993), E2E_LMTP_PORT (12424), E2E_REMOTE_PORT (12526),
# E2E_OAUTH_PORT (12580).
set -euo pipefail

DOMAIN=e2e.test
REMOTE_DOMAIN=remote.test
# load0..load3 take load0+anything@e2e.test etc.: the throughput test spreads
# its players over them, as real players would be spread over many mailboxes.
USERS="lyngk alice bob carol dave load0 load1 load2 load3"
PACKAGES="dovecot-imapd dovecot-lmtpd postfix swaks openssl"
# Mail files belong to nobody:nogroup; Dovecot refuses uid 0 for mail users.
MAIL_UID=65534
MAIL_GID=65534

die() {
	echo "mailservers: $*" >&2
	exit 1
}

usage() {
	echo "usage: $0 start|stop|status|stop-smtp|start-smtp|restart-imap|queue-size DIR" >&2
	exit 2
}

[ $# -eq 2 ] || usage
CMD=$1
DIR=$2
case "$DIR" in
/*) ;;
*) DIR=$(pwd)/$DIR ;;
esac
DIR=${DIR%/}
DATA=$DIR/disk

# alive PID NAME: the process exists, is not a zombie, and its name is NAME.
# Orphans are not reaped in these containers, so a dead server lingers as a
# zombie: kill -0 alone would call it alive.
alive() {
	local pid=$1 name=$2 stat
	[ -n "$pid" ] || return 1
	stat=$(cat "/proc/$pid/stat" 2>/dev/null) || return 1
	case "$stat" in
	*"($name) Z"* | *"($name) X"*) return 1 ;;
	*"($name) "*) return 0 ;;
	esac
	return 1
}

dovecot_pid() { cat "$DIR/dovecot/run/master.pid" 2>/dev/null || true; }
postfix_pid() { sed -n 's/ //gp' "$DATA/postfix-spool/pid/master.pid" 2>/dev/null || true; }
dovecot_up() { alive "$(dovecot_pid)" dovecot; }
postfix_up() { alive "$(postfix_pid)" master; }

# children PID: every descendant of PID, to check that none survives a stop.
# One pass over /proc with bash built-ins: a fork per process is slow on a
# busy machine.
children() {
	local f line rest pid
	local -A parent_of=()
	for f in /proc/[0-9]*/stat; do
		{ read -r line <"$f"; } 2>/dev/null || continue
		pid=${f#/proc/}
		rest=${line##*) }
		rest=${rest#* }
		parent_of[${pid%/stat}]=${rest%% *}
	done
	local -a todo=("$1")
	local cur
	while [ ${#todo[@]} -gt 0 ]; do
		cur=${todo[0]}
		todo=("${todo[@]:1}")
		for pid in "${!parent_of[@]}"; do
			if [ "${parent_of[$pid]}" = "$cur" ]; then
				echo "$pid"
				todo+=("$pid")
			fi
		done
	done
}

# running PID...: the PIDs that still run (zombies count as gone).
running() {
	local pid stat
	for pid in "$@"; do
		stat=$(cat "/proc/$pid/stat" 2>/dev/null) || continue
		case "$stat" in
		*") Z "* | *") X "*) ;;
		*) echo "$pid" ;;
		esac
	done
}

# wait_gone SECONDS PID...: wait until none of the PIDs runs.
wait_gone() {
	local limit=$1 i
	shift
	for ((i = 0; i < limit * 20; i++)); do
		[ -z "$(running "$@")" ] && return 0
		sleep 0.05
	done
	return 1
}

# terminate NAME PID: SIGTERM to a server's master process and all its
# children at once (Dovecot's master otherwise waits for imap processes that
# keep serving their clients), then SIGKILL to whatever is left.
terminate() {
	local name=$1 pid=$2 kids left
	kids=$(children "$pid")
	# shellcheck disable=SC2086 # one PID a word
	kill -TERM "$pid" $kids 2>/dev/null || true
	# shellcheck disable=SC2086
	wait_gone 10 "$pid" $kids && return 0
	# shellcheck disable=SC2086
	left=$(running "$pid" $kids)
	echo "mailservers: $name: sending SIGKILL to: ${left//$'\n'/ }" >&2
	# shellcheck disable=SC2086
	kill -KILL $left 2>/dev/null || true
	# shellcheck disable=SC2086
	wait_gone 5 $left || die "$name: still running:" $left
}

# wait_port PORT SECONDS: wait until 127.0.0.1:PORT accepts a connection.
wait_port() {
	local port=$1 limit=$2 i
	for ((i = 0; i < limit * 20; i++)); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			return 0
		fi
		sleep 0.05
	done
	return 1
}

installed() {
	local p
	for p in $PACKAGES; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || return 1
	done
}

install_packages() {
	installed && return 0
	command -v apt-get >/dev/null || die "apt-get not found: need Debian 12 with $PACKAGES"
	echo "mailservers: installing $PACKAGES" >&2
	export DEBIAN_FRONTEND=noninteractive
	printf '%s\n' \
		"postfix postfix/main_mailer_type select No configuration" \
		"postfix postfix/mailname string $DOMAIN" | debconf-set-selections
	# Keep the packages' scripts from starting the system-wide daemons: this
	# script runs its own instances. Only a policy we created is removed again.
	local policy=
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod 755 /usr/sbin/policy-rc.d
		policy=/usr/sbin/policy-rc.d
	fi
	local rc=0
	# Wait for a dpkg lock held by another apt run instead of failing.
	local lock=(-o DPkg::Lock::Timeout=300)
	apt-get "${lock[@]}" update -qq </dev/null || rc=$?
	if [ $rc -eq 0 ]; then
		# shellcheck disable=SC2086 # word splitting of the package list is meant
		apt-get "${lock[@]}" install -y -qq --no-install-recommends \
			-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
			$PACKAGES </dev/null >"${TMPDIR:-/tmp}/mailservers-apt.log" 2>&1 || rc=$?
	fi
	if [ -n "$policy" ]; then rm -f "$policy"; fi
	if [ $rc -ne 0 ]; then
		tail -n 30 "${TMPDIR:-/tmp}/mailservers-apt.log" >&2 || true
		die "apt-get failed ($rc)"
	fi
	installed || die "packages still missing after apt-get install"
}

random_password() {
	head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n'
}

# write_env: ports and passwords, reused when DIR/env exists so that a second
# start keeps the accounts the tests already know.
write_env() {
	if [ -f "$DIR/env" ]; then
		# shellcheck disable=SC1091
		. "$DIR/env"
		return 0
	fi
	E2E_SMTP_PORT=${E2E_SMTP_PORT:-12525}
	E2E_SUBMISSION_PORT=${E2E_SUBMISSION_PORT:-12587}
	E2E_IMAP_PORT=${E2E_IMAP_PORT:-11143}
	E2E_IMAPS_PORT=${E2E_IMAPS_PORT:-11993}
	E2E_LMTP_PORT=${E2E_LMTP_PORT:-12424}
	E2E_REMOTE_PORT=${E2E_REMOTE_PORT:-12526}
	E2E_OAUTH_PORT=${E2E_OAUTH_PORT:-12580}
	{
		echo "# written by .ci/mailservers.sh; shell syntax, one KEY=VALUE a line"
		echo "E2E_DIR=$DIR"
		echo "E2E_DOMAIN=$DOMAIN"
		echo "E2E_SMTP_ADDR=127.0.0.1:$E2E_SMTP_PORT"
		echo "E2E_SUBMISSION_ADDR=127.0.0.1:$E2E_SUBMISSION_PORT"
		echo "E2E_IMAP_ADDR=127.0.0.1:$E2E_IMAP_PORT"
		echo "E2E_IMAPS_ADDR=127.0.0.1:$E2E_IMAPS_PORT"
		echo "E2E_CA_FILE=$DIR/tls/ca.pem"
		echo "E2E_OTHER_CA_FILE=$DIR/tls/other-ca.pem"
		echo "E2E_LMTP_ADDR=127.0.0.1:$E2E_LMTP_PORT"
		echo "E2E_REMOTE_DOMAIN=$REMOTE_DOMAIN"
		echo "E2E_REMOTE_ADDR=127.0.0.1:$E2E_REMOTE_PORT"
		echo "E2E_OAUTH_ADDR=127.0.0.1:$E2E_OAUTH_PORT"
		echo "E2E_SMTP_PORT=$E2E_SMTP_PORT"
		echo "E2E_SUBMISSION_PORT=$E2E_SUBMISSION_PORT"
		echo "E2E_IMAP_PORT=$E2E_IMAP_PORT"
		echo "E2E_IMAPS_PORT=$E2E_IMAPS_PORT"
		echo "E2E_LMTP_PORT=$E2E_LMTP_PORT"
		echo "E2E_OAUTH_PORT=$E2E_OAUTH_PORT"
		echo "E2E_USERS=\"$USERS\""
		local u
		for u in $USERS; do
			echo "E2E_PASSWORD_$(echo "$u" | tr '[:lower:]' '[:upper:]')=$(random_password)"
		done
		echo "E2E_SCRIPT=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
	} >"$DIR/env.tmp"
	mv "$DIR/env.tmp" "$DIR/env"
	# shellcheck disable=SC1091
	. "$DIR/env"
}

password_of() {
	local var
	var=E2E_PASSWORD_$(echo "$1" | tr '[:lower:]' '[:upper:]')
	echo "${!var}"
}

# make_certs: a throw-away CA, a server certificate it signs for 127.0.0.1
# and localhost (what the robot connects to), and a second CA that signed
# nothing. Kept across restarts of the same DIR.
make_certs() {
	local t=$DIR/tls
	[ -f "$t/server.pem" ] && return 0
	mkdir -p "$t"
	chmod 700 "$t"
	local ec=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
	openssl req -x509 "${ec[@]}" -days 2 -subj "/CN=lyngk e2e test CA" \
		-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
		-keyout "$t/ca.key" -out "$t/ca.pem" 2>/dev/null || die "openssl: CA"
	openssl req -x509 "${ec[@]}" -days 2 -subj "/CN=lyngk e2e other CA" \
		-addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
		-keyout "$t/other-ca.key" -out "$t/other-ca.pem" 2>/dev/null || die "openssl: other CA"
	openssl req "${ec[@]}" -subj "/CN=localhost" -keyout "$t/server.key" -out "$t/server.csr" 2>/dev/null ||
		die "openssl: server key"
	printf '%s\n' "subjectAltName=IP:127.0.0.1,DNS:localhost" "basicConstraints=CA:FALSE" \
		"keyUsage=critical,digitalSignature" "extendedKeyUsage=serverAuth" >"$t/server.ext"
	openssl x509 -req -in "$t/server.csr" -CA "$t/ca.pem" -CAkey "$t/ca.key" -CAcreateserial -days 2 \
		-extfile "$t/server.ext" -out "$t/server.pem" 2>/dev/null || die "openssl: server certificate"
	# The test (and the robot under test) read the CAs; the keys stay root's.
	chmod 755 "$t"
	chmod 644 "$t/ca.pem" "$t/other-ca.pem" "$t/server.pem"
	chmod 600 "$t"/*.key
}

write_dovecot_conf() {
	local d=$DIR/dovecot u
	mkdir -p "$d/run" "$d/state" "$DATA/mail" "$DATA/postfix-spool/private"
	chown postfix "$DATA/postfix-spool/private"
	chmod 700 "$DATA/postfix-spool/private"
	chown "$MAIL_UID:$MAIL_GID" "$DATA/mail"
	: >"$d/users.tmp"
	for u in $USERS; do
		mkdir -p "$DATA/mail/$u"
		chown "$MAIL_UID:$MAIL_GID" "$DATA/mail/$u"
		echo "$u@$DOMAIN:{PLAIN}$(password_of "$u"):$MAIL_UID:$MAIL_GID::$DATA/mail/$u::" >>"$d/users.tmp"
	done
	# Dovecot's auth process reads the file as the dovecot user.
	chown root:dovecot "$d/users.tmp"
	chmod 640 "$d/users.tmp"
	mv "$d/users.tmp" "$d/users"
	cat >"$d/oauth2.conf.ext" <<EOF
# The test's issuer (mailer/oauth/oauthtest): RFC 7662 introspection by POST,
# which answers {"active": true, "username": "lyngk@e2e.test"} for a token
# it issued.
introspection_mode = post
introspection_url = http://$E2E_OAUTH_ADDR/introspect
force_introspection = yes
username_attribute = username
active_attribute = active
active_value = true
EOF
	cat >"$d/dovecot.conf" <<EOF
# Throw-away Dovecot for the lyngk end-to-end tests (written by mailservers.sh).
instance_name = lyngk-e2e
protocols = imap lmtp
listen = 127.0.0.1
base_dir = $d/run
state_dir = $d/state
log_path = $d/dovecot.log
# STARTTLS on the imap port, implicit TLS on imaps. Plain-text login stays
# allowed on the imap port, for the players' clients on loopback.
ssl = yes
ssl_cert = <$DIR/tls/server.pem
ssl_key = <$DIR/tls/server.key
disable_plaintext_auth = no
auth_mechanisms = plain login xoauth2 oauthbearer
mail_location = sdbox:~/sdbox
first_valid_uid = $MAIL_UID
first_valid_gid = $MAIL_GID
# load0+p001@e2e.test is delivered to load0's INBOX.
recipient_delimiter = +
lmtp_save_to_detail_mailbox = no
# Only Dovecot touches these Maildirs: no need to rescan cur/ on every sync.
maildir_very_dirty_syncs = yes
# The robot, its tests and the players all log in from 127.0.0.1.
mail_max_userip_connections = 200
# A throw-away instance: no fsync per delivery, which on two cores costs
# more than all the rest of a delivery.
mail_fsync = never
# Dovecot keeps appending to a mailbox's transaction log until it is 1 MB or
# 5 minutes old, and every delivery and IMAP session rereads it from the
# start: at a few hundred mails a second through one robot mailbox that
# log, not the mail, is most of Dovecot's work. Rotate it small and often.
mail_index_log_rotate_min_size = 16k
mail_index_log_rotate_max_size = 64k
mail_index_log_rotate_min_age = 0
mail_index_rewrite_min_log_bytes = 4k
mail_index_rewrite_max_log_bytes = 32k
namespace inbox {
  inbox = yes
  separator = /
}
passdb {
  driver = passwd-file
  mechanisms = plain login
  args = scheme=PLAIN username_format=%u $d/users
}
# Access tokens, checked with the test's issuer (oauth2.conf.ext).
passdb {
  driver = oauth2
  mechanisms = xoauth2 oauthbearer
  args = $d/oauth2.conf.ext
}
userdb {
  driver = passwd-file
  args = username_format=%u $d/users
}
service imap-login {
  chroot =
  inet_listener imap {
    address = 127.0.0.1
    port = $E2E_IMAP_PORT
  }
  inet_listener imaps {
    address = 127.0.0.1
    port = $E2E_IMAPS_PORT
    ssl = yes
  }
}
# Postfix's submission port checks passwords here (SASL): the socket lies
# in Postfix's queue directory, where smtpd_sasl_path = private/auth finds it.
service auth {
  unix_listener $DATA/postfix-spool/private/auth {
    mode = 0660
    user = postfix
    group = postfix
  }
}
service lmtp {
  # Reuse LMTP processes instead of forking one per connection.
  service_count = 0
  process_min_avail = 4
  inet_listener lmtp {
    address = 127.0.0.1
    port = $E2E_LMTP_PORT
  }
}
service anvil {
  chroot =
}
EOF
}

write_postfix_conf() {
	# Postfix wants its configuration, queue and data directories apart: a
	# queue inside the configuration directory fails its ownership checks.
	local p=$DIR/postfix
	mkdir -p "$p" "$DATA/postfix-spool" "$DATA/postfix-data"
	chown postfix:postfix "$DATA/postfix-data"
	cat >"$p/main.cf" <<EOF
# Throw-away Postfix for the lyngk end-to-end tests (written by mailservers.sh).
compatibility_level = 3.6
queue_directory = $DATA/postfix-spool
data_directory = $DATA/postfix-data
maillog_file = $p/maillog
maillog_file_prefixes = $DIR
myhostname = mx.$DOMAIN
mydomain = $DOMAIN
myorigin = $DOMAIN
mydestination =
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
mynetworks = 127.0.0.0/8
smtpd_relay_restrictions = permit_mynetworks, reject_unauth_destination
smtpd_peername_lookup = no
relay_domains = $DOMAIN
# Dovecot's LMTP Unix socket: no TCP stack on either side for every
# delivery. (Its TCP port stays open for the tests that deliver directly.)
relay_transport = lmtp:unix:$DIR/dovecot/run/lmtp
# Players hosted elsewhere: their mail goes out over SMTP, as a robot
# host's board mails do.
transport_maps = inline:{$REMOTE_DOMAIN=smtp:[127.0.0.1]:$E2E_REMOTE_PORT}
smtp_destination_concurrency_limit = 4
local_transport = error:no local delivery in the e2e test instance
default_transport = error:no outside delivery from the e2e test instance
local_recipient_maps =
alias_maps =
alias_database =
biff = no
append_dot_mydomain = no
smtputf8_enable = no
# All mail goes to one LMTP destination, three deliveries per move (one to
# the robot, a board mail to each player). On two cores a few deliveries at
# once beat many (measured: 2 costs less CPU per delivery than 4, 4 less
# than 8); hold that concurrency from the start.
lmtp_destination_concurrency_limit = 2
initial_destination_concurrency = 2
# A few hundred mails a second: keep Postfix's processes instead of
# replacing each after 100 uses.
max_use = 10000
# Mail arrives with complete addresses and there are no maps: leave the
# headers alone and skip the lookups (each is a query to trivial-rewrite).
local_header_rewrite_clients =
receive_override_options = no_address_mappings, no_unknown_recipient_checks
smtpd_reject_unlisted_recipient = no
# Retry soon after Dovecot comes back from restart-imap.
queue_run_delay = 5s
minimal_backoff_time = 5s
maximal_backoff_time = 10s
# TLS for the submission port (master.cf turns it on there, and AUTH with
# it); the plain port stays without STARTTLS.
smtpd_tls_cert_file = $DIR/tls/server.pem
smtpd_tls_key_file = $DIR/tls/server.key
smtpd_tls_security_level = none
smtpd_sasl_type = dovecot
smtpd_sasl_path = private/auth
EOF
	# The packaged master.cf with smtpd moved to the loopback port and every
	# service out of the chroot (the spool under DIR has no chroot set-up).
	awk -v listen="127.0.0.1:$E2E_SMTP_PORT" '
		/^[#[:space:]]/ || NF < 8 { print; next }
		{ $5 = "n"; if ($1 == "smtp" && $2 == "inet") $1 = listen; print }
	' /usr/share/postfix/master.cf.dist >"$p/master.cf"
	# Submission as a provider runs it: STARTTLS required, then AUTH PLAIN
	# (checked by Dovecot), and only authenticated clients may send.
	cat >>"$p/master.cf" <<EOF
127.0.0.1:$E2E_SUBMISSION_PORT inet n - n - - smtpd
  -o syslog_name=postfix/submission
  -o smtpd_tls_security_level=encrypt
  -o smtpd_tls_auth_only=yes
  -o smtpd_sasl_auth_enable=yes
  -o smtpd_client_restrictions=permit_sasl_authenticated,reject
  -o smtpd_relay_restrictions=permit_sasl_authenticated,reject
EOF
}

start_dovecot() {
	dovecot_up && return 0
	local d=$DIR/dovecot
	rm -f "$d/run/master.pid"
	setsid dovecot -c "$d/dovecot.conf" -F </dev/null >>"$d/stdout.log" 2>&1 &
	local i
	for ((i = 0; i < 200; i++)); do
		dovecot_up && break
		sleep 0.05
	done
	dovecot_up || {
		tail -n 20 "$d/stdout.log" "$d/dovecot.log" >&2 2>/dev/null || true
		die "dovecot did not start"
	}
	wait_port "$E2E_IMAP_PORT" 20 || die "dovecot: nothing listens on $E2E_IMAP_PORT"
	wait_port "$E2E_IMAPS_PORT" 20 || die "dovecot: nothing listens on $E2E_IMAPS_PORT"
	wait_port "$E2E_LMTP_PORT" 20 || die "dovecot: nothing listens on $E2E_LMTP_PORT"
}

stop_dovecot() {
	local pid
	pid=$(dovecot_pid)
	alive "$pid" dovecot || return 0
	terminate dovecot "$pid"
}

start_postfix() {
	postfix_up && return 0
	local p=$DIR/postfix
	# postfix start reports its errors to a terminal or syslog only: give it a
	# terminal (script) and keep what it says.
	script -qec "postfix -c '$p' start" /dev/null </dev/null >>"$p/start.log" 2>&1 || {
		cat "$p/start.log" >&2
		tail -n 20 "$p/maillog" >&2 2>/dev/null || true
		die "postfix did not start"
	}
	local i
	for ((i = 0; i < 200; i++)); do
		postfix_up && break
		sleep 0.05
	done
	postfix_up || die "postfix master did not start"
	wait_port "$E2E_SMTP_PORT" 20 || die "postfix: nothing listens on $E2E_SMTP_PORT"
	wait_port "$E2E_SUBMISSION_PORT" 20 || die "postfix: nothing listens on $E2E_SUBMISSION_PORT"
}

stop_postfix() {
	local pid
	pid=$(postfix_pid)
	alive "$pid" master || return 0
	terminate postfix "$pid"
}

# mount_disk: a journaled ext4 image (DIR/disk.img) on DATA, or a plain
# directory when loop devices or mkfs.ext4 are not to be had.
mount_disk() {
	local img=$DIR/disk.img
	mkdir -p "$DATA"
	mountpoint -q "$DATA" && return 0
	if [ -f "$img" ]; then
		mount -o loop "$img" "$DATA" || die "cannot mount $img on $DATA"
		return 0
	fi
	[ -z "$(ls -A "$DATA")" ] || return 0 # the plain directory of an earlier start
	if truncate -s 4G "$img" 2>/dev/null &&
		mkfs.ext4 -q -F -O has_journal "$img" >/dev/null 2>&1 &&
		mount -o loop "$img" "$DATA" 2>/dev/null; then
		chmod 755 "$DATA"
		return 0
	fi
	rm -f "$img"
	echo "mailservers: cannot mount an ext4 image here; mail is kept on $(df --output=fstype "$DATA" | tail -n 1) under $DATA" >&2
}

# umount_disk: unmount DATA; the image stays for the next start.
umount_disk() {
	mountpoint -q "$DATA" || return 0
	umount "$DATA" || umount -l "$DATA"
}

load_env() {
	[ -f "$DIR/env" ] || die "$DIR/env missing: run '$0 start $DIR' first"
	# shellcheck disable=SC1091
	. "$DIR/env"
}

case "$CMD" in
start)
	[ "$(id -u)" = 0 ] || die "must run as root (postfix needs it)"
	t0=$(date +%s%N)
	install_packages
	mkdir -p "$DIR"
	# Dovecot opens mailboxes as the mail user, who must be able to reach DIR.
	chmod 755 "$DIR"
	mount_disk
	write_env
	make_certs
	if ! dovecot_up; then
		for port in "$E2E_IMAP_PORT" "$E2E_IMAPS_PORT" "$E2E_LMTP_PORT"; do
			if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
				die "port $port is already in use (another instance? set E2E_IMAP_PORT/E2E_LMTP_PORT)"
			fi
		done
		write_dovecot_conf
	fi
	if ! postfix_up; then
		for port in "$E2E_SMTP_PORT" "$E2E_SUBMISSION_PORT"; do
			if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
				die "port $port is already in use (another instance? set E2E_SMTP_PORT/E2E_SUBMISSION_PORT)"
			fi
		done
		write_postfix_conf
	fi
	t1=$(date +%s%N)
	start_dovecot
	start_postfix
	t2=$(date +%s%N)
	echo "mailservers: up in $(((t2 - t1) / 1000000)) ms (install/config $(((t1 - t0) / 1000000)) ms)" >&2
	echo "mailservers: SMTP $E2E_SMTP_ADDR  submission $E2E_SUBMISSION_ADDR  IMAP $E2E_IMAP_ADDR  IMAPS $E2E_IMAPS_ADDR  LMTP $E2E_LMTP_ADDR  CA $E2E_CA_FILE  env $DIR/env" >&2
	for u in $USERS; do
		echo "mailservers: user $u@$DOMAIN password $(password_of "$u")" >&2
	done
	;;
stop)
	if [ -f "$DIR/env" ]; then load_env; fi
	stop_postfix
	stop_dovecot
	umount_disk
	;;
status)
	load_env
	rc=0
	if dovecot_up; then echo "dovecot running (pid $(dovecot_pid))"; else echo "dovecot stopped"; rc=3; fi
	if postfix_up; then echo "postfix running (pid $(postfix_pid))"; else echo "postfix stopped"; rc=3; fi
	exit $rc
	;;
stop-smtp)
	load_env
	stop_postfix
	;;
start-smtp)
	load_env
	start_postfix
	;;
queue-size)
	load_env
	postqueue -c "$DIR/postfix" -j | wc -l
	;;
restart-imap)
	load_env
	t0=$(date +%s%N)
	stop_dovecot
	t1=$(date +%s%N)
	start_dovecot
	t2=$(date +%s%N)
	echo "mailservers: dovecot stopped in $(((t1 - t0) / 1000000)) ms, started in $(((t2 - t1) / 1000000)) ms" >&2
	;;
*)
	usage
	;;
esac
