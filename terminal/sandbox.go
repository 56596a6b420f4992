package terminal

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// SandboxCommand is the hidden subcommand of the agent's binary that
// applies the sandbox and then runs a command: <exe> sandbox-exec --write
// DIR … -- PROGRAM ARG….
const SandboxCommand = "sandbox-exec"

// Sandbox runs commands so that they can write only inside chosen folders:
// the workspace roots, the temporary directory, the toolchains' caches
// (~/.cache or $XDG_CACHE_HOME, Go's module and build caches, npm's and
// pip's caches), /dev and the folders of Writable. Reading is not
// restricted. It wraps a command's argv in the binary's SandboxCommand,
// which applies Landlock (see SandboxMain). A Sandbox is safe for
// concurrent use; its fields must not change once it is in use.
type Sandbox struct {
	// Exe is the binary that has the SandboxCommand (os.Executable()).
	Exe string
	// Writable are folders to allow besides the defaults
	// (terminal.sandbox_writable).
	Writable []string
	// Home is the user's home directory ("" : os.UserHomeDir()).
	Home string
	// Getenv reads the environment (nil: os.Getenv).
	Getenv func(string) string

	once     sync.Once
	defaults []string
}

// Wrap returns argv run under the sandbox, with roots writable too.
func (s *Sandbox) Wrap(argv []string, roots []string) []string {
	dirs := s.WritableDirs(roots)
	out := make([]string, 0, len(argv)+2*len(dirs)+3)
	out = append(out, s.Exe, SandboxCommand)
	for _, d := range dirs {
		out = append(out, "--write", d)
	}
	out = append(out, "--")
	return append(out, argv...)
}

// WritableDirs returns every folder a sandboxed command may write: roots,
// the defaults (computed once) and Writable, without duplicates.
func (s *Sandbox) WritableDirs(roots []string) []string {
	s.once.Do(func() { s.defaults = s.defaultDirs() })
	var out []string
	add := func(d string) {
		if d == "" || !filepath.IsAbs(d) {
			return
		}
		d = filepath.Clean(d)
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	for _, d := range roots {
		add(d)
	}
	for _, d := range s.defaults {
		add(d)
	}
	for _, d := range s.Writable {
		add(s.expand(d))
	}
	return out
}

func (s *Sandbox) getenv(k string) string {
	if s.Getenv != nil {
		return s.Getenv(k)
	}
	return os.Getenv(k)
}

func (s *Sandbox) home() string {
	if s.Home != "" {
		return s.Home
	}
	h, _ := os.UserHomeDir()
	return h
}

// expand resolves ~ in a configured folder.
func (s *Sandbox) expand(d string) string {
	if d == "~" {
		return s.home()
	}
	if strings.HasPrefix(d, "~/") {
		return filepath.Join(s.home(), d[2:])
	}
	return d
}

// defaultDirs are the temporary directory and the toolchains' caches.
func (s *Sandbox) defaultDirs() []string {
	home := s.home()
	tmp := os.TempDir()
	if t := s.getenv("TMPDIR"); t != "" {
		tmp = t
	}
	dirs := []string{tmp, "/tmp", "/dev/shm"}
	if r, err := filepath.EvalSymlinks(tmp); err == nil {
		dirs = append(dirs, r)
	}
	cache := s.getenv("XDG_CACHE_HOME")
	if cache == "" && home != "" {
		cache = filepath.Join(home, ".cache")
	}
	dirs = append(dirs, cache)
	if home != "" {
		dirs = append(dirs, filepath.Join(home, ".npm"), filepath.Join(home, "go", "pkg", "mod"))
	}
	for _, k := range []string{"npm_config_cache", "PIP_CACHE_DIR", "GOMODCACHE", "GOCACHE"} {
		dirs = append(dirs, s.getenv(k))
	}
	dirs = append(dirs, s.goCaches()...)
	return dirs
}

// goCaches returns the go command's module and build caches as it finds
// them (GOMODCACHE, GOCACHE: the environment, else its go env file, else
// $GOPATH/pkg/mod and the user cache folder's go-build), without running
// it: `go env` costs a process start and tens of MB at a session's first
// command.
func (s *Sandbox) goCaches() []string {
	// The go command finds its caches from the environment commands run
	// with, which is this process's.
	home := s.getenv("HOME")
	if home == "" {
		home = s.home()
	}
	file := map[string]string{}
	envFile := s.getenv("GOENV")
	if envFile == "" {
		if cfg := s.getenv("XDG_CONFIG_HOME"); cfg != "" {
			envFile = filepath.Join(cfg, "go", "env")
		} else if h := home; h != "" {
			envFile = filepath.Join(h, ".config", "go", "env")
		}
	}
	if envFile != "" && envFile != "off" {
		if b, err := os.ReadFile(envFile); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok {
					file[k] = strings.TrimSpace(v)
				}
			}
		}
	}
	get := func(k string) string {
		if v := s.getenv(k); v != "" {
			return v
		}
		return file[k]
	}
	var dirs []string
	if mod := get("GOMODCACHE"); mod != "" {
		dirs = append(dirs, mod)
	} else if gp := get("GOPATH"); gp != "" {
		dirs = append(dirs, filepath.Join(filepath.SplitList(gp)[0], "pkg", "mod"))
	} else if h := home; h != "" {
		dirs = append(dirs, filepath.Join(h, "go", "pkg", "mod"))
	}
	if c := get("GOCACHE"); c != "" && c != "off" {
		dirs = append(dirs, c)
	} else if xdg := s.getenv("XDG_CACHE_HOME"); xdg != "" {
		dirs = append(dirs, filepath.Join(xdg, "go-build"))
	} else if h := home; h != "" {
		dirs = append(dirs, filepath.Join(h, ".cache", "go-build"))
	}
	return dirs
}

// parseSandboxArgs parses SandboxCommand's arguments (after its name).
func parseSandboxArgs(args []string) (writable, argv []string, err error) {
	for i := 0; i < len(args); i++ {
		switch args[i] {
		case "--write":
			if i+1 >= len(args) {
				return nil, nil, errors.New("--write needs a folder")
			}
			writable = append(writable, args[i+1])
			i++
		case "--":
			if i+1 >= len(args) {
				return nil, nil, errors.New("no command after --")
			}
			return writable, args[i+1:], nil
		default:
			return nil, nil, fmt.Errorf("unknown argument %q", args[i])
		}
	}
	return nil, nil, errors.New("no command (expected -- PROGRAM ARG…)")
}

// SandboxHint is added to the result of a failed sandboxed command whose
// output shows a refused write, so the model can act on it.
const SandboxHint = "The sandbox (terminal.sandbox: workspace-write) lets commands write only inside the workspace, " +
	"the temporary directory and the toolchains' caches; a \"Permission denied\" or \"Operation not permitted\" " +
	"on a path outside them comes from it. Write inside the workspace instead, or ask the user to add the " +
	"folder to terminal.sandbox_writable in config.yaml (or to set terminal.sandbox: off)."

// LooksRefused reports whether output shows a write refused by the
// sandbox (EACCES or EPERM).
func LooksRefused(output string) bool {
	return strings.Contains(output, "Permission denied") || strings.Contains(output, "Operation not permitted") ||
		strings.Contains(output, "permission denied") || strings.Contains(output, "operation not permitted")
}
