//go:build unix

package browser

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the browser in a process group of its own, which stop
// kills at once, and has the kernel kill it when the agent dies (Linux).
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	setDeathSignal(cmd.SysProcAttr)
}

// killGroup kills every process of the browser's group.
func killGroup(pid int) {
	if pid > 0 {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}
