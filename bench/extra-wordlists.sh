#!/bin/sh
# Extra word-list measurements on the GPU machine, after scripts/bench-gpu has
# built the corpus: --stats of the 100,000-word row (auto and opencl), and
# -c -F -i with 10,000 words (gsearch on the whole big file; ripgrep on the
# first 10 MB of one copy, scaled, since it needs minutes per GB there), and
# the start-up with 100,000 words (a one-line file).
# Usage: bench/extra-wordlists.sh [CORPUS_DIR] > out.txt
set -u
W=${1:-/var/tmp/gsearch-corpus/site}
G=${GSEARCH:-.carry/gsearch}
RG=${RG:-.carry/rg}
t() { /usr/bin/time -f "  wall %e s, peak RSS %M KB" "$@"; }
echo "## --stats, -c -F -f 100,000 words"
for e in opencl auto; do
  echo "-- --engine $e"
  t "$G" --engine "$e" --stats -c -F -f "$W/words-100000.txt" "$W/big.txt" 2>&1 | tail -14
done
echo "## -c -F -i -f 10,000 words"
for e in opencl auto; do
  echo "-- --engine $e (3 runs)"
  for i in 1 2 3; do t "$G" --engine "$e" -c -F -i -f "$W/words-10000.txt" "$W/big.txt" 2>&1; done
done
"$G" --engine opencl --stats -c -F -i -f "$W/words-10000.txt" "$W/big.txt" 2>&1 | grep -E "^patterns|^kernel|stream:"
head -c 10000000 "$W/base.txt" > /tmp/rg-slice.txt
echo "-- rg on the first 10,000,000 bytes of base.txt (scale by $(stat -c %s "$W/big.txt") / 1e7)"
t "$RG" -c -F -i -f "$W/words-10000.txt" /tmp/rg-slice.txt 2>&1
t "$G" --engine cpu -c -F -i -f "$W/words-10000.txt" /tmp/rg-slice.txt 2>&1
echo "## start-up with 100,000 words (one-line file)"
echo "hello world" > /tmp/one-line.txt
for e in cpu opencl; do
  for i in 1 2; do t "$G" --engine "$e" -c -F -f "$W/words-100000.txt" /tmp/one-line.txt 2>&1; done
done
