package schematest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func TestChecker(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		lines     [][2]string // from ("c"/"a"), line
		wantFails int
	}{
		{"valid exchange", [][2]string{
			{"c", `{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`},
			{"a", `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s"}}`},
			{"a", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"current_mode_update","currentModeId":"m"}}}`},
			{"a", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`},
		}, 0},
		{"docs-example mode update", [][2]string{
			{"a", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"current_mode_update","modeId":"m"}}}`},
		}, 1},
		{"null session/load result", [][2]string{
			{"c", `{"jsonrpc":"2.0","id":2,"method":"session/load","params":{"sessionId":"s","cwd":"/w","mcpServers":[]}}`},
			{"a", `{"jsonrpc":"2.0","id":2,"result":null}`},
		}, 1},
		{"unknown notification", [][2]string{{"a", `{"jsonrpc":"2.0","method":"_x/y","params":{}}`}}, 1},
		{"notice update", [][2]string{
			{"a", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"notice","severity":"warning","title":"T","description":"D"}}}`},
		}, 0},
		{"notice without title", [][2]string{
			{"a", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"notice","severity":"warning","title":""}}}`},
		}, 1},
		{"unstable session/fork result", [][2]string{
			{"c", `{"jsonrpc":"2.0","id":3,"method":"session/fork","params":{"sessionId":"s","cwd":"/w"}}`},
			{"a", `{"jsonrpc":"2.0","id":3,"result":{"sessionId":"s2"}}`},
		}, 0},
		{"session/fork result without sessionId", [][2]string{
			{"c", `{"jsonrpc":"2.0","id":4,"method":"session/fork","params":{"sessionId":"s","cwd":"/w"}}`},
			{"a", `{"jsonrpc":"2.0","id":4,"result":{}}`},
		}, 1},
		{"tool call without title", [][2]string{
			{"a", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"tool_call","toolCallId":"c"}}}`},
		}, 1},
		{"bad diagnostics", [][2]string{
			{"a", `{"jsonrpc":"2.0","method":"_hermes/publishDiagnostics","params":{"sessionId":"s","uri":"/not/a/uri","diagnostics":[]}}`},
		}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := New()
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range tc.lines {
				c.Line(l[0] == "a", []byte(l[1]))
			}
			if got := len(c.Errors()); got != tc.wantFails {
				t.Errorf("violations = %d (%v), want %d", got, c.Errors(), tc.wantFails)
			}
		})
	}
}

// TestSchemaIsTheSDKs: the vendored ACP schema is the one the TypeScript
// SDK of conformance/ bundles, so that the Go tests and the SDK's own
// validation agree on what is valid.
func TestSchemaIsTheSDKs(t *testing.T) {
	sdk := filepath.Join("..", "..", "conformance", "node_modules", "@agentclientprotocol", "sdk")
	pkg, err := os.ReadFile(filepath.Join(sdk, "package.json"))
	if err != nil {
		t.Fatalf("the TypeScript SDK is not installed: run `npm ci --prefix conformance` (make check does): %v", err)
	}
	var meta struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(pkg, &meta); err != nil {
		t.Fatal(err)
	}
	bundled, err := os.ReadFile(filepath.Join(sdk, "schema", "v1", "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bundled, acpSchema) {
		t.Errorf("internal/schematest/schema/acp-v1.json differs from the schema @agentclientprotocol/sdk %s bundles: copy %s/schema/v1/schema.json there", meta.Version, sdk)
	}
	unstable, err := os.ReadFile(filepath.Join(sdk, "schema", "v1", "schema.unstable.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(unstable, acpUnstableSchema) {
		t.Errorf("internal/schematest/schema/acp-v1-unstable.json differs from the schema @agentclientprotocol/sdk %s bundles: copy %s/schema/v1/schema.unstable.json there", meta.Version, sdk)
	}
}
