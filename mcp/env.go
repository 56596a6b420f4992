package mcp

import "strings"

// safeEnvKeys are the variables of the agent's own environment a stdio
// server inherits (hermes-agent's _SAFE_ENV_KEYS in tools/mcp_tool.py):
// what a program needs to find its executables, its home, its locale and
// its terminal, and nothing that holds a credential. XDG_* variables are
// inherited too.
var safeEnvKeys = map[string]bool{
	"PATH": true, "HOME": true, "USER": true, "LANG": true, "LC_ALL": true,
	"TERM": true, "SHELL": true, "TMPDIR": true,
}

// stdioEnv returns the environment of a stdio server's process: the safe
// variables of base ("KEY=value" pairs, the agent's own environment) and
// then the server's configured Env, which is passed whatever its names
// (the user wrote it for that server). API keys and tokens in the agent's
// environment never reach an MCP server unless its configuration names
// them.
func stdioEnv(base []string, add []Var) []string {
	env := make([]string, 0, len(safeEnvKeys)+len(add))
	for _, kv := range base {
		k, _, ok := strings.Cut(kv, "=")
		if ok && (safeEnvKeys[k] || strings.HasPrefix(k, "XDG_")) {
			env = append(env, kv)
		}
	}
	for _, e := range add {
		if e.Name != "" {
			env = append(env, e.Name+"="+e.Value)
		}
	}
	return env
}
