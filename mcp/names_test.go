package mcp

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-acp/hermes-acp/registry"
)

func TestToolName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		server, tool, want string
	}{
		{"test", "add", "mcp_test_add"},
		{"fs", "read_file", "mcp_fs_read_file"},
		// Hyphens are valid in model tool names and kept.
		{"my-server", "get-sum", "mcp_my-server_get-sum"},
		// Everything outside [A-Za-z0-9_-] becomes '_', one per character
		// (not per byte).
		{"a.b", "x y/z", "mcp_a_b_x_y_z"},
		{"café", "naïve:tool", "mcp_caf__na_ve_tool"},
		{"srv", "tool@name!", "mcp_srv_tool_name_"},
		{"", "", "mcp__"},
		// Exactly 64 characters is kept whole.
		{"s", strings.Repeat("t", 64-len("mcp_s_")), "mcp_s_" + strings.Repeat("t", 64-len("mcp_s_"))},
	} {
		if got := toolName(tc.server, tc.tool); got != tc.want {
			t.Errorf("toolName(%q, %q) = %q, want %q", tc.server, tc.tool, got, tc.want)
		}
	}
}

// TestToolNameLong ports hermes's clamp case (issue #81331): names past
// the 64-character limit of the model APIs are cut with a stable hash
// suffix, and distinct long names do not collide.
func TestToolNameLong(t *testing.T) {
	t.Parallel()
	server := "agent_plugin_my_server_997167c9__my_server"
	todo := toolName(server, "reply_communication_todo")
	task := toolName(server, "reply_communication_task")
	for _, n := range []string{todo, task} {
		if len(n) != maxToolNameLen {
			t.Errorf("toolName = %q (%d characters), want %d", n, len(n), maxToolNameLen)
		}
		if want := ("mcp_" + server + "_reply_communication")[:maxToolNameLen-9]; !strings.HasPrefix(n, want) {
			t.Errorf("toolName = %q, want the prefix %q", n, want)
		}
	}
	if todo == task {
		t.Errorf("two long tools share the name %q", todo)
	}
	if again := toolName(server, "reply_communication_todo"); again != todo {
		t.Errorf("toolName is not stable: %q then %q", todo, again)
	}
	// The hash covers the raw names, so names that sanitise alike still differ.
	long := strings.Repeat("x", 70)
	if a, b := toolName("a.b", long), toolName("a_b", long); a == b {
		t.Errorf("servers a.b and a_b give the same long name %q", a)
	}
}

func TestUniqueToolName(t *testing.T) {
	t.Parallel()
	at64 := "mcp_s_" + strings.Repeat("t", 58)
	for _, tc := range []struct {
		base  string
		taken []string
		want  string
	}{
		{"mcp_s_a", nil, "mcp_s_a"},
		{"mcp_s_a", []string{"mcp_s_a"}, "mcp_s_a_2"},
		{"mcp_s_a", []string{"mcp_s_a", "mcp_s_a_2", "mcp_s_a_3"}, "mcp_s_a_4"},
		// A suffix never makes the name longer than 64: the base is cut.
		{at64, []string{at64}, at64[:62] + "_2"},
		{at64, append([]string{at64}, func() []string {
			var out []string
			for i := 2; i <= 9; i++ {
				out = append(out, at64[:62]+"_"+string(rune('0'+i)))
			}
			return out
		}()...), at64[:61] + "_10"},
	} {
		got := uniqueToolName(tc.base, func(n string) bool { return slices.Contains(tc.taken, n) })
		if got != tc.want || len(got) > maxToolNameLen {
			t.Errorf("uniqueToolName(%q, taken %q) = %q, want %q", tc.base, tc.taken, got, tc.want)
		}
	}
}

// registryNames lists the tools of reg in toolset.
func registryNames(reg *registry.Registry, toolset string) []string {
	names := reg.Snapshot().ToolsetTools(toolset)
	slices.Sort(names)
	return names
}

