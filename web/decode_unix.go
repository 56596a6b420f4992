//go:build unix

package web

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// limitMemory sets this process's data limit (RLIMIT_DATA: the heap,
// stacks and every private writable mapping) to n bytes more than it has
// mapped now: the decoder gets n for its work on top of what the runtime
// mapped to start (some 40 MiB for the agent's binary, some 300 MiB for a
// test binary built with the race detector, whose runtime would otherwise
// fail before the decoder starts; there n is multiplied by raceOverhead).
func limitMemory(n int64) {
	limit := uint64(n)*raceOverhead + mappedData()
	_ = syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: limit, Max: limit})
}

// mappedData is the process's data size now (VmData of /proc/self/status),
// 0 where the kernel does not say.
func mappedData() uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		v, ok := strings.CutPrefix(sc.Text(), "VmData:")
		if !ok {
			continue
		}
		kb, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		if err != nil {
			return 0
		}
		return kb << 10
	}
	return 0
}
