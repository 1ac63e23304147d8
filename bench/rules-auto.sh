#!/bin/bash
# Rule sets of 3 to 200 regexes over one big page-cached file: gsearch's `auto` against
# `--engine cpu` and an older build, interleaved (bench/lt.py, 3 timed rounds), with the
# `--stats` of 15 and 50 rules (whether and why the device started). Rule files: RULES
# (a directory holding r4.txt, rh3.txt, r50.txt, r100.txt; made from bench/rules as the
# results file says), bench/rules/rules-15.txt and -200.txt.
# Usage: GS=... GS_OLD=... BIG=file RULES=dir OUT=dir bench/rules-auto.sh
set -u
G=${GS:-$PWD/.carry/gsearch}; O=${GS_OLD:-$PWD/.carry/gs-old}; B=${BIG:-/var/tmp/c1g.txt}
K=${RULES:-.carry/rules}; OUT=${OUT:-/tmp/rules-auto}; mkdir -p $OUT
[ -f $B ] || scripts/make-bigfile $B 1200 /usr/include > /dev/null 2>&1
cat $B > /dev/null
L=$OUT/rules.md; echo "| case | median ms | min | p90 | command |" > $L; echo "|---|---:|---:|---:|---|" >> $L
for f in $K/r4.txt $K/rh3.txt bench/rules/rules-15.txt $K/r50.txt $K/r100.txt bench/rules/rules-200.txt; do
  python3 bench/lt.py 3 $L "auto $f=$G -c -f $f $B" "cpu $f=$G --engine cpu -c -f $f $B" "old $f=$O -c -f $f $B"; done
for f in $K/r50.txt bench/rules/rules-15.txt; do GSEARCH_TRACE=1 $G --stats -c -f $f $B > $OUT/stats-$(basename $f).txt 2>&1; done
