#!/usr/bin/env bash
# Measures a shell command's output travelling through an ACP agent that runs
# the command itself (the client advertises no `terminal` capability):
# hermes-acp next to codex-acp, on the same commands in the same run.
#
#   bash bench/terminal/run.sh                          # builds hermes-acp from this tree
#   bash bench/terminal/run.sh -- /path/to/hermes-acp   # an existing hermes-acp binary
#   RUNS=3 bash bench/terminal/run.sh --budget 2m --    # fewer runs; flags before "--" go to the benchmark
#
# Scenarios (see `go run ./bench/acp terminal -h`): `echo hi` (one terminal
# turn, the ratio), `seq 1 35000` and 5 MB of output (`head -c 5000000
# /dev/zero | tr '\0' a | fold -w 100`). Each is a fresh agent process with a
# fresh home and workspace; per agent and scenario the median of RUNS runs
# (default 5), fewer when one scenario's runs take longer than --budget
# (default 6m; the table then says "capped by the budget"). Reported per run:
# prompt request → reply, that minus the time the fake model served,
# session/update notifications (and tool_call_update ones), their JSON bytes,
# the largest, and the RSS of the agent's whole process tree sampled every
# 20 ms (peak and growth over the value before the prompt).
#
# hermes-acp talks to an in-process fake Chat Completions server
# (model/modeltest) that calls its `terminal` tool with {"command": …}. Until
# hermes-acp has that tool its columns say "pending the terminal tool".
#
# codex-acp (npm @zed-industries/codex-acp, CODEX_ACP_VERSION, default
# 0.16.0) is installed with npm into a cache folder (CODEX_ACP_CACHE, default
# ${XDG_CACHE_HOME:-~/.cache}/hermes-acp-bench/codex-acp-VERSION) when it is
# not there yet; its native binary is run directly. Each run writes a
# CODEX_HOME/config.toml that makes a loopback fake Responses API the only
# model provider (wire_api = "responses", a dummy key in BENCH_FAKE_API_KEY),
# with approval_policy = "never", sandbox_mode = "danger-full-access",
# analytics, feedback, OpenTelemetry export, update checks, websockets and web
# search off. The fake answers the first request with a call of the shell tool
# codex offers (exec_command with codex's defaults) and the one carrying the
# output with a short text. codex-acp runs twice per scenario: as seen by this
# plain client, and as seen by a client that advertises Zed's
# `_meta.terminal_output` (into which codex-acp streams output deltas).
# CODEX_ACP=/path/to/codex-acp skips the install; CODEX_ACP=none measures
# hermes-acp alone.
#
# Every agent gets HOME set to a fresh folder, so the login shells agents
# start read no dotfiles of this machine. Nothing leaves loopback. The
# Markdown report goes to stdout, progress to stderr. Benchmarks are run by
# hand, never in CI (they download codex-acp and take minutes).
set -euo pipefail

caller="$PWD"
cd "$(dirname "$0")/../.."
runs="${RUNS:-5}"
version="${CODEX_ACP_VERSION:-0.16.0}"
invocation="bash bench/terminal/run.sh"
if [ $# -gt 0 ]; then
	invocation+="$(printf ' %q' "$@")"
fi
flags=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	flags+=("$1")
	shift
done
hermes=""
if [ $# -gt 0 ]; then
	shift
	hermes="${1:-}"
	if [ -n "$hermes" ] && [[ "$hermes" != /* ]]; then
		hermes="$caller/$hermes"
	fi
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "Building the benchmark${hermes:+ (hermes-acp: $hermes)}..." >&2
go build -o "$tmp/bench-acp" ./bench/acp
if [ -z "$hermes" ]; then
	CGO_ENABLED=0 go build -o "$tmp/hermes-acp" ./cmd/hermes-acp # static, as shipped
	hermes="$tmp/hermes-acp"
fi

codex="${CODEX_ACP:-}"
label="codex-acp"
if [ -z "$codex" ]; then
	label="codex-acp $version"
	case "$(uname -s)-$(uname -m)" in
	Linux-x86_64) platform=linux-x64 ;;
	Linux-aarch64 | Linux-arm64) platform=linux-arm64 ;;
	Darwin-x86_64) platform=darwin-x64 ;;
	Darwin-arm64) platform=darwin-arm64 ;;
	*) echo "bench/terminal: no codex-acp build for $(uname -sm); set CODEX_ACP=none" >&2; exit 1 ;;
	esac
	cache="${CODEX_ACP_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hermes-acp-bench/codex-acp-$version}"
	codex="$cache/node_modules/@zed-industries/codex-acp-$platform/bin/codex-acp"
	if [ ! -x "$codex" ]; then
		echo "Installing @zed-industries/codex-acp@$version into $cache..." >&2
		mkdir -p "$cache"
		npm install --prefix "$cache" --no-audit --no-fund --no-save "@zed-industries/codex-acp@$version" >&2
	fi
	if [ ! -x "$codex" ]; then
		echo "bench/terminal: npm installed no $codex" >&2
		exit 1
	fi
fi

agents=(--hermes "$(printf '%q' "$hermes")")
if [ "$codex" != none ]; then
	agents+=(--codex "$(printf '%q' "$codex")" --name "$label"
		--codex "$(printf '%q' "$codex")" --name "$label, Zed client" --zed-terminal-output)
fi

echo "## Terminal output: hermes-acp vs codex-acp"
echo
echo "- Script: \`$invocation\` (RUNS=$runs)"
echo "- Go: $(go version); machine: $(nproc) CPUs, $(uname -sm), $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo 2>/dev/null || echo '? GiB'), load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
if [ "$codex" != none ]; then
	echo "- codex-acp: \`$codex\`"
fi
echo
"$tmp/bench-acp" terminal --runs "$runs" "${agents[@]}" "${flags[@]}"
