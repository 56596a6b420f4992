#!/usr/bin/env bash
# Compares web_extract's in-process extraction of a 1 MB article page
# (package web: charset, HTML parse, readability, Markdown) with the same page
# through a subprocess converter (python3 with the standard html.parser,
# bench/webextract/html2md.py): time per page and memory. Run from anywhere
# in the repository:
#
#   bash bench/webextract/run.sh            # COUNT=5 benchmark runs, RUNS=20 subprocess runs
#   COUNT=10 RUNS=50 bash bench/webextract/run.sh
#
# In process: go test -bench BenchmarkExtract1MB -benchmem, median of COUNT
# runs (ns/op, B/op allocated per extraction, allocs/op). Subprocess: wall
# time and peak RSS (/usr/bin/time) of RUNS runs after one warm-up, medians.
set -euo pipefail

cd "$(dirname "$0")/../.."
count="${COUNT:-5}"
runs="${RUNS:-20}"
load="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

echo "$(go version); $(getconf _NPROCESSORS_ONLN) CPUs; load average $load"
go test ./bench/webextract -run '^$' -bench '^BenchmarkExtract1MB$' -benchmem -count "$count" >"$tmp/bench.txt"
ns=$(awk '/^BenchmarkExtract1MB/ {print $3}' "$tmp/bench.txt" | median)
bop=$(awk '/^BenchmarkExtract1MB/ {for (i=1;i<=NF;i++) if ($i=="B/op") print $(i-1)}' "$tmp/bench.txt" | median)
aop=$(awk '/^BenchmarkExtract1MB/ {for (i=1;i<=NF;i++) if ($i=="allocs/op") print $(i-1)}' "$tmp/bench.txt" | median)

go run ./bench/webextract -write "$tmp/page.html"
size=$(wc -c <"$tmp/page.html")
python3 bench/webextract/html2md.py "$tmp/page.html" >/dev/null # warm-up
: >"$tmp/py.txt"
for _ in $(seq "$runs"); do
	/usr/bin/time -f "%e %M" -a -o "$tmp/py.txt" python3 bench/webextract/html2md.py "$tmp/page.html" >/dev/null
done
pys=$(awk '{print $1}' "$tmp/py.txt" | median)
pyrss=$(awk '{print $2}' "$tmp/py.txt" | median)

echo
echo "Page: $size bytes. Load average after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
echo
echo "| extraction of a 1 MB article page | time per page (median) | memory |"
echo "|---|---:|---|"
awk -v ns="$ns" -v b="$bop" -v a="$aop" -v c="$count" 'BEGIN {printf "| in process (web.Extract: readability + html-to-markdown), median of %d | %.1f ms | %.1f MB allocated per extraction, %d allocations |\n", c, ns/1e6, b/1048576, a}'
awk -v s="$pys" -v r="$pyrss" -v n="$runs" 'BEGIN {printf "| subprocess: python3 html.parser converter, median of %d | %.0f ms | %.1f MB peak RSS of the process |\n", n, s*1000, r/1024}'
