//go:build unix && !linux

package terminal

import "errors"

// waitExited does not wait where waitid(WNOWAIT) is not used: the
// leftovers of the group are killed right after the shell is reaped.
func waitExited(int) bool { return false }

// waitGroupGone does not wait: there is no portable way to watch
// processes that are not our children.
func waitGroupGone(int) {}

// GroupMembers cannot list a process group without /proc.
func GroupMembers(int) ([]int, error) { return nil, errors.New("listing a process group needs /proc") }
