#!/usr/bin/env bash
# The test command (the README's quick start; .ci/run runs it): installs what the server's
# tests drive Pythia with, the PostgreSQL clients psql, pgbench and psycopg 3
# (scripts/install_pg_clients.sh, which does nothing once they are there), then runs every
# test of the workspace, with every feature (`tls`, off in a default build, is tested too).
# Arguments go to `cargo test`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_pg_clients.sh
cargo test --workspace --all-features "$@"
