package main

import (
	"bufio"
	"bytes"
	"debug/buildinfo"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// memInfo is what /proc/<pid>/status says about a process's memory, in KiB.
type memInfo struct {
	RSS, HWM int64
}

// readMem reads VmRSS and VmHWM of pid.
func readMem(pid int) (memInfo, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return memInfo{}, fmt.Errorf("read memory of process %d: %w", pid, err)
	}
	m, err := parseStatus(b)
	if err != nil {
		return memInfo{}, fmt.Errorf("read memory of process %d: %w", pid, err)
	}
	return m, nil
}

// parseStatus extracts VmRSS and VmHWM from a /proc/<pid>/status file.
func parseStatus(b []byte) (memInfo, error) {
	var m memInfo
	found := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || (k != "VmRSS" && k != "VmHWM") {
			continue
		}
		f := strings.Fields(v)
		if len(f) != 2 || f[1] != "kB" {
			return memInfo{}, fmt.Errorf("unexpected %s line %q", k, sc.Text())
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return memInfo{}, fmt.Errorf("unexpected %s line %q", k, sc.Text())
		}
		if k == "VmRSS" {
			m.RSS = n
		} else {
			m.HWM = n
		}
		found++
	}
	if found != 2 {
		return memInfo{}, fmt.Errorf("no VmRSS and VmHWM in status")
	}
	return m, nil
}

// treeRSS sums VmRSS (KiB) over pid and all its descendants.
func treeRSS(pid int) (int64, error) {
	children, err := childMap()
	if err != nil {
		return 0, err
	}
	var total int64
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		m, err := readMem(p)
		if err != nil {
			if p == pid {
				return 0, err
			}
			continue // a child that exited meanwhile
		}
		total += m.RSS
		queue = append(queue, children[p]...)
	}
	return total, nil
}

// descendants lists the processes descended from pid (not pid itself).
func descendants(pid int) []int {
	children, err := childMap()
	if err != nil {
		return nil
	}
	var out []int
	queue := children[pid]
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		out = append(out, p)
		queue = append(queue, children[p]...)
	}
	return out
}

// childMap maps each process id to its children's ids, from /proc/*/stat.
func childMap() (map[int][]int, error) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	m := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		if ppid, ok := parsePPID(b); ok {
			m[ppid] = append(m[ppid], pid)
		}
	}
	return m, nil
}

// parsePPID returns the parent id from a /proc/<pid>/stat line, whose
// second field (the command name in parentheses) may contain blanks.
func parsePPID(stat []byte) (int, bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(stat[i+1:]))
	if len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	return ppid, err == nil
}

// machineInfo describes where the benchmark ran.
type machineInfo struct {
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	CPUs      int    `json:"cpus"`
	CPUModel  string `json:"cpu_model,omitempty"`
	LoadAvg   string `json:"load_avg,omitempty"` // at the start
	GoVersion string `json:"go_version"`         // of the benchmark program
}

func readMachine() machineInfo {
	m := machineInfo{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), GoVersion: runtime.Version()}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			m.LoadAvg = strings.Join(f[:3], " ")
		}
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.Lines(string(b)) {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	return m
}

// binaryInfo describes an agent's executable.
type binaryInfo struct {
	Path      string `json:"path"`
	Bytes     int64  `json:"bytes"`
	Kind      string `json:"kind"`                 // "ELF", "script" or "other"
	GoVersion string `json:"go_version,omitempty"` // for Go binaries
}

// readBinary finds the executable of argv0 on PATH (relative to dir for
// relative paths) and describes it; an error is reported in the result.
func readBinary(argv0 string) (binaryInfo, error) {
	p, err := exec.LookPath(argv0)
	if err != nil {
		return binaryInfo{}, fmt.Errorf("find %s: %w", argv0, err)
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	st, err := os.Stat(p)
	if err != nil {
		return binaryInfo{}, fmt.Errorf("stat %s: %w", p, err)
	}
	bi := binaryInfo{Path: p, Bytes: st.Size(), Kind: "other"}
	f, err := os.Open(p)
	if err != nil {
		return bi, nil
	}
	head := make([]byte, 4)
	n, _ := f.Read(head)
	f.Close()
	switch {
	case n == 4 && string(head) == "\x7fELF":
		bi.Kind = "ELF"
	case n >= 2 && string(head[:2]) == "#!":
		bi.Kind = "script"
	}
	if info, err := buildinfo.ReadFile(p); err == nil {
		bi.GoVersion = info.GoVersion
	}
	return bi, nil
}
