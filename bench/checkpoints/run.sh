#!/usr/bin/env bash
# Measures the checkpoint engine (issue 29) on a generated workspace of
# FILES files (default 10000) against the git binary with a separate
# GIT_DIR, and prints a Markdown table of medians over RUNS runs (default 7)
# with the RSS growth. Run from the repository root:
#
#   bash bench/checkpoints/run.sh
#   FILES=50000 RUNS=5 bash bench/checkpoints/run.sh
set -euo pipefail

cd "$(dirname "$0")/../.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/checkpoints-bench" ./bench/checkpoints
"$tmp/checkpoints-bench" -files "${FILES:-10000}" -runs "${RUNS:-7}" -restore "${RESTORE:-100}"
echo >&2
echo "git: $(git --version 2>/dev/null || echo none); Go: $(go env GOVERSION); $(nproc) CPUs" >&2
