//go:build !unix

package gotypes

import "os/exec"

// setProcessGroup leaves cmd as it is: cancelling it kills the go command
// only.
func setProcessGroup(*exec.Cmd) {}
