#!/bin/sh
# Where the device engine's time goes on word lists, on the GPU machine:
# builds the site-packages corpus (scripts/setup-corpus) unless it is there,
# then for each word count (WORDS, default 1,000 / 10,000 / 100,000) runs
# `--engine opencl -c -F -f` on a one-line file (fixed costs only) and on
# the big file with GSEARCH_TRACE=1 (start-up milestones and pipeline
# stages), reporting wall time and peak RSS, RUNS times (default 2).
# Usage: bench/profile-wordlists.sh [OUTFILE]
#   GSEARCH=binary (default .carry/gsearch), ENGINE=opencl|auto, WORDS, RUNS
set -u
out=${1:-/dev/stdout}
G=${GSEARCH:-.carry/gsearch}
C=/var/tmp/gsearch-corpus
W=$C/site
if [ -z "$(clinfo -l 2>/dev/null | grep -i nvidia)" ] && [ -e /usr/local/nvidia/lib64/libnvidia-opencl.so.1 ]; then
    mkdir -p /etc/OpenCL/vendors && echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
fi
if [ ! -f "$W/big.txt" ]; then
    python3 scripts/setup-corpus --site-packages --out "$C" --big-size "${BIG_SIZE:-8G}" \
        --sorted-size 64M --keys 1000 --key-samples 100 >/dev/null 2>&1 || echo "setup-corpus failed" >&2
fi
echo "hello world" > /tmp/one-line.txt
{
    echo "# bench/profile-wordlists.sh, $(date -u +%FT%TZ), $(nvidia-smi -L 2>/dev/null | head -1)"
    echo "# $G, engine ${ENGINE:-opencl}, env: $(env | grep '^GSEARCH_' | tr '\n' ' ')"
    cat "$W/big.txt" > /dev/null
    for n in ${WORDS:-1000 10000 100000}; do
        for f in /tmp/one-line.txt "$W/big.txt"; do
            echo "## -c -F -f $n words, $(basename "$f")"
            for i in $(seq "${RUNS:-2}"); do
                GSEARCH_TRACE=1 /usr/bin/time -f "  wall %e s, peak RSS %M KB" \
                    "$G" --engine "${ENGINE:-opencl}" -c -F -f "$W/words-$n.txt" "$f" 2>&1 |
                    grep -v "^[0-9]*$" | grep -E "${SHOW:-trace|opencl|fill|line numbers|wall}"
            done
        done
    done
} > "$out" 2>&1
