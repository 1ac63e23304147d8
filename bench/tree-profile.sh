#!/bin/sh
# Where the site-packages tree's time goes, for rg and gsearch: CPU time
# (user, system), wall time and context switches of a literal and of a word
# list, at the default thread count and on one thread, then a perf profile
# of gsearch's word-list search.
# Usage: bench/tree-profile.sh WORDS_FILE [TREE] [RUNS]   (on the GPU machine;
# binaries from .carry/; perf is used when it is installed)
set -u
WORDS=$(realpath "$1")
TREE=${2:-/opt/torch/.venv/lib/python3.12/site-packages}
RUNS=${3:-10}
REPO=$(cd "$(dirname "$0")/.." && pwd)
G=${GSEARCH:-$REPO/.carry/gsearch}
R=$REPO/.carry/rg
cd "$TREE" || exit 1
echo "# tree-profile: $(date -u +%FT%TZ), $(nproc) cores, tree $TREE, words $WORDS"

# One line per run: wall, user, system (seconds), voluntary and involuntary
# context switches, peak RSS (KiB).
timed() {
    /usr/bin/time -f "%e %U %S %w %c %M" "$@" > /dev/null 2> /tmp/tree-profile.time
    tail -1 /tmp/tree-profile.time
}

summary() {
    # median of each column over the runs
    python3 -c '
import sys, statistics
rows = [list(map(float, l.split())) for l in sys.stdin if l.strip()]
cols = list(zip(*rows))
names = ["wall", "user", "sys", "vcsw", "ivcsw", "rss_kib"]
print("  ".join(f"{n}={statistics.median(c):g}" for n, c in zip(names, cols)))'
}

run_case() {
    name=$1
    shift
    for i in 1 2; do timed "$@" > /dev/null; done
    printf '%-40s ' "$name"
    i=0
    while [ $i -lt "$RUNS" ]; do
        timed "$@"
        i=$((i + 1))
    done | summary
}

for j in default 1; do
    jflag=""
    [ $j = 1 ] && jflag="-j1"
    # shellcheck disable=SC2086
    {
        run_case "rg literal -j$j" "$R" $jflag -c PyErr_SetString .
        run_case "gsearch literal -j$j" "$G" $jflag -c PyErr_SetString .
        run_case "rg --files -j$j" "$R" $jflag --files .
        run_case "gsearch --files -j$j" "$G" $jflag --files .
        run_case "gsearch words -j$j" "$G" $jflag -c -F -f "$WORDS" .
    }
done
run_case "rg words -jdefault" "$R" -c -F -f "$WORDS" .
echo "matching lines: gsearch $("$G" -c -F -f "$WORDS" . | awk -F: '{s += $NF} END {print s}'), files $("$G" -l -F -f "$WORDS" . | wc -l)"
echo "bytes searched: $("$G" --stats -c -F -f "$WORDS" . 2>&1 | grep -i 'bytes searched' | head -1)"

if command -v perf > /dev/null; then
    perf record -q -g -o /tmp/tree.perf -- "$G" -c -F -f "$WORDS" . > /dev/null 2>&1
    perf report -i /tmp/tree.perf --no-children --percent-limit 1 --stdio 2> /dev/null |
        grep -v '^$' | grep -E '^ +[0-9.]+%' | head -40
else
    echo "perf: not installed"
fi