// TestApplyNames: tools whose names sanitise alike, collide with a tool
// already in the registry or with another server's tool get the first free
// suffix; a tool keeps its name while it exists, and a removed tool frees
// its name.
func TestApplyNames(t *testing.T) {
	t.Parallel()
	reg := registry.New(nil)
	builtin := registry.Entry{Name: "mcp_srv_builtin", Toolset: "files",
		Handler: func(context.Context, *registry.Call) (registry.Result, error) { return registry.OK(struct{}{}), nil }}
	if err := reg.Register(builtin); err != nil {
		t.Fatal(err)
	}
	m := New(Options{Registry: reg, Servers: []Server{{Name: "srv"}, {Name: "s.x"}, {Name: "s_x"}}})
	srv, sx1, sx2 := m.conns[0], m.conns[1], m.conns[2]
	tools := func(names ...string) []*mcpsdk.Tool {
		var out []*mcpsdk.Tool
		for _, n := range names {
			out = append(out, &mcpsdk.Tool{Name: n, InputSchema: map[string]any{"type": "object"}})
		}
		return out
	}

	srv.apply(tools("a.b", "a_b", "builtin", "plain"))
	want := []string{"mcp_srv_a_b", "mcp_srv_a_b_2", "mcp_srv_builtin_2", "mcp_srv_plain"}
	if diff := cmp.Diff(want, registryNames(reg, "mcp-srv")); diff != "" {
		t.Errorf("tools after the first list (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"a.b": "mcp_srv_a_b", "a_b": "mcp_srv_a_b_2", "builtin": "mcp_srv_builtin_2", "plain": "mcp_srv_plain"}, srv.names); diff != "" {
		t.Errorf("names (-want +got):\n%s", diff)
	}
	if e, _ := reg.Snapshot().Lookup("mcp_srv_builtin"); e.Toolset != "files" {
		t.Errorf("the registry's own mcp_srv_builtin now belongs to %q", e.Toolset)
	}

	// Listed again in another order: every tool keeps its name.
	srv.apply(tools("plain", "builtin", "a_b", "a.b"))
	if diff := cmp.Diff(want, registryNames(reg, "mcp-srv")); diff != "" {
		t.Errorf("tools after a reordered list (-want +got):\n%s", diff)
	}

	// a.b is gone: its name is free again, a_b keeps its own.
	srv.apply(tools("a_b", "plain"))
	if diff := cmp.Diff([]string{"mcp_srv_a_b_2", "mcp_srv_plain"}, registryNames(reg, "mcp-srv")); diff != "" {
		t.Errorf("tools after a.b went away (-want +got):\n%s", diff)
	}
	if _, taken := m.reserved["mcp_srv_a_b"]; taken {
		t.Errorf("mcp_srv_a_b is still reserved after its tool went away")
	}

	// Servers whose names sanitise alike do not take each other's tools.
	sx1.apply(tools("t"))
	sx2.apply(tools("t"))
	if got, want := registryNames(reg, "mcp-s.x"), []string{"mcp_s_x_t"}; !slices.Equal(got, want) {
		t.Errorf("server s.x's tools = %q, want %q", got, want)
	}
	if got, want := registryNames(reg, "mcp-s_x"), []string{"mcp_s_x_t_2"}; !slices.Equal(got, want) {
		t.Errorf("server s_x's tools = %q, want %q", got, want)
	}

	srv.forget()
	if got := registryNames(reg, "mcp-srv"); len(got) != 0 {
		t.Errorf("tools after forget = %q, want none", got)
	}
	if !reg.Snapshot().Has("mcp_srv_builtin") {
		t.Errorf("forget removed the registry's own mcp_srv_builtin")
	}
}

// TestApplyEntry: the registered entry names its server in the
// description, keeps the input schema, uses the MCP result threshold and
// follows the server's parallel opt-in; the server's name becomes an alias
// of its toolset unless it is a static toolset's name.
func TestApplyEntry(t *testing.T) {
	t.Parallel()
	reg := registry.New(nil)
	static := func(name string) bool { return name == "web" }
	m := New(Options{Registry: reg, IsStaticToolset: static, Servers: []Server{
		{Name: "par", ParallelToolCalls: true}, {Name: "web"},
	}})
	schema := map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"type": "number"}}}
	m.conns[0].apply([]*mcpsdk.Tool{
		{Name: "add", Description: "  Add two numbers.\n", InputSchema: schema},
		{Name: "bare", InputSchema: map[string]any{"type": "object"}},
	})
	m.conns[1].apply([]*mcpsdk.Tool{{Name: "get", InputSchema: map[string]any{"type": "object"}}})
	snap := reg.Snapshot()

	add, ok := snap.Lookup("mcp_par_add")
	if !ok {
		t.Fatalf("mcp_par_add not registered; tools: %q", snap.Names())
	}
	if want := "[MCP server par] Add two numbers."; add.Description != want {
		t.Errorf("description = %q, want %q", add.Description, want)
	}
	if diff := cmp.Diff(schema, add.Schema); diff != "" {
		t.Errorf("schema (-want +got):\n%s", diff)
	}
	if add.MaxResultChars != registry.DefaultMCPResultChars || !add.ParallelSafe || add.Toolset != "mcp-par" {
		t.Errorf("entry = {MaxResultChars: %d, ParallelSafe: %v, Toolset: %q}, want {%d, true, mcp-par}",
			add.MaxResultChars, add.ParallelSafe, add.Toolset, registry.DefaultMCPResultChars)
	}
	if bare, _ := snap.Lookup("mcp_par_bare"); bare.Description != "[MCP server par] Tool bare." {
		t.Errorf("description of a tool without one = %q", bare.Description)
	}
	if get, _ := snap.Lookup("mcp_web_get"); get.ParallelSafe {
		t.Errorf("a server without the opt-in has parallel-safe tools")
	}
	if target, ok := snap.AliasTarget("par"); !ok || target != "mcp-par" {
		t.Errorf("alias par = %q, %v; want mcp-par", target, ok)
	}
	if target, ok := snap.AliasTarget("web"); ok {
		t.Errorf("alias web = %q; a static toolset's name must not be taken", target)
	}
}

func TestToolSchema(t *testing.T) {
	t.Parallel()
	type props struct {
		Type string `json:"type"`
	}
	for _, tc := range []struct {
		name string
		in   any
		want map[string]any
	}{
		{"map", map[string]any{"type": "object"}, map[string]any{"type": "object"}},
		{"struct", props{Type: "object"}, map[string]any{"type": "object"}},
		{"nil", nil, nil},
		{"not an object", []any{1}, nil},
	} {
		if diff := cmp.Diff(tc.want, toolSchema(tc.in)); diff != "" {
			t.Errorf("%s: toolSchema (-want +got):\n%s", tc.name, diff)
		}
	}
}
