#!/usr/bin/env bash
# `make bench-serve`: a fresh database served by `fpdb serve` on a port it
# picks, and `serve_load` against it on 127.0.0.1 (docs/BENCHMARKS.md has
# the table): single and batched check-and-inserts, queries, batch
# queries, after a warm-up of WARM_SECONDS (default 6) of batched
# check-and-inserts, so that the rows measure a server that has run a
# while (its memtable and delta past their first, cheapest entries, its
# first flush behind it) rather than a fresh one. Then, unless BATCH_N=0,
# `serve_batch` (beside SERVE_LOAD): BATCH_N (default 10,000,000)
# fingerprints bulk-loaded into another database and 100,000 queried in
# one call, in process and through `fpdb serve`. Then, with PYTHON, the baseline on the same machine: a
# redis-server started here (in memory only), and datasketch MinHashLSH
# on it doing query-then-insert from 16 client processes.
# Usage: serve_bench.sh FPDB SERVE_LOAD [SECONDS [PYTHON]]
set -euo pipefail
fpdb=$1
load=$2
seconds=${3:-10}
python=${4:-}
dir=$(mktemp -d)
redis=
trap 'kill -TERM "$server" $redis 2>/dev/null || true; wait "$server" $redis 2>/dev/null || true; rm -rf "$dir"' EXIT
"$fpdb" create "$dir/db" --expected 1000000 >/dev/null
"$fpdb" serve "$dir/db" --listen 127.0.0.1:0 >"$dir/listening" 2>"$dir/log" &
server=$!
for _ in $(seq 100); do
    [ -s "$dir/listening" ] && break
    sleep 0.1
done
addr=$(sed 's/^listening on //' "$dir/listening")
echo "bench-serve: $(date -u '+%Y-%m-%d %H:%M:%S UTC'); load $(cut -d' ' -f1-3 /proc/loadavg); server $addr"
echo "warm-up: $("$load" "$addr" check_many 16 "${WARM_SECONDS:-6}" 100)"
for args in "check 1" "check 16" "check_many 16 $seconds 100" "query 16" "query_many 1 $seconds 10000"; do
    set -- $args
    if [ $# -eq 2 ]; then
        "$load" "$addr" "$1" "$2" "$seconds"
    else
        "$load" "$addr" "$@"
    fi
done
kill -TERM "$server"
wait "$server" || true
if [ "${BATCH_N:-10000000}" != 0 ]; then
    "$(dirname "$load")/serve_batch" "$fpdb" "$dir/batch" "${BATCH_N:-10000000}" 100000 3
    rm -rf "$dir/batch"
fi
if [ -n "$python" ]; then
    port=$("$python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$dir" >"$dir/redis.log" &
    redis=$!
    for _ in $(seq 100); do
        redis-cli -p "$port" ping >/dev/null 2>&1 && break
        sleep 0.1
    done
    "$python" "$(dirname "$0")/lsh_redis_baseline.py" "$port" 16 "$seconds"
fi
echo "bench-serve: finished $(date -u '+%H:%M:%S UTC'); load $(cut -d' ' -f1-3 /proc/loadavg)"
