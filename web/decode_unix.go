//go:build unix

package web

import "syscall"

// limitMemory sets this process's data limit (RLIMIT_DATA: the heap,
// stacks and every private writable mapping) to n bytes.
func limitMemory(n int64) {
	_ = syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: uint64(n), Max: uint64(n)})
}
