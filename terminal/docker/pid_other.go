//go:build !unix

package docker

import "os"

// processExists reports whether a process with this pid runs here: on
// systems without signal 0, whether it can be found.
func processExists(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
