#!/usr/bin/env bash
# Times the worst cases that the fuzzy-match and lint limits bound (issue 9
# item 5): each case runs RUNS times (default 3), each in a fresh process
# under /usr/bin/time -v; prints a Markdown table of the median elapsed time
# (measured inside the process, around the one call), the median CPU time of
# the process (user + system, less sensitive to a busy machine than the
# elapsed time) and the median peak RSS.
# Run from anywhere in the repository:
#
#   bash bench/limits/run.sh
#   RUNS=5 bash bench/limits/run.sh
#   CASES="fuzzy:-lines=10000:-old=1000 toml-header:-depth=24000" bash bench/limits/run.sh
#   LIMITS_BIN=/tmp/limits-old bash bench/limits/run.sh   # a binary built earlier
#
# The "before" column of docs/benchmarks.md came from the binary built at
# commit 2281466 with bench/limits/before.go's calls (the APIs without ctx).
set -euo pipefail

cd "$(dirname "$0")/../.."
runs="${RUNS:-3}"
cases="${CASES:-fuzzy:-lines=10000:-old=1000 fuzzy:-lines=20000:-old=2000 toml-header:-depth=24000 toml-dotted:-depth=6000 toml-inline:-depth=2000 json:-depth=100000 yaml:-depth=100000 go:-depth=20000}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
bin="${LIMITS_BIN:-$tmp/limits}"
if [ -z "${LIMITS_BIN:-}" ]; then
	go build -o "$bin" ./bench/limits
fi
load="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)"
echo "$(go version); $(git rev-parse --short HEAD 2>/dev/null || echo '?'); load average $load; RUNS=$runs" >&2

median() { sort -g | awk '{a[NR]=$1} END {if (NR==0) print "?"; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

echo "| case | input | median time | median CPU time | median peak RSS | result |"
echo "|---|---:|---:|---:|---:|---|"
for c in $cases; do
	IFS=: read -r -a parts <<<"$c"
	name="${parts[0]}"
	args=("-case=$name" "${parts[@]:1}")
	: >"$tmp/t" ; : >"$tmp/m" ; : >"$tmp/c"
	for _ in $(seq "$runs"); do
		/usr/bin/time -v "$bin" "${args[@]}" >"$tmp/out" 2>"$tmp/err"
		line="$(cat "$tmp/out")"
		# elapsed=1m2.5s / 12.3ms / 4.5µs → seconds
		el="$(sed -E 's/.*elapsed=([^ ]+).*/\1/' <<<"$line")"
		python3 -c 'import re,sys
s=sys.argv[1]; t=0.0
for n,u in re.findall(r"([0-9.]+)(h|ms|µs|us|ns|m|s)", s):
    t+=float(n)*{"h":3600,"m":60,"s":1,"ms":1e-3,"µs":1e-6,"us":1e-6,"ns":1e-9}[u]
print(t)' "$el" >>"$tmp/t"
		awk -F': ' '/Maximum resident set size/ {print $2/1024}' "$tmp/err" >>"$tmp/m"
		awk -F': ' '/User time \(seconds\)/ {u=$2} /System time \(seconds\)/ {s=$2} END {print u+s}' "$tmp/err" >>"$tmp/c"
	done
	bytes="$(sed -E 's/.*bytes=([0-9]+).*/\1/' <<<"$line")"
	result="$(sed -E 's/.*result="(.*)"$/\1/' <<<"$line" | cut -c1-90)"
	printf '| %s %s | %s B | %s s | %s s | %s MiB | %s |\n' "$name" "${parts[*]:1}" "$bytes" \
		"$(median <"$tmp/t" | xargs printf '%.3g')" "$(median <"$tmp/c" | xargs printf '%.3g')" \
		"$(median <"$tmp/m" | xargs printf '%.1f')" "$result"
done
