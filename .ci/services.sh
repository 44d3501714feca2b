#!/usr/bin/env bash
# Provide the real services the test suite needs:
#   * the `dovecot` binary (dovecot-imapd), NOT running as a system service:
#     tests start their own user-level Dovecot on a free loopback port;
#   * PostgreSQL on 127.0.0.1:5432 with a database named `test`.
# Idempotent, non-interactive; safe to run repeatedly. Needs root (apt-get).
set -uo pipefail
export DEBIAN_FRONTEND=noninteractive

log() { echo "services: $*"; }
# With --best-effort (the README's test command), a service that cannot be provided
# (no root, no apt) is reported and the tests that need it skip with a reason.
BEST_EFFORT=0
[ "${1:-}" = "--best-effort" ] && BEST_EFFORT=1
die() {
    if [ "$BEST_EFFORT" -eq 1 ]; then
        echo "services: WARNING: $* (the tests that need it will be skipped)" >&2
        exit 0
    fi
    echo "services: ERROR: $*" >&2
    exit 1
}

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo -n"; fi
fi

APT_UPDATED=0
apt_install() {
    if [ "$APT_UPDATED" -eq 0 ]; then
        log "apt-get update"
        $SUDO apt-get update -qq >/dev/null || die "apt-get update failed"
        APT_UPDATED=1
    fi
    log "apt-get install $*"
    $SUDO apt-get install -y -qq --no-install-recommends \
        -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
        "$@" >/dev/null || die "apt-get install $* failed"
}

# Keep package maintainer scripts from starting daemons (exit 101 = "denied").
POLICY=/usr/sbin/policy-rc.d
POLICY_CREATED=0
block_service_start() {
    if [ ! -e "$POLICY" ]; then
        printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$POLICY" >/dev/null
        $SUDO chmod 755 "$POLICY"
        POLICY_CREATED=1
    fi
}
unblock_service_start() {
    if [ "$POLICY_CREATED" -eq 1 ]; then
        $SUDO rm -f "$POLICY"
        POLICY_CREATED=0
    fi
}
trap unblock_service_start EXIT

# ---------------------------------------------------------------- Dovecot
if command -v dovecot >/dev/null 2>&1 || [ -x /usr/sbin/dovecot ]; then
    log "dovecot present ($(/usr/sbin/dovecot --version 2>/dev/null || dovecot --version))"
else
    block_service_start
    apt_install dovecot-imapd
    unblock_service_start
    [ -x /usr/sbin/dovecot ] || die "dovecot-imapd installed but /usr/sbin/dovecot missing"
    log "dovecot installed ($(/usr/sbin/dovecot --version))"
fi
# The system-wide instance (port 143) must not run: tests use their own.
if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
    $SUDO systemctl disable --now dovecot.service dovecot.socket >/dev/null 2>&1 || true
fi
if [ -f /run/dovecot/master.pid ] && kill -0 "$(cat /run/dovecot/master.pid 2>/dev/null)" 2>/dev/null; then
    log "stopping system dovecot service"
    $SUDO service dovecot stop >/dev/null 2>&1 || $SUDO /usr/sbin/dovecot stop >/dev/null 2>&1 || true
fi
if command -v update-rc.d >/dev/null 2>&1 && [ -e /etc/init.d/dovecot ]; then
    $SUDO update-rc.d dovecot disable >/dev/null 2>&1 || true
fi

# ------------------------------------------------------------- PostgreSQL
pg_up() { pg_isready -q -h 127.0.0.1 -p 5432 >/dev/null 2>&1; }

if ! command -v pg_isready >/dev/null 2>&1 || ! ls /etc/postgresql/*/main >/dev/null 2>&1; then
    block_service_start   # we start the cluster ourselves below
    apt_install postgresql
    unblock_service_start
fi
command -v pg_ctlcluster >/dev/null 2>&1 || die "pg_ctlcluster missing (postgresql-common not installed?)"

if pg_up; then
    log "postgresql already accepting connections on 127.0.0.1:5432"
else
    PGVER=$(ls /etc/postgresql 2>/dev/null | sort -V | tail -n1)
    [ -n "$PGVER" ] || die "no PostgreSQL cluster configured under /etc/postgresql"
    if [ ! -d "/etc/postgresql/$PGVER/main" ]; then
        log "creating cluster $PGVER/main"
        $SUDO pg_createcluster "$PGVER" main >/dev/null || die "pg_createcluster failed"
    fi
    log "starting postgresql cluster $PGVER/main"
    $SUDO pg_ctlcluster --skip-systemctl-redirect "$PGVER" main start >/dev/null 2>&1 || true
    for _ in $(seq 1 60); do pg_up && break; sleep 0.5; done
    pg_up || die "postgresql $PGVER/main did not come up on 127.0.0.1:5432"
    log "postgresql up"
fi

# Run psql as the postgres superuser: via TCP (works with trust auth), else
# over the local socket as the postgres OS user.
psql_admin() {
    if psql -h 127.0.0.1 -U postgres -d postgres -XtAc 'select 1' >/dev/null 2>&1; then
        psql -h 127.0.0.1 -U postgres -d postgres -XtA -v ON_ERROR_STOP=1 "$@"
    elif command -v runuser >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- psql -d postgres -XtA -v ON_ERROR_STOP=1 "$@"
    else
        $SUDO -u postgres psql -d postgres -XtA -v ON_ERROR_STOP=1 "$@"
    fi
}

if [ "$(psql_admin -c "select 1 from pg_database where datname='test'" 2>/dev/null)" = "1" ]; then
    log "database 'test' exists"
else
    psql_admin -c 'create database test' >/dev/null || die "could not create database 'test'"
    log "database 'test' created"
fi

# ---------------------------------------------------------------- Chromium
# Headless Chromium renders the HTML digest in tests/review/test_digest_chromium.py.
if [ -x /usr/bin/chromium ]; then
    log "chromium present"
else
    apt_install chromium
fi
# The office console's browser journeys (tests/bot/console/test_journeys.py) drive it with Selenium.
if [ -x /usr/bin/chromedriver ]; then
    log "chromium-driver present"
else
    apt_install chromium-driver
fi

log "ok"
exit 0
