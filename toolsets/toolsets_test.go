package toolsets

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hermes-acp/hermes-acp/registry"
)

// snapshotWith registers tools (name → toolset) and aliases (alias → toolset).
func snapshotWith(t *testing.T, tools map[string]string, aliases map[string]string) *registry.Snapshot {
	t.Helper()
	r := registry.New(nil)
	for name, toolset := range tools {
		err := r.Register(registry.Entry{Name: name, Toolset: toolset})
		if err != nil {
			t.Fatalf("Register(%s): %v", name, err)
		}
	}
	for a, ts := range aliases {
		if err := r.RegisterAlias(a, ts); err != nil {
			t.Fatal(err)
		}
	}
	return r.Snapshot()
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

func TestHermesACPToolset(t *testing.T) {
	t.Parallel()
	want := []string{
		"web_search", "web_extract", "terminal", "process", "read_file", "write_file", "patch",
		"search_files", "vision_analyze", "skills_list", "skill_view", "skill_manage",
		"browser_navigate", "browser_snapshot", "browser_click", "browser_type", "browser_scroll",
		"browser_back", "browser_press", "browser_get_images", "browser_vision", "browser_console",
		"browser_cdp", "browser_dialog", "todo", "memory", "session_search", "execute_code",
		"delegate_task",
	}
	ts, ok := Lookup("hermes-acp")
	if !ok {
		t.Fatal(`Lookup("hermes-acp") not found`)
	}
	if diff := cmp.Diff(want, ts.Tools); diff != "" {
		t.Errorf("hermes-acp tools (-want +got):\n%s", diff)
	}
	if len(ts.Tools) != 29 || len(ts.Includes) != 0 {
		t.Errorf("hermes-acp has %d tools and includes %v, want 29 and none", len(ts.Tools), ts.Includes)
	}
	if ts.Description != "Editor integration (VS Code, Zed, JetBrains) — coding-focused tools without messaging, audio, or clarify UI" {
		t.Errorf("hermes-acp description = %q", ts.Description)
	}
	got, ok := Resolve("hermes-acp", nil)
	if !ok {
		t.Fatal(`Resolve("hermes-acp") not found`)
	}
	if diff := cmp.Diff(sorted(want), got); diff != "" {
		t.Errorf("Resolve(hermes-acp) (-want +got):\n%s", diff)
	}
	for _, excluded := range []string{"read_terminal", "close_terminal", "image_generate", "text_to_speech", "clarify", "cronjob", "ha_call_service", "kanban_show", "computer_use"} {
		if slices.Contains(got, excluded) {
			t.Errorf("hermes-acp offers %s", excluded)
		}
	}
	core := slices.Clone(coreTools)
	for _, tool := range want {
		if !slices.Contains(core, tool) {
			t.Errorf("hermes-acp tool %s is not a core tool", tool)
		}
	}
	coding, _ := Resolve("coding", nil)
	extra := slices.DeleteFunc(slices.Clone(coding), func(s string) bool { return slices.Contains(want, s) })
	if diff := cmp.Diff([]string{"clarify", "close_terminal", "read_terminal"}, extra); diff != "" {
		t.Errorf("coding minus hermes-acp (-want +got):\n%s", diff)
	}
}

func TestLookupReturnsCopies(t *testing.T) {
	t.Parallel()
	a, _ := Lookup("web")
	a.Tools[0] = "mutated"
	b, _ := Lookup("web")
	if b.Tools[0] != "web_search" {
		t.Errorf("Lookup exposes the table: %v", b.Tools)
	}
	if _, ok := Lookup("nope"); ok {
		t.Errorf("Lookup(nope) found something")
	}
}

func TestNames(t *testing.T) {
	t.Parallel()
	names := Names()
	if !slices.IsSorted(names) {
		t.Errorf("Names() not sorted: %v", names)
	}
	for _, n := range []string{"web", "search", "vision", "image_gen", "terminal", "file", "skills", "browser",
		"todo", "memory", "session_search", "code_execution", "delegation", "tts", "clarify", "cronjob",
		"debugging", "safe", "coding", "hermes-acp", "hermes-cli", "hermes-gateway"} {
		if !slices.Contains(names, n) {
			t.Errorf("Names() lacks %s", n)
		}
	}
	for _, n := range names {
		ts, _ := Lookup(n)
		for _, inc := range ts.Includes {
			if _, ok := Lookup(inc); !ok {
				t.Errorf("toolset %s includes unknown toolset %s", n, inc)
			}
		}
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	t.Run("includes", func(t *testing.T) {
		got, _ := Resolve("debugging", nil)
		want := []string{"patch", "process", "read_file", "search_files", "terminal", "web_extract", "web_search", "write_file"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Resolve(debugging) (-want +got):\n%s", diff)
		}
		got, _ = Resolve("safe", nil)
		if diff := cmp.Diff([]string{"image_generate", "vision_analyze", "web_extract", "web_search"}, got); diff != "" {
			t.Errorf("Resolve(safe) (-want +got):\n%s", diff)
		}
	})
	t.Run("all and star", func(t *testing.T) {
		union := map[string]bool{}
		for _, n := range Names() {
			tools, _ := Resolve(n, nil)
			for _, x := range tools {
				union[x] = true
			}
		}
		all, ok := Resolve("all", nil)
		star, _ := Resolve("*", nil)
		if !ok || len(all) != len(union) {
			t.Errorf("Resolve(all) = %d tools, want the union of every toolset (%d)", len(all), len(union))
		}
		if diff := cmp.Diff(all, star); diff != "" {
			t.Errorf("Resolve(*) differs from Resolve(all) (-all +star):\n%s", diff)
		}
	})
	t.Run("unknown", func(t *testing.T) {
		got, ok := Resolve("no-such-toolset", nil)
		if ok || got == nil || len(got) != 0 {
			t.Errorf("Resolve(unknown) = %v, %v; want [] and false", got, ok)
		}
	})
	t.Run("registry tools merged into built-in toolsets", func(t *testing.T) {
		reg := snapshotWith(t, map[string]string{"web_archive": "web", "mcp_gh_issues": "mcp-github", "mcp_gh_prs": "mcp-github",
			"mcp_pw_click": "mcp-browser"}, map[string]string{"github": "mcp-github", "browser": "mcp-browser"})
		got, _ := Resolve("web", reg)
		if diff := cmp.Diff([]string{"web_archive", "web_extract", "web_search"}, got); diff != "" {
			t.Errorf("Resolve(web) (-want +got):\n%s", diff)
		}
		for _, name := range []string{"mcp-github", "github"} {
			got, ok := Resolve(name, reg)
			if diff := cmp.Diff([]string{"mcp_gh_issues", "mcp_gh_prs"}, got); diff != "" || !ok {
				t.Errorf("Resolve(%s) ok=%v (-want +got):\n%s", name, ok, diff)
			}
		}
		got, _ = Resolve("browser", reg)
		if !slices.Contains(got, "mcp_pw_click") || !slices.Contains(got, "browser_navigate") {
			t.Errorf("Resolve(browser) = %v, want static tools plus the aliased MCP server's", got)
		}
		all, _ := Resolve("all", reg)
		for _, x := range []string{"web_archive", "mcp_gh_issues", "mcp_pw_click", "terminal"} {
			if !slices.Contains(all, x) {
				t.Errorf("Resolve(all) with registry lacks %s", x)
			}
		}
		if _, ok := Resolve("mcp-github", nil); ok {
			t.Errorf("registry-only toolset resolved without a registry")
		}
	})
}

func TestResolveCyclesAndDiamonds(t *testing.T) {
	t.Parallel()
	r := resolver{table: map[string]Toolset{
		"a":     {Name: "a", Tools: []string{"x"}, Includes: []string{"b"}},
		"b":     {Name: "b", Tools: []string{"y"}, Includes: []string{"a"}},
		"self":  {Name: "self", Tools: []string{"s"}, Includes: []string{"self"}},
		"top":   {Name: "top", Includes: []string{"left", "right"}},
		"left":  {Name: "left", Tools: []string{"l"}, Includes: []string{"base"}},
		"right": {Name: "right", Tools: []string{"r"}, Includes: []string{"base"}},
		"base":  {Name: "base", Tools: []string{"z"}},
		"ghost": {Name: "ghost", Tools: []string{"g"}, Includes: []string{"missing"}},
		"loopy": {Name: "loopy", Includes: []string{"all"}},
	}}
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"a", []string{"x", "y"}},
		{"b", []string{"x", "y"}},
		{"self", []string{"s"}},
		{"top", []string{"l", "r", "z"}},
		{"ghost", []string{"g"}},
		{"loopy", []string{"g", "l", "r", "s", "x", "y", "z"}},
	} {
		if diff := cmp.Diff(tc.want, r.resolve(tc.name)); diff != "" {
			t.Errorf("resolve(%s) (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestSelect(t *testing.T) {
	t.Parallel()
	acp, _ := Resolve("hermes-acp", nil)
	for _, tc := range []struct {
		name              string
		enabled, disabled []string
		want              []string // exact result, if set
		wantHas, wantNot  []string
		wantWarnings      int
	}{
		{name: "hermes-acp", enabled: []string{"hermes-acp"}, want: acp},
		{name: "empty enabled selects nothing", enabled: []string{}, want: []string{}},
		{name: "legacy web_tools", enabled: []string{"web_tools"}, want: []string{"web_extract", "web_search"}},
		{name: "legacy file_tools", enabled: []string{"file_tools"}, want: []string{"patch", "read_file", "search_files", "write_file"}},
		{name: "legacy browser_tools has ten tools", enabled: []string{"browser_tools"},
			want: []string{"browser_back", "browser_click", "browser_console", "browser_get_images", "browser_navigate",
				"browser_press", "browser_scroll", "browser_snapshot", "browser_type", "browser_vision"}},
		{name: "unknown enabled is warned and ignored", enabled: []string{"web", "nope"}, want: []string{"web_extract", "web_search"}, wantWarnings: 1},
		{name: "unknown disabled is warned", enabled: []string{"web"}, disabled: []string{"nope"}, want: []string{"web_extract", "web_search"}, wantWarnings: 1},
		{name: "disabled applied last", enabled: []string{"hermes-cli"}, disabled: []string{"browser"},
			wantHas: []string{"web_search", "terminal"}, wantNot: []string{"browser_navigate", "browser_cdp"}},
		{name: "disabling a legacy name", enabled: []string{"hermes-acp"}, disabled: []string{"terminal_tools"},
			wantHas: []string{"process", "read_file"}, wantNot: []string{"terminal"}},
		{name: "disabling a platform bundle keeps core tools", enabled: []string{"hermes-discord"}, disabled: []string{"hermes-discord"},
			want: sorted(slices.Clone(coreTools)), wantNot: []string{"discord", "discord_admin"}},
		{name: "disabling hermes-acp keeps its core tools", enabled: []string{"hermes-acp"}, disabled: []string{"hermes-acp"}, want: acp},
		{name: "disabling the coding posture keeps core tools", enabled: []string{"hermes-acp"}, disabled: []string{"coding"}, want: acp},
		{name: "disabling the gateway removes platform extras only", enabled: []string{"hermes-gateway"}, disabled: []string{"hermes-gateway"},
			wantHas: []string{"terminal", "clarify"}, wantNot: []string{"discord"}},
		{name: "nil enabled is everything", enabled: nil,
			wantHas: []string{"terminal", "discord", "feishu_doc_read", "computer_use", "image_generate"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, warnings := Select(tc.enabled, tc.disabled, nil)
			if got == nil {
				t.Fatalf("Select returned nil")
			}
			if tc.want != nil {
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("Select(%v, %v) (-want +got):\n%s", tc.enabled, tc.disabled, diff)
				}
			}
			for _, x := range tc.wantHas {
				if !slices.Contains(got, x) {
					t.Errorf("Select(%v, %v) lacks %s", tc.enabled, tc.disabled, x)
				}
			}
			for _, x := range tc.wantNot {
				if slices.Contains(got, x) {
					t.Errorf("Select(%v, %v) has %s", tc.enabled, tc.disabled, x)
				}
			}
			if len(warnings) != tc.wantWarnings {
				t.Errorf("Select warnings = %q, want %d", warnings, tc.wantWarnings)
			}
		})
	}
}

func TestSelectWithRegistry(t *testing.T) {
	t.Parallel()
	reg := snapshotWith(t, map[string]string{"mcp_gh_issues": "mcp-github", "web_archive": "web"}, map[string]string{"github": "mcp-github"})
	got, warnings := Select([]string{"hermes-acp", "github"}, nil, reg)
	if len(warnings) != 0 || !slices.Contains(got, "mcp_gh_issues") || !slices.Contains(got, "read_file") {
		t.Errorf("Select(hermes-acp, github) = %v %q, want the MCP server's tools added", got, warnings)
	}
	got, _ = Select(nil, []string{"mcp-github"}, reg)
	if slices.Contains(got, "mcp_gh_issues") || !slices.Contains(got, "web_archive") {
		t.Errorf("Select(all, -mcp-github) = %v, want the server's tools removed and registry tools of static toolsets kept", got)
	}
}

func TestLegacyNames(t *testing.T) {
	t.Parallel()
	want := map[string][]string{
		"web_tools":      {"web_search", "web_extract"},
		"terminal_tools": {"terminal"},
		"vision_tools":   {"vision_analyze"},
		"image_tools":    {"image_generate"},
		"skills_tools":   {"skills_list", "skill_view", "skill_manage"},
		"browser_tools": {"browser_navigate", "browser_snapshot", "browser_click", "browser_type", "browser_scroll",
			"browser_back", "browser_press", "browser_get_images", "browser_vision", "browser_console"},
		"cronjob_tools": {"cronjob"},
		"file_tools":    {"read_file", "write_file", "patch", "search_files"},
		"tts_tools":     {"text_to_speech"},
	}
	got := map[string][]string{}
	for _, n := range LegacyNames() {
		got[n], _ = Legacy(n)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("legacy map (-want +got):\n%s", diff)
	}
}
