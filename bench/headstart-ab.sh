#!/bin/sh
# A/B of the head start (src/headstart.rs) on the GPU machine: `-c -F -f`
# with 1,000 and 10,000 words on the big site-packages file, `auto` with
# GSEARCH_HEADSTART=1 and =0 interleaved, RUNS times each (default 5);
# prints wall time, peak RSS and the trace lines that show the split.
# Then how long loading the OpenCL drivers takes with both ICDs listed
# (PoCL and NVIDIA, as the machine is set up) and with NVIDIA's alone.
# Usage: bench/headstart-ab.sh [OUTFILE]   (GSEARCH=binary, default .carry/gsearch)
set -u
out=${1:-/dev/stdout}
G=${GSEARCH:-.carry/gsearch}
C=/var/tmp/gsearch-corpus
W=$C/site
if [ ! -f "$W/big.txt" ]; then
    python3 scripts/setup-corpus --site-packages --out "$C" --big-size "${BIG_SIZE:-8G}" \
        --sorted-size 64M --keys 1000 --key-samples 100 >/dev/null 2>&1 || echo "setup-corpus failed" >&2
fi
{
    echo "# bench/headstart-ab.sh, $(date -u +%FT%TZ), $(nvidia-smi -L 2>/dev/null | head -1)"
    cat "$W/big.txt" > /dev/null
    for n in 10000 1000; do
        for i in $(seq "${RUNS:-5}"); do
            for hs in 1 0; do
                printf '## %s words, GSEARCH_HEADSTART=%s, run %s\n' "$n" "$hs" "$i"
                GSEARCH_HEADSTART=$hs GSEARCH_TRACE=1 /usr/bin/time -f "  wall %e s, peak RSS %M KB" \
                    "$G" -c -F -f "$W/words-$n.txt" "$W/big.txt" 2>&1 |
                    grep -E "listed|context|claimed|slots allocated|search done|wall"
            done
        done
    done
    echo "hello world" > /tmp/one-line.txt
    for icd in "${OCL_ICD_FILENAMES:-}" libnvidia-opencl.so.1; do
        for i in 1 2 3; do
            echo "## OCL_ICD_FILENAMES=$icd, --engine opencl on one line, run $i"
            OCL_ICD_FILENAMES=$icd GSEARCH_TRACE=1 "$G" --engine opencl -c hello /tmp/one-line.txt 2>&1 |
                grep -E "listed|context|search done"
        done
    done
} > "$out" 2>&1
