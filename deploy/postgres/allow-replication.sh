#!/bin/sh
# Run once by the official PostgreSQL image when it creates the primary's data directory
# (/docker-entrypoint-initdb.d): let the replica stream from it, with the same password.
set -e
echo "host replication ${POSTGRES_USER} all scram-sha-256" >> "$PGDATA/pg_hba.conf"
