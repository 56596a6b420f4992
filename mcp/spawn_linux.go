package mcp

import (
	"os/exec"
	"syscall"
)

// setDeathSignal makes the kernel SIGKILL cmd's process when the thread
// that starts it exits (with the agent's process, by [spawner]'s design).
func setDeathSignal(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
