//go:build !unix

package main

import "os/exec"

// setGroup does nothing where process groups are not available.
func setGroup(cmd *exec.Cmd) {}

// killGroup kills the agent process only.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

// killPids does nothing where processes cannot be killed by id portably;
// killGroup has ended the agent.
func killPids(pids []int) {}
