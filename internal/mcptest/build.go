package mcptest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// serverPackage is the import path of the stdio program.
const serverPackage = "github.com/hermes-acp/hermes-acp/internal/mcptest/server"

// built is the stdio program of this test binary. It is the package's one
// piece of mutable state, deliberately: a test binary compiles the program
// once, however many tests ask for it, and [Main] removes it at the end.
var built struct {
	once sync.Once
	dir  string // temporary folder holding the program
	path string
	err  error
}

// Build compiles the stdio server (internal/mcptest/server) the first time a
// test of this binary asks for it and returns the program's path; later
// calls return the same path. A build failure fails t. The program lives in
// a temporary folder that [Main] removes; a test binary whose TestMain does
// not call Main leaves it to the operating system's temporary-file cleanup.
func Build(t testing.TB) string {
	t.Helper()
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "mcptest-")
		if built.err != nil {
			return
		}
		out := filepath.Join(built.dir, "mcptest-server")
		cmd := exec.Command("go", "build", "-o", out, serverPackage)
		if msg, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build %s: %w\n%s", serverPackage, err, msg)
			return
		}
		built.path = out
	})
	if built.err != nil {
		t.Fatalf("mcptest: %v", built.err)
	}
	return built.path
}

// Main runs the tests of m and then removes the program [Build] compiled.
// Call it from TestMain: os.Exit(mcptest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
	return code
}
