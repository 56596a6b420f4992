//go:build !linux

package mcp

import "os/exec"

// setDeathSignal does nothing where Pdeathsig does not exist; there a
// killed agent's stdio MCP servers exit when their input ends.
func setDeathSignal(*exec.Cmd) {}
