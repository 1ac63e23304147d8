#!/usr/bin/env bash
# Interleaved A/B of gsearch builds on one search, with GSEARCH_TRACE=1: each round
# runs every binary once (in turn), prints its start-up marks, the stream summary
# and its wall time. Run on the GPU machine.
# Usage: bench/ab-trace.sh ROUNDS BIN1[,BIN2...] -- GSEARCH_ARGS...
set -euo pipefail
rounds=$1; bins=$2; shift 2; [ "${1:-}" = "--" ] && shift
IFS=, read -r -a list <<< "$bins"
echo "# bench/ab-trace.sh $(date -u +%FT%TZ): $rounds rounds of ${list[*]} on: $*"
for r in $(seq 1 "$rounds"); do
  for b in "${list[@]}"; do
    echo "## round $r: $b"
    s=$(date +%s%N)
    GSEARCH_TRACE=1 "$b" "$@" 2>&1 >/dev/null \
      | grep -E "platforms listed|devices of|device selected|context and|slot|stream done|opencl stream|  fill |search done" || true
    e=$(date +%s%N)
    echo "  wall $(( (e - s) / 1000000 )) ms"
    sleep 0.3
  done
done
