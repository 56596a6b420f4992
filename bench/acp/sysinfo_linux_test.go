//go:build linux

package main

import (
	"os"
	"testing"
)

func TestMemoryOfThisProcess(t *testing.T) {
	t.Parallel()
	m, err := readMem(os.Getpid())
	if err != nil || m.RSS <= 0 || m.HWM < m.RSS {
		t.Fatalf("readMem(self) = %+v, %v, want 0 < RSS <= HWM", m, err)
	}
	tree, err := treeRSS(os.Getpid())
	if err != nil || tree < m.RSS {
		t.Fatalf("treeRSS(self) = %d, %v, want at least VmRSS %d", tree, err, m.RSS)
	}
}
