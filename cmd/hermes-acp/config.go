package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// fileConfig is $HERMES_HOME/config.yaml. Keys follow hermes-agent where it
// has one; docs/configuration.md documents every key.
type fileConfig struct {
	Model struct {
		Default       string   `yaml:"default"`
		BaseURL       string   `yaml:"base_url"`
		APIKeyEnv     string   `yaml:"api_key_env"`
		Choices       []string `yaml:"choices"`
		ContextLength int      `yaml:"context_length"`
		Timeout       int      `yaml:"timeout"` // seconds per request
	} `yaml:"model"`
	Approvals struct {
		Mode    string `yaml:"mode"`    // manual | off
		Timeout int    `yaml:"timeout"` // seconds
	} `yaml:"approvals"`
	CommandAllowlist []string `yaml:"command_allowlist"`
	Toolsets         []string `yaml:"toolsets"`
	DisabledToolsets []string `yaml:"disabled_toolsets"`
	Lint             struct {
		OnNewErrors string `yaml:"on_new_errors"` // report | refuse
	} `yaml:"lint"`
	Agent struct {
		MaxTurns int `yaml:"max_turns"` // model requests per prompt turn
	} `yaml:"agent"`
	MCPServers map[string]mcpServerConfig `yaml:"mcp_servers"`
	FS         struct {
		Timeout int `yaml:"timeout"` // seconds to wait for the editor's fs/* answer
	} `yaml:"fs"`
}

// mcpServerConfig configures an MCP server in config.yaml (hermes's shape).
type mcpServerConfig struct {
	Command   string            `yaml:"command"`
	Args      []string          `yaml:"args"`
	Env       map[string]string `yaml:"env"`
	URL       string            `yaml:"url"`
	Transport string            `yaml:"transport"` // http (default for url) | sse
	Headers   map[string]string `yaml:"headers"`
	Enabled   *bool             `yaml:"enabled"`
	// ParallelToolCalls lets the server's tools run concurrently with other
	// parallel-safe calls of a batch (hermes's supports_parallel_tool_calls).
	ParallelToolCalls bool `yaml:"supports_parallel_tool_calls"`
}

// config is the effective configuration after flags, environment and file.
type config struct {
	Home            string
	Model           string
	BaseURL         string
	APIKey          string
	APIKeySource    string // where the key came from, for messages
	ModelChoices    []string
	ContextLength   int
	ModelTimeout    time.Duration
	ApprovalsOff    bool
	ApprovalTimeout time.Duration
	Allowlist       []string
	Toolsets        []string
	Disabled        []string
	LintRefuse      bool
	MaxTurns        int
	MCPServers      map[string]mcpServerConfig
	File            string // config file path
	FileErr         error  // a config file that exists but is broken
	FSTimeout       time.Duration
}

// hermesHome returns $HERMES_HOME or ~/.hermes.
func hermesHome(getenv func(string) string) string {
	if h := getenv("HERMES_HOME"); h != "" {
		return h
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ".hermes"
	}
	return filepath.Join(home, ".hermes")
}

// loadConfig reads the configuration. Precedence, highest first: flags
// (flagModel, flagBaseURL), environment (HERMES_MODEL, OPENAI_BASE_URL,
// OPENAI_API_KEY), $HERMES_HOME/config.yaml. $HERMES_HOME/.env fills
// variables the environment does not set.
func loadConfig(getenv func(string) string, flagModel, flagBaseURL string) config {
	home := hermesHome(getenv)
	dotenv := readDotEnv(filepath.Join(home, ".env"))
	env := func(k string) string {
		if v := getenv(k); v != "" {
			return v
		}
		return dotenv[k]
	}
	c := config{Home: home, File: filepath.Join(home, "config.yaml")}
	var fc fileConfig
	if data, err := os.ReadFile(c.File); err == nil {
		// Decode strictly to report unknown keys (typos), then leniently so
		// that a typo does not throw away the rest of the file.
		strict := yaml.NewDecoder(bytes.NewReader(data))
		strict.KnownFields(true)
		if err := strict.Decode(&fileConfig{}); err != nil && !errors.Is(err, io.EOF) {
			c.FileErr = fmt.Errorf("%s: %w", c.File, err)
		}
		if err := yaml.Unmarshal(data, &fc); err != nil {
			c.FileErr = fmt.Errorf("%s (ignored): %w", c.File, err)
			fc = fileConfig{}
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		c.FileErr = fmt.Errorf("read %s: %w", c.File, err)
	}
	c.Model = firstNonEmpty(flagModel, env("HERMES_MODEL"), fc.Model.Default)
	c.BaseURL = firstNonEmpty(flagBaseURL, env("OPENAI_BASE_URL"), fc.Model.BaseURL)
	switch {
	case env("OPENAI_API_KEY") != "":
		c.APIKey, c.APIKeySource = env("OPENAI_API_KEY"), "OPENAI_API_KEY"
	case fc.Model.APIKeyEnv != "" && env(fc.Model.APIKeyEnv) != "":
		c.APIKey, c.APIKeySource = env(fc.Model.APIKeyEnv), fc.Model.APIKeyEnv
	}
	c.ModelChoices = fc.Model.Choices
	c.ContextLength = fc.Model.ContextLength
	if fc.Model.Timeout > 0 {
		c.ModelTimeout = time.Duration(fc.Model.Timeout) * time.Second
	}
	switch strings.ToLower(fc.Approvals.Mode) {
	case "off":
		c.ApprovalsOff = true
	case "", "manual":
	default:
		c.FileErr = errors.Join(c.FileErr, fmt.Errorf("%s: approvals.mode %q is not manual or off; using manual", c.File, fc.Approvals.Mode))
	}
	if fc.Approvals.Timeout > 0 {
		c.ApprovalTimeout = time.Duration(fc.Approvals.Timeout) * time.Second
	}
	c.Allowlist = fc.CommandAllowlist
	c.Toolsets = fc.Toolsets
	c.Disabled = fc.DisabledToolsets
	switch strings.ToLower(fc.Lint.OnNewErrors) {
	case "refuse":
		c.LintRefuse = true
	case "", "report":
	default:
		c.FileErr = errors.Join(c.FileErr, fmt.Errorf("%s: lint.on_new_errors %q is not report or refuse; using report", c.File, fc.Lint.OnNewErrors))
	}
	c.MaxTurns = fc.Agent.MaxTurns
	c.MCPServers = fc.MCPServers
	if fc.FS.Timeout > 0 {
		c.FSTimeout = time.Duration(fc.FS.Timeout) * time.Second
	}
	return c
}

func firstNonEmpty(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}

// readDotEnv parses KEY=VALUE lines (optionally quoted, "export " allowed).
func readDotEnv(path string) map[string]string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
			v = v[1 : len(v)-1]
		}
		out[k] = v
	}
	return out
}
