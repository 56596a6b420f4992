package terminal

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestGoCachesWithoutTheGoCommand: the sandbox finds Go's caches as the go
// command does — the environment, else its go env file, else the defaults —
// without starting it.
func TestGoCachesWithoutTheGoCommand(t *testing.T) {
	home := t.TempDir()
	envFile := filepath.Join(t.TempDir(), "env")
	if err := os.WriteFile(envFile, []byte("GOMODCACHE=/opt/mods\nGOPROXY=direct\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		want []string
	}{
		{"defaults", map[string]string{"HOME": home}, []string{filepath.Join(home, "go", "pkg", "mod"), filepath.Join(home, ".cache", "go-build")}},
		{"environment", map[string]string{"HOME": home, "GOMODCACHE": "/m", "GOCACHE": "/c"}, []string{"/m", "/c"}},
		{"GOPATH and XDG", map[string]string{"HOME": home, "GOPATH": "/gp:/other", "XDG_CACHE_HOME": "/xdg"}, []string{"/gp/pkg/mod", "/xdg/go-build"}},
		{"go env file", map[string]string{"HOME": home, "GOENV": envFile}, []string{"/opt/mods", filepath.Join(home, ".cache", "go-build")}},
	} {
		s := &Sandbox{Home: "/elsewhere", Getenv: func(k string) string { return tc.env[k] }}
		if got := s.goCaches(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
