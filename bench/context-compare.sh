#!/bin/sh
# Context lines on the big file: rg, gsearch auto and --engine opencl, times, peak RSS and
# output digests (run on the GPU machine after scripts/bench-gpu has built the corpus,
# with the binaries in .carry/).
B=/var/tmp/gsearch-corpus/site/big.txt
for a in "-n -C1 NotImplementedError" "-n -C2 -F -f /var/tmp/gsearch-corpus/site/words-1000.txt"; do
  for t in "rg" "gs-auto" "gs-opencl"; do
    case $t in rg) cmd=".carry/rg";; gs-auto) cmd=".carry/gsearch";; gs-opencl) cmd=".carry/gsearch --engine opencl";; esac
    for i in 1 2; do /usr/bin/time -f "$t $a: %e s, %M KB" $cmd $a $B > /tmp/out-$t.txt; done
    echo "$t $(md5sum < /tmp/out-$t.txt) $(wc -c < /tmp/out-$t.txt) bytes"
  done
done 2>&1
