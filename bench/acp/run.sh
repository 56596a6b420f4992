#!/usr/bin/env bash
# Measures hermes-acp as an ACP agent (start to initialize reply, session/new,
# RSS after session/new, prompt-turn overhead against a fake model server,
# exit) and, given a peer agent command, the same for the peer with the ratio
# ours/theirs. Prints Markdown tables on stdout, progress on stderr.
# Run from anywhere; needs only Go:
#
#   bash bench/acp/run.sh                        # hermes-acp alone, RUNS=20
#   bash bench/acp/run.sh -- stripped            # default build vs -trimpath -ldflags="-s -w"
#   bash bench/acp/run.sh -- minimal             # vs a minimal Go agent (the floor)
#   bash bench/acp/run.sh -- sdk-example         # vs the ACP Go SDK example agent
#   bash bench/acp/run.sh --other-no-prompt --other-auth openai-api-key \
#       --other-env CODEX_HOME={home} -- /path/to/codex-acp \
#       -c 'openai_base_url="{base_url}"'        # vs another agent
#
# Arguments before "--" are extra flags for the benchmark program (see
# `go run ./bench/acp -h`); after "--" comes the peer command. Three peers
# are built here: `stripped` is hermes-acp built with -trimpath -ldflags="-s
# -w", `minimal` is bench/acp/minimalagent (the smallest Go agent that
# streams a model reply: the floor on this machine), `sdk-example` is
# github.com/coder/acp-go-sdk/example/agent from the module cache (it needs
# no model, so its prompts are not measured).
# RUNS (default 20) sets the measured runs per agent.
set -euo pipefail

caller="$PWD"
cd "$(dirname "$0")/../.."
runs="${RUNS:-20}"
invocation="bash bench/acp/run.sh"
if [ $# -gt 0 ]; then
	invocation+="$(printf ' %q' "$@")"
fi
flags=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	flags+=("$1")
	shift
done
peer=()
if [ $# -gt 0 ]; then
	shift
	peer=("$@")
	# A relative peer path is relative to where the script was started.
	if [ "${#peer[@]}" -gt 0 ] && [[ "${peer[0]}" == */* ]] && [[ "${peer[0]}" != /* ]]; then
		peer[0]="$caller/${peer[0]}"
	fi
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

size() { wc -c <"$1" | tr -d ' '; }

echo "Building hermes-acp and the benchmark..." >&2
CGO_ENABLED=0 go build -o "$tmp/hermes-acp" ./cmd/hermes-acp # static, as shipped
CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$tmp/hermes-acp-stripped" ./cmd/hermes-acp
go build -o "$tmp/bench-acp" ./bench/acp

if [ "${#peer[@]}" -eq 1 ]; then
	case "${peer[0]}" in
	stripped)
		peer=("$tmp/hermes-acp-stripped")
		flags+=(--other-name 'hermes-acp (-s -w)')
		;;
	minimal)
		go build -o "$tmp/minimalagent" ./bench/acp/minimalagent
		peer=("$tmp/minimalagent")
		;;
	sdk-example)
		go build -o "$tmp/sdk-example-agent" github.com/coder/acp-go-sdk/example/agent
		peer=("$tmp/sdk-example-agent")
		flags+=(--other-no-prompt --other-name acp-go-sdk-example)
		;;
	esac
fi

cmd=("$tmp/bench-acp" --runs "$runs" "${flags[@]}")
if [ "${#peer[@]}" -gt 0 ]; then
	cmd+=(--compare -- "$tmp/hermes-acp" -- "${peer[@]}")
else
	cmd+=(-- "$tmp/hermes-acp")
fi

default_size="$(size "$tmp/hermes-acp")"
stripped_size="$(size "$tmp/hermes-acp-stripped")"
echo "## hermes-acp ACP benchmark"
echo
echo "- Script: \`$invocation\` (RUNS=$runs)"
echo "- Go: $(go version); machine: $(nproc) CPUs, $(uname -sm), load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
echo "- Binary sizes: default \`CGO_ENABLED=0 go build\` $default_size bytes ($((default_size / 1048576)) MiB, measured below);" \
	"\`CGO_ENABLED=0 go build -trimpath -ldflags=\"-s -w\"\` $stripped_size bytes ($((stripped_size / 1048576)) MiB)"
echo
"${cmd[@]}"
