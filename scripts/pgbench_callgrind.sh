#!/usr/bin/env bash
# The server's instructions per pgbench transaction, counted by callgrind: a measure of the
# server's own CPU work a query that, unlike tps, does not move with the machine's hour.
#
#   scripts/pgbench_callgrind.sh [PYTHIA_BINARY] [simple|extended|prepared] [select|tpcb-like]
#
# Builds nothing: pass the binary to measure (default target/release/pythia). It creates a
# scale-1 pgbench database with the native binary, restarts the server under
# `valgrind --tool=callgrind` (CURSOR_SHARING=FORCE, as `lab pgbench` runs it), warms it with
# 3,000 transactions, then counts 2,000 at one client: select-only on accounts 1 to 2,000
# (hot in the cache, so no physical read is counted), or pgbench's built-in tpcb-like. It prints the instructions a
# transaction, of every thread of the server, and leaves the callgrind file for
# `callgrind_annotate --inclusive=yes`. Needs valgrind, psql and pgbench
# (scripts/install_pg_clients.sh).
set -euo pipefail

binary=${1:-target/release/pythia}
mode=${2:-simple}
workload=${3:-select}
port=${PYTHIA_CALLGRIND_PORT:-55499}
work=$(mktemp -d /tmp/pythia-callgrind.XXXXXX)
transactions=2000
server=""

stop_server() {
    if [[ -n "$server" ]] && kill -0 "$server" 2>/dev/null; then
        kill -INT "$server"
        wait "$server" 2>/dev/null || true
    fi
    server=""
}
trap stop_server EXIT

serve() {
    "$@" serve "$work/data" --listen "127.0.0.1:$port" --trust \
        -p cursor_sharing=FORCE -p db_cache_size=64M >"$work/server.log" 2>&1 &
    server=$!
    for _ in $(seq 1 240); do
        if psql -h 127.0.0.1 -p "$port" -U system -Atc "select 1 from dual" postgres \
            >/dev/null 2>&1; then
            return
        fi
        sleep 0.5
    done
    echo "pgbench_callgrind: the server did not start; see $work/server.log" >&2
    exit 1
}

bench() {
    local script=(-f "$work/select.sql")
    [[ "$workload" == select ]] || script=(-b "$workload")
    pgbench -h 127.0.0.1 -p "$port" -U system -n "${script[@]}" -M "$mode" -c 1 \
        -t "$1" postgres >/dev/null
}

cat >"$work/select.sql" <<'SQL'
\set aid random(1, 2000)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
SQL

serve "$binary"
pgbench -h 127.0.0.1 -p "$port" -U system -i -I dtGp -s 1 postgres >/dev/null 2>&1
stop_server

serve valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" "$binary"
bench 3000
callgrind_control -z "$server" >/dev/null 2>&1
bench "$transactions"
callgrind_control -d "$server" >/dev/null 2>&1
stop_server

dump=$(ls "$work"/callgrind.out.* | head -1)
total=$(callgrind_annotate "$dump" | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
echo "$workload $mode: $((total / transactions)) instructions a transaction ($dump)"
