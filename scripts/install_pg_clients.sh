#!/usr/bin/env bash
# Installs the PostgreSQL clients the server's tests and `pythia lab pgbench` drive Pythia
# with, none of which this project wrote (docs/architecture/server.md, "Tests"):
#
#   psql, pgbench, and PostgreSQL 15 itself   Debian's postgresql-15 and postgresql-client-15
#                                              (pgbench ships with the server package; the
#                                              server is the benchmark's comparison)
#   psycopg 3                                  PyPI, into a virtual environment of its own at
#                                              target/pg-clients/venv
#   pgjdbc                                     Maven Central, with the machine's Maven, into
#                                              target/pg-clients/jdbc (run with its Java 17)
#
#   scripts/install_pg_clients.sh           installs what is missing; a second run does nothing
#
# The tests find the clients on PATH (psql, pgbench), in /usr/lib/postgresql/15/bin, and the
# Python at target/pg-clients/venv/bin/python (or $PYTHIA_PYTHON). Debian's packages need
# root: run as root, or with sudo available.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
psycopg_version=3.2.13
pgjdbc_version=42.7.14
venv=$root/target/pg-clients/venv
jdbc=$root/target/pg-clients/jdbc
postgresql_bin=/usr/lib/postgresql/15/bin

as_root() {
    if [ "$(id -u)" -eq 0 ]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo "$@"
    else
        echo "install_pg_clients: '$*' needs root, and there is no sudo" >&2
        exit 1
    fi
}

if ! { command -v psql >/dev/null && [ -x "$postgresql_bin/pgbench" ] && [ -x "$postgresql_bin/postgres" ]; }; then
    echo "install_pg_clients: installing Debian's postgresql-15 and postgresql-client-15"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    # The server package's own cluster is not wanted: the benchmark starts its own.
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        postgresql-15 postgresql-client-15 >/dev/null
fi
for tool in psql "$postgresql_bin/pgbench" "$postgresql_bin/postgres" "$postgresql_bin/initdb"; do
    command -v "$tool" >/dev/null || { echo "install_pg_clients: $tool missing after install" >&2; exit 1; }
done

if ! [ -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import psycopg, sys; sys.exit(psycopg.__version__ != '$psycopg_version')" 2>/dev/null; then
    echo "install_pg_clients: installing psycopg $psycopg_version into $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check "psycopg[binary]==$psycopg_version"
fi
"$venv/bin/python" -c "import psycopg; print('install_pg_clients: psycopg', psycopg.__version__, 'libpq', psycopg.pq.version())"

if ! [ -f "$jdbc/postgresql-$pgjdbc_version.jar" ]; then
    command -v mvn >/dev/null && command -v java >/dev/null || {
        echo "install_pg_clients: pgjdbc needs Java and Maven (OpenJDK 17 and Maven 3 are on this kind of machine)" >&2
        exit 1
    }
    echo "install_pg_clients: fetching pgjdbc $pgjdbc_version into $jdbc"
    mvn -q dependency:copy "-Dartifact=org.postgresql:postgresql:$pgjdbc_version" "-DoutputDirectory=$jdbc"
fi
echo "install_pg_clients: pgjdbc $jdbc/postgresql-$pgjdbc_version.jar"
psql --version
"$postgresql_bin/pgbench" --version
