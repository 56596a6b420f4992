package browser

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// ErrNotFound is returned by [Find] when no Chromium or Chrome is installed.
var ErrNotFound = errors.New("no Chromium or Chrome found: install chromium or set browser.executable")

// pathNames are the executable names looked up in PATH, in order.
var pathNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome", "headless_shell"}

// Find returns the browser executable to run: configured when it is not
// empty (a path, or a name looked up in PATH), else the first of chromium,
// chromium-browser, google-chrome, google-chrome-stable found in PATH, else
// the first usual install location that exists.
func Find(configured string) (string, error) {
	if configured != "" {
		p, err := exec.LookPath(configured)
		if err != nil {
			return "", fmt.Errorf("browser.executable %q: %w", configured, err)
		}
		return p, nil
	}
	for _, n := range pathNames {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	for _, p := range installLocations() {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	return "", ErrNotFound
}

// installLocations are where browsers usually live outside PATH.
func installLocations() []string {
	switch runtime.GOOS {
	case "darwin":
		home, _ := os.UserHomeDir()
		return []string{
			"/Applications/Chromium.app/Contents/MacOS/Chromium",
			"/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
			filepath.Join(home, "Applications/Google Chrome.app/Contents/MacOS/Google Chrome"),
		}
	case "windows":
		var out []string
		for _, env := range []string{"LOCALAPPDATA", "ProgramFiles", "ProgramFiles(x86)"} {
			if d := os.Getenv(env); d != "" {
				out = append(out, filepath.Join(d, `Google\Chrome\Application\chrome.exe`), filepath.Join(d, `Chromium\Application\chrome.exe`))
			}
		}
		return out
	default:
		return []string{
			"/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/lib/chromium/chromium",
			"/usr/bin/google-chrome", "/opt/google/chrome/chrome", "/snap/bin/chromium",
		}
	}
}
