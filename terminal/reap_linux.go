package terminal

import (
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// waitExited waits until process pid has exited without reaping it, so
// its process group id cannot be reused while the group is killed. It
// reports whether it waited.
func waitExited(pid int) bool {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return err == nil
		}
	}
}

// groupGoneWait bounds waitGroupGone.
const groupGoneWait = 5 * time.Second

// waitGroupGone waits (a bounded time) until the processes of group pgid,
// just sent SIGKILL, have died: a signal is delivered asynchronously, and
// the caller promises that nothing the command started is left running.
func waitGroupGone(pgid int) {
	if unix.Kill(-pgid, 0) == unix.ESRCH {
		return
	}
	deadline := time.Now().Add(groupGoneWait)
	members, _ := GroupMembers(pgid)
	for _, pid := range members {
		fd, err := unix.PidfdOpen(pid, 0)
		if err != nil {
			continue // gone already
		}
		ms := int(time.Until(deadline) / time.Millisecond)
		if ms > 0 {
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
			for {
				if _, err := unix.Poll(fds, ms); err != unix.EINTR {
					break
				}
			}
		}
		unix.Close(fd)
	}
}

// GroupMembers lists the processes of group pgid that are not zombies,
// from /proc (tests use it to check that nothing of a command is left).
func GroupMembers(pgid int) ([]int, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(data)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 3 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if g, _ := strconv.Atoi(f[2]); g == pgid {
			out = append(out, pid)
		}
	}
	return out, nil
}
