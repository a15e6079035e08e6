#!/bin/sh
# On the first start (an empty $PGDATA): a cluster whose superuser is POSTGRES_USER (default
# postgres) with the password POSTGRES_PASSWORD, the database POSTGRES_DB (default: the user's
# name), local connections trusted and every other one by password (scram-sha-256). Then the
# command, normally `postgres`.
set -eu
if [ ! -s "$PGDATA/PG_VERSION" ]; then
    : "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD must be set for the first start}"
    user="${POSTGRES_USER:-postgres}"
    database="${POSTGRES_DB:-$user}"
    password_file="$(mktemp)"
    printf '%s\n' "$POSTGRES_PASSWORD" >"$password_file"
    initdb -D "$PGDATA" -U "$user" --pwfile="$password_file" --auth-local=trust --auth-host=scram-sha-256 >/dev/null
    rm -f "$password_file"
    echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
    if [ "$database" != postgres ]; then
        # Listening on no address while the database is made, so no client sees a half-made one.
        pg_ctl -D "$PGDATA" -w -o "-c listen_addresses=''" start >/dev/null
        createdb -U "$user" "$database"
        pg_ctl -D "$PGDATA" -w -m fast stop >/dev/null
    fi
    echo "farm-postgres: made a cluster in $PGDATA with the database $database owned by $user"
fi
exec "$@"
