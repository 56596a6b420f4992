package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-acp/hermes-acp/internal/mcptest"
	"github.com/hermes-acp/hermes-acp/registry"
)

// notes collects the messages a set tells the user.
type notes struct {
	mu    sync.Mutex // guards texts
	texts []string
}

func (n *notes) tell(text string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.texts = append(n.texts, text)
}

func (n *notes) all() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.texts)
}

var testTools = []string{"add", "big", "crash", "echo", "env", "fail", "grow", "image", "slow", "structured"}

// TestSetOverHTTP drives a set with no session around it: the servers'
// tools land in the registry it was given, calls return what the model
// reads with the server's error flag, a server that cannot start is told
// through Notify, a later server of the same name replaces an earlier one,
// and Close removes every tool.
func TestSetOverHTTP(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server {
		return mcptest.NewServer(mcptest.Options{})
	}, nil))
	t.Cleanup(ts.Close)
	reg := registry.New(nil)
	var told notes
	m := New(Options{
		Registry: reg,
		Notify:   told.tell,
		Servers: []Server{
			{Name: "web", Transport: TransportHTTP, URL: "ftp://127.0.0.1/replaced"},
			{Name: "bad", Transport: TransportHTTP, URL: "ftp://127.0.0.1/mcp"},
			{Name: "odd", Transport: "carrier-pigeon"},
			{Name: "web", Transport: TransportHTTP, URL: ts.URL},
		},
	})
	if got := len(m.conns); got != 3 {
		t.Fatalf("connections = %d, want 3 (web, bad, odd)", got)
	}
	m.Start()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	m.Settle(ctx)

	want := make([]string, len(testTools))
	for i, tool := range testTools {
		want[i] = "mcp_web_" + tool
	}
	if diff := cmp.Diff(want, registryNames(reg, "mcp-web")); diff != "" {
		t.Errorf("tools registered (-want +got):\n%s", diff)
	}
	wantTold := []string{
		`⚠️ MCP server "bad" failed to start: url "ftp://127.0.0.1/mcp" is not an http(s) URL` + "\n\n",
		`⚠️ MCP server "odd" failed to start: unknown MCP transport "carrier-pigeon"` + "\n\n",
	}
	got := told.all()
	slices.Sort(got)
	if diff := cmp.Diff(wantTold, got); diff != "" {
		t.Errorf("messages for the user (-want +got):\n%s", diff)
	}

	web := m.conns[0]
	for _, tc := range []struct {
		tool      string
		args      map[string]any
		want      any
		wantError bool
	}{
		{"add", map[string]any{"a": 2, "b": 3}, "5", false},
		{"fail", nil, mcptest.FailMessage, true},
		{"structured", nil, map[string]any{"x": float64(1), "y": float64(2)}, false},
		{"nosuchtool", nil, nil, true},
	} {
		got, isError, err := web.call(ctx, tc.tool, tc.args)
		if err != nil {
			t.Errorf("call %s: %v", tc.tool, err)
			continue
		}
		if tc.want == nil { // only the flag and the server's name are ours
			s, _ := got.(string)
			if !isError || !strings.Contains(s, `MCP server "web"`) {
				t.Errorf("call %s = %#v, %v; want an error result naming the server", tc.tool, got, isError)
			}
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" || isError != tc.wantError {
			t.Errorf("call %s = %#v, %v; want %#v, %v", tc.tool, got, isError, tc.want, tc.wantError)
		}
	}

	m.Close()
	if got := registryNames(reg, "mcp-web"); len(got) != 0 {
		t.Errorf("tools after Close = %q, want none", got)
	}
	if _, ok := reg.Snapshot().AliasTarget("web"); ok {
		t.Errorf("alias web still registered after Close")
	}
	got2, isError, err := web.call(ctx, "add", map[string]any{"a": 1, "b": 1})
	if want := `MCP server "web" is not connected`; err != nil || !isError || got2 != want {
		t.Errorf("call after Close = %#v, %v, %v; want %q, true, nil", got2, isError, err, want)
	}
}

// TestCallCancelled: a call whose context ends returns the context's
// error (the turn was cancelled), not a result for the model.
func TestCallCancelled(t *testing.T) {
	t.Parallel()
	ts := httptest.NewServer(mcpsdk.NewStreamableHTTPHandler(func(*http.Request) *mcpsdk.Server {
		return mcptest.NewServer(mcptest.Options{})
	}, nil))
	t.Cleanup(ts.Close)
	m := New(Options{Registry: registry.New(nil), Servers: []Server{{Name: "web", Transport: TransportHTTP, URL: ts.URL}}})
	defer m.Close()
	m.Start()
	m.Settle(t.Context())
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	got, isError, err := m.conns[0].call(ctx, "slow", map[string]any{"ms": 600000})
	if err == nil || !strings.Contains(err.Error(), "call slow on MCP server web: context canceled") {
		t.Errorf("call with a cancelled context = %#v, %v, %v; want the context's error", got, isError, err)
	}
}

func TestNewWithoutServers(t *testing.T) {
	t.Parallel()
	if m := New(Options{Registry: registry.New(nil)}); m != nil {
		t.Errorf("New without servers = %v, want nil", m)
	}
	var m *Set // a nil set has no servers and every method is a no-op
	m.Start()
	m.Settle(t.Context())
	m.Close()
}
