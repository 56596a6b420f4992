#!/usr/bin/env bash
# Compares search_files (in process) with ripgrep on the same content
# queries over $(go env GOROOT)/src and prints a Markdown table: matches
# found by each side, median wall time of RUNS runs each (after one warm-up
# run), and the ratio. Run from the repository root:
#
#   bash bench/search/run.sh            # RUNS=20
#   RUNS=50 ROOT=/some/tree bash bench/search/run.sh
#
# Needs Go. Installs ripgrep with apt-get when rg is missing (as root, or
# with sudo when available). The table goes to stdout, progress to stderr.
set -euo pipefail

cd "$(dirname "$0")/../.."
runs="${RUNS:-20}"
root="${ROOT:-$(go env GOROOT)/src}"

if ! command -v rg >/dev/null 2>&1; then
	echo "rg not found; installing ripgrep with apt-get..." >&2
	sudo=""
	if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null 2>&1; then
		sudo="sudo"
	fi
	$sudo apt-get update -qq >&2
	$sudo apt-get install -y -qq ripgrep >&2
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/search-bench" ./bench/search

echo "Searching $root ($runs runs per side and query)..." >&2
"$tmp/search-bench" -root "$root" -runs "$runs"

echo >&2
echo "ripgrep: $(rg --version | sed -n 1p); Go: $(go env GOVERSION)" >&2
echo "Machine: $(go env GOOS)/$(go env GOARCH), $(nproc 2>/dev/null || echo '?') CPUs, load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')" >&2
