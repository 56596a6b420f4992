#!/bin/sh
# Compares the browser package with agent-browser (the CLI behind
# hermes-agent's browser tools) on the same local page and the same
# Chromium, and prints a Markdown table (docs/benchmarks.md). agent-browser
# is installed into a cache folder (not by CI).
#
#   bench/browser/run.sh [-runs N]
set -eu
cd "$(dirname "$0")/../.."
cache="${XDG_CACHE_HOME:-$HOME/.cache}/hermes-acp-bench/agent-browser"
if [ ! -x "$cache/node_modules/agent-browser/bin/agent-browser-linux-x64" ]; then
	mkdir -p "$cache"
	npm install --no-audit --no-fund --prefix "$cache" agent-browser@0.41.2 >&2
fi
bin="$cache/node_modules/agent-browser/bin/agent-browser-linux-x64"
chmod +x "$bin"
exec go run ./bench/browser -agent-browser "$bin" "$@"
