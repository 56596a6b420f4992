package tools

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// peerPID returns the process id of the process that connected c (the
// kernel's SO_PEERCRED, in this process's PID namespace).
func peerPID(c net.Conn) (int, error) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return 0, errors.New("not a unix socket")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return 0, err
	}
	var cred *syscall.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) {
		cred, credErr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return 0, err
	}
	if credErr != nil {
		return 0, fmt.Errorf("peer credentials: %w", credErr)
	}
	return int(cred.Pid), nil
}

// descendantOf reports whether process pid is root or one of its
// descendants, following each process's parent in /proc. A process that
// left root's tree (reparented after its parent exited) is not one.
func descendantOf(pid, root int) (bool, error) {
	if root <= 0 {
		return false, errors.New("the script's process is not known")
	}
	for range 4096 { // a tree is never deeper; a loop would be a race
		if pid == root {
			return true, nil
		}
		if pid <= 1 {
			return false, nil
		}
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return false, err
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			return false, errors.New("unreadable /proc stat")
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			return false, errors.New("unreadable /proc stat")
		}
		if pid, err = strconv.Atoi(f[1]); err != nil {
			return false, err
		}
	}
	return false, nil
}

// peerCheck is whether connections are checked against the script's
// process tree on this system.
const peerCheck = true
