package deps

import (
	_ "github.com/BurntSushi/toml"
	_ "github.com/coder/acp-go-sdk"
	_ "github.com/fsnotify/fsnotify"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/modelcontextprotocol/go-sdk/mcp"
	_ "github.com/openai/openai-go/v3"
	_ "github.com/santhosh-tekuri/jsonschema/v6"
	_ "github.com/sergi/go-diff/diffmatchpatch"
	_ "github.com/sourcegraph/jsonrpc2"
	_ "go.lsp.dev/protocol"
	_ "golang.org/x/mod/modfile"
	_ "golang.org/x/tools/txtar"
	_ "gopkg.in/yaml.v3"
	_ "modernc.org/sqlite"
)
