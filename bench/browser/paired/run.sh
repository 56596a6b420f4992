#!/bin/sh
# Runs paired/main.go: the browser package of commit BEFORE (default d06a367,
# main before issue 26's URL policy) against this tree's, in one process.
#
#   bench/browser/paired/run.sh [-before COMMIT] [-rounds N]
set -eu
cd "$(dirname "$0")/../../.."
root=$(pwd)
before=d06a367
if [ "${1:-}" = "-before" ]; then before=$2; shift 2; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/before"
git archive "$before" browser | tar -x -C "$tmp"
rm -rf "$tmp/before" && mv "$tmp/browser" "$tmp/before" && rm -f "$tmp"/before/*_test.go && rm -rf "$tmp/before/testdata"
cp bench/browser/paired/main.go "$tmp/main.go"
sed -i '/^\/\/go:build ignore/d' "$tmp/main.go"
cat > "$tmp/go.mod" <<MOD
module paired

go 1.26

require github.com/hermes-acp/hermes-acp v0.0.0

replace github.com/hermes-acp/hermes-acp => $root
MOD
cp go.sum "$tmp/go.sum"
cd "$tmp"
GOFLAGS=-mod=mod go mod tidy >/dev/null 2>&1 || GOFLAGS=-mod=mod go mod tidy
go build -o paired . 
./paired "$@"
