package browser

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"time"
)

// ErrNotFound is returned by [Find] when no Chromium or Chrome is installed.
var ErrNotFound = errors.New("no Chromium or Chrome found: install chromium or set browser.executable")

// pathNames are the executable names looked up in PATH, in order.
var pathNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome", "headless_shell"}

// Find returns the browser executable to run: configured when it is not
// empty (a path, or a name looked up in PATH), else the first of chromium,
// chromium-browser, google-chrome, google-chrome-stable found in PATH, else
// the first usual install location that exists.
//
// Answers are cached for the process, because availability checks ask on
// every model request (once per browser tool): a found executable stays
// the answer while its file still exists (one stat per call) and PATH is
// unchanged; "not found" is remembered for [notFoundTTL], after which the
// search runs again, so a browser installed while the agent runs is found
// within seconds.
func Find(configured string) (string, error) {
	key := findKey{configured: configured, path: os.Getenv("PATH")}
	if v, ok := findCache.Load(key); ok {
		r := v.(findResult)
		if r.err == nil {
			if fi, err := os.Stat(r.exe); err == nil && !fi.IsDir() {
				return r.exe, nil
			}
		} else if time.Since(r.at) < notFoundTTL {
			return "", r.err
		}
	}
	exe, err := find(configured)
	findCache.Store(key, findResult{exe: exe, err: err, at: time.Now()})
	return exe, err
}

// notFoundTTL is how long [Find] remembers that no browser was found.
var notFoundTTL = 5 * time.Second

// findCache holds [Find]'s answers by findKey.
var findCache sync.Map

type findKey struct{ configured, path string }

type findResult struct {
	exe string
	err error
	at  time.Time
}

// find searches as [Find] describes, without the cache.
func find(configured string) (string, error) {
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
