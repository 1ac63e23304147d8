#!/bin/bash
# Regexes with classes of digits or hex digits, rule sets on a one-line file, and -l/-q/-L
# of a big file a walk finds: gsearch ($GS) against an older build ($GS_OLD) and ripgrep
# ($RG), interleaved (bench/lt.py), tables into $OUT/x2.md. Builds $BIG with
# scripts/make-bigfile and a tree /var/tmp/walk (a copy of /usr/include beside it).
# Usage: GS=... GS_OLD=... RG=... OUT=dir bench/classes-and-stops.sh
set -u

G=${GS:-$PWD/.carry/gsearch}; O=${GS_OLD:-$PWD/.carry/gs-old}; R=${RG:-$PWD/.carry/rg}; B=${BIG:-/var/tmp/c1g.txt}
OUT=${OUT:-/tmp/classes-and-stops}; mkdir -p $OUT
nvidia-smi -L > $OUT/gpu.txt 2>&1; nproc >> $OUT/gpu.txt
S=$SECONDS; scripts/make-bigfile $B 1200 /usr/include > /dev/null 2>&1
mkdir -p /var/tmp/walk/inc && cp -r /usr/include/. /var/tmp/walk/inc/ && ln -f $B /var/tmp/walk/big.txt
du -sh /var/tmp/walk >> $OUT/gpu.txt; echo "setup $((SECONDS-S)) s" >> $OUT/gpu.txt
cat $B > /dev/null
echo "x ABCD1234 y" > /tmp/one.txt
L=$OUT/x2.md
{ echo "## same answers"; for p in "-c id_[0-9]{5}" "-c 0x[0-9a-f]{4}" "-c [0-9]{3}-[0-9]{4}" "-n 0x[0-9a-f]{4}"; do
  echo "$p: gsearch $($G $p $B | md5sum | cut -c1-8) rg $($R $p $B | md5sum | cut -c1-8) old $($O $p $B | md5sum | cut -c1-8)"; done
  for p in "-l zqzqzq" "-l zq[a-z]+_\w+" "-L zq[a-z]+_\w+" "-m2 -n EINVAL"; do
  echo "walk $p: gsearch $($G $p /var/tmp/walk | sort | md5sum | cut -c1-8) rg $($R $p /var/tmp/walk | sort | md5sum | cut -c1-8)"; done; } >> $L
hdr() { echo; echo "## $1"; echo; echo "| case | median ms | min | p90 | command |"; echo "|---|---:|---:|---:|---|"; } 
hdr "one-line file (16 cores)" >> $L
for p in "-c 'id_[0-9]{5}'" "-c '0x[0-9a-f]{4}'" "-c '[a-f0-9]{8}'" "-c -f bench/rules/rules-200.txt" "-c -f bench/rules/rules-15.txt"; do
  python3 bench/lt.py 20 $L "rg $p=$R $p /tmp/one.txt" "new $p=$G $p /tmp/one.txt" "old $p=$O $p /tmp/one.txt"; done
hdr "1.26 GB of C (16 cores)" >> $L
for p in "-c 'id_[0-9]{5}'" "-c '0x[0-9a-f]{4}'" "-c '[0-9]{3}-[0-9]{4}'" "-n '0x[0-9a-f]{4}'"; do
  python3 bench/lt.py 5 $L "rg $p=$R $p $B" "new $p=$G $p $B" "new cpu $p=$G --engine cpu $p $B" "old $p=$O $p $B"; done
hdr "tree: the 1.26 GB file beside a copy of /usr/include (16 cores)" >> $L
for p in "-l zqzqzq" "-l 'zq[a-z]+_\w+'" "-L 'zq[a-z]+_\w+'" "-q 'zq[a-z]+_\w+'"; do
  python3 bench/lt.py 5 $L "rg $p=$R $p /var/tmp/walk" "new $p=$G $p /var/tmp/walk" "old $p=$O $p /var/tmp/walk"; done
hdr "2 cores (taskset -c 0,1)" >> $L
for p in "-c 'id_[0-9]{5}'" "-c -f bench/rules/rules-200.txt"; do
  python3 bench/lt.py 20 $L "rg $p=taskset -c 0,1 $R $p /tmp/one.txt" "new $p=taskset -c 0,1 $G $p /tmp/one.txt" "old $p=taskset -c 0,1 $O $p /tmp/one.txt"; done
for p in "-l zqzqzq" "-l 'zq[a-z]+_\w+'"; do
  python3 bench/lt.py 3 $L "rg $p=taskset -c 0,1 $R $p /var/tmp/walk" "new $p=taskset -c 0,1 $G $p /var/tmp/walk" "old $p=taskset -c 0,1 $O $p /var/tmp/walk"; done
for p in "-c 'id_[0-9]{5}'" "-c '0x[0-9a-f]{4}'"; do
  python3 bench/lt.py 3 $L "rg $p=taskset -c 0,1 $R $p $B" "new $p=taskset -c 0,1 $G $p $B" "old $p=taskset -c 0,1 $O $p $B"; done
GSEARCH_TRACE=1 $G --stats -c '0x[0-9a-f]{4}' $B > $OUT/stats-0x.txt 2>&1
GSEARCH_TRACE=1 $O --stats -c '0x[0-9a-f]{4}' $B > $OUT/stats-0x-old.txt 2>&1
echo "done $SECONDS s" >> $OUT/gpu.txt
