#!/usr/bin/env bash
# Times process start → first answer for programs that only link a set of
# packages (main reads a line and answers), next to hermes-acp answering
# initialize: the start-up floor each required library imposes. Run from
# anywhere; needs only Go.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo="$PWD"
runs="${RUNS:-20}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/startfloor" ./bench/startfloor
CGO_ENABLED=0 go build -o "$tmp/hermes-acp" ./cmd/hermes-acp # static, as shipped

# A module with the repository's requirements, for the floor programs.
mkdir -p "$tmp/floor"
{ echo "module floor"; echo "go 1.26"; sed -n '/^require (/,/^)/p' go.mod; } > "$tmp/floor/go.mod"
cp go.sum "$tmp/floor/go.sum"
# A replace lets the floor module resolve the same versions offline.
program() { # name, imports...
	local name="$1"; shift
	mkdir -p "$tmp/floor/$name"
	{
		echo 'package main'
		echo 'import ('
		echo '	"bufio"'
		echo '	"os"'
		for p in "$@"; do echo "	_ \"$p\""; done
		echo ')'
		echo 'func main() { bufio.NewReader(os.Stdin).ReadString(10); os.Stdout.WriteString("{}\n") }'
	} > "$tmp/floor/$name/main.go"
}
program stdlib-only
program yaml gopkg.in/yaml.v3
program net-http net/http
program openai-go github.com/openai/openai-go/v3
program required-modules \
	github.com/openai/openai-go/v3 modernc.org/sqlite github.com/modelcontextprotocol/go-sdk/mcp \
	go.lsp.dev/protocol github.com/sourcegraph/jsonrpc2 github.com/fsnotify/fsnotify gopkg.in/yaml.v3 \
	github.com/BurntSushi/toml golang.org/x/mod/modfile github.com/sergi/go-diff/diffmatchpatch
(cd "$tmp/floor" && go mod tidy >/dev/null 2>&1 && for d in */; do CGO_ENABLED=0 go build -o "$tmp/bin-${d%/}" "./$d"; done)

echo "Machine: $(go env GOOS)/$(go env GOARCH), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg); $(go env GOVERSION); $runs starts each"
echo
echo "| program | start → answer |"
echo "|---|---:|"
for name in stdlib-only yaml net-http openai-go required-modules; do
	echo "| $name | $("$tmp/startfloor" -runs "$runs" "$tmp/bin-$name") |"
done
echo "| hermes-acp (initialize) | $("$tmp/startfloor" -runs "$runs" "$tmp/hermes-acp") |"
