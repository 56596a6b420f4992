package config

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func envMap(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func writeHome(t *testing.T, files map[string]string) string {
	t.Helper()
	home := t.TempDir()
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(home, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

func TestConfigPrecedence(t *testing.T) {
	t.Parallel()
	home := writeHome(t, map[string]string{
		"config.yaml": "model:\n  default: file-model\n  base_url: http://file/v1\n  api_key_env: MY_KEY\n  choices: [a, b]\napprovals:\n  mode: off\n  timeout: 5\nlint:\n  on_new_errors: refuse\ntoolsets: [file]\nagent:\n  max_turns: 7\n",
		".env":        "export MY_KEY=\"from-dotenv\"\nHERMES_MODEL=dotenv-model\n",
	})
	for _, tc := range []struct {
		name                 string
		env                  map[string]string
		flagModel, flagURL   string
		wantModel, wantURL   string
		wantKey, wantKeyFrom string
	}{
		{"file and dotenv", map[string]string{}, "", "", "dotenv-model", "http://file/v1", "from-dotenv", "MY_KEY"},
		{"environment beats file", map[string]string{"HERMES_MODEL": "env-model", "OPENAI_BASE_URL": "http://env/v1", "OPENAI_API_KEY": "env-key"}, "", "", "env-model", "http://env/v1", "env-key", "OPENAI_API_KEY"},
		{"flags beat environment", map[string]string{"HERMES_MODEL": "env-model", "OPENAI_BASE_URL": "http://env/v1"}, "flag-model", "http://flag/v1", "flag-model", "http://flag/v1", "from-dotenv", "MY_KEY"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"HERMES_HOME": home}
			for k, v := range tc.env {
				env[k] = v
			}
			c := Load(envMap(env), tc.flagModel, tc.flagURL)
			if c.Model != tc.wantModel || c.BaseURL != tc.wantURL || c.APIKey != tc.wantKey || c.APIKeySource != tc.wantKeyFrom {
				t.Errorf("Load = model %q url %q key %q (%s), want %q %q %q (%s)", c.Model, c.BaseURL, c.APIKey, c.APIKeySource, tc.wantModel, tc.wantURL, tc.wantKey, tc.wantKeyFrom)
			}
			if c.FileErr != nil {
				t.Errorf("FileErr = %v", c.FileErr)
			}
			if !c.ApprovalsOff || c.ApprovalTimeout != 5*time.Second || !c.LintRefuse || c.MaxTurns != 7 || len(c.ModelChoices) != 2 || c.Toolsets[0] != "file" {
				t.Errorf("settings not read: %+v", c)
			}
		})
	}
}

func TestConfigProblemsAreNotFatal(t *testing.T) {
	t.Parallel()
	typo := writeHome(t, map[string]string{"config.yaml": "model:\n  default: m\n  defualt: typo\napprovals:\n  mode: sometimes\n"})
	c := Load(envMap(map[string]string{"HERMES_HOME": typo}), "", "")
	if c.Model != "m" {
		t.Errorf("a typo elsewhere discarded model.default: %q", c.Model)
	}
	if c.FileErr == nil || !strings.Contains(c.FileErr.Error(), "sometimes") {
		t.Errorf("FileErr = %v, want the bad approvals.mode named", c.FileErr)
	}
	if note := IgnoredNote(c.File, c.Ignored); !strings.Contains(note, "ignores them: model.defualt.") {
		t.Errorf("ignored note = %q, want the unknown key named", note)
	}
	if c.ApprovalsOff {
		t.Error("an invalid approvals.mode must fall back to manual")
	}
	broken := writeHome(t, map[string]string{"config.yaml": "model: [unclosed\n"})
	c = Load(envMap(map[string]string{"HERMES_HOME": broken, "HERMES_MODEL": "env"}), "", "")
	if c.FileErr == nil || c.Model != "env" {
		t.Errorf("broken YAML: model %q err %v; want env model and a reported error", c.Model, c.FileErr)
	}
	none := Load(envMap(map[string]string{"HERMES_HOME": t.TempDir()}), "", "")
	if none.FileErr != nil || none.Model != "" {
		t.Errorf("no config: %+v", none)
	}
}

// TestConfigTypeErrorsKeepTheRest: a value of the wrong type costs only its
// own setting; the notice names the key in plain words, without Go types.
func TestConfigTypeErrorsKeepTheRest(t *testing.T) {
	t.Parallel()
	home := writeHome(t, map[string]string{"config.yaml": `model:
  default: file-model
  context_length: 64000
  choices: 5
approvals:
  mode: off
  timeout: "abc"
toolsets: 5
disabled_toolsets: [web]
lint: refuse
agent:
  max_turns: 12
mcp_servers:
  files:
    command: mcp-files
    args: {a: 1}
  other:
    url: http://localhost:9/mcp
    enabled: maybe
some_hermes_agent_key: {x: 1}
`})
	c := Load(envMap(map[string]string{"HERMES_HOME": home}), "", "")
	if c.Model != "file-model" || c.ContextLength != 64000 || !c.ApprovalsOff || c.MaxTurns != 12 ||
		len(c.Disabled) != 1 || c.Disabled[0] != "web" {
		t.Errorf("the good keys were not applied: %+v", c)
	}
	if c.ApprovalTimeout != 0 || c.Toolsets != nil || c.ModelChoices != nil || c.LintRefuse {
		t.Errorf("bad keys were not left at their defaults: %+v", c)
	}
	if c.MCPServers["files"].Command != "mcp-files" || c.MCPServers["files"].Args != nil || c.MCPServers["other"].URL == "" {
		t.Errorf("mcp_servers = %+v", c.MCPServers)
	}
	want := []string{
		`model.choices: 5 is not a list like [a, b]; this setting is ignored`,
		`approvals.timeout: "abc" is not a whole number; this setting is ignored`,
		`toolsets: 5 is not a list like [a, b]; this setting is ignored`,
		`lint: "refuse" is not a section of ` + "`key: value`" + ` lines; this setting is ignored`,
		`mcp_servers.files.args: a section is not a list like [a, b]; this setting is ignored`,
		`mcp_servers.other.enabled: "maybe" is not true or false; this setting is ignored`,
	}
	if diff := cmp.Diff(want, c.Problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	notice := c.Notice()
	if !strings.HasPrefix(notice, "Problems in the configuration file "+c.File+":\n- model.choices") {
		t.Errorf("notice = %q", notice)
	}
	for _, goName := range []string{"int", "[]string", "!!str", "unmarshal", "struct", "some_hermes_agent_key"} {
		if regexp.MustCompile(`(^|[^\w])` + regexp.QuoteMeta(goName) + `($|[^\w])`).MatchString(notice) {
			t.Errorf("notice mentions %q:\n%s", goName, notice)
		}
	}
	if c.FileErr == nil || !strings.Contains(c.FileErr.Error(), "approvals.timeout") {
		t.Errorf("FileErr (logged) = %v, want the bad keys", c.FileErr)
	}
	if !slices.Contains(c.Ignored, "some_hermes_agent_key") {
		t.Errorf("Ignored (logged once) = %q, want the unknown key", c.Ignored)
	}
}

// TestGoTypesConfig: lint.go_types turns the Go type check off; on is the
// default; anything else is a problem that keeps it on.
func TestGoTypesConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		yaml    string
		off     bool
		problem bool
	}{
		{"", false, false},
		{"lint:\n  go_types: on\n", false, false},
		{"lint:\n  go_types: off\n", true, false},
		{"lint:\n  go_types: false\n", true, false},
		{"lint:\n  go_types: sometimes\n", false, true},
	} {
		home := writeHome(t, map[string]string{"config.yaml": "model:\n  default: m\n" + tc.yaml})
		c := Load(envMap(map[string]string{"HERMES_HOME": home}), "", "")
		if c.GoTypesOff != tc.off {
			t.Errorf("%q: GoTypesOff = %v, want %v", tc.yaml, c.GoTypesOff, tc.off)
		}
		if got := strings.Contains(strings.Join(c.Problems, "\n"), "lint.go_types"); got != tc.problem {
			t.Errorf("%q: problems %v; want a lint.go_types problem: %v", tc.yaml, c.Problems, tc.problem)
		}
	}
}
