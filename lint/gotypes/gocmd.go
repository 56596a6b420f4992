package gotypes

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// goCmd runs the go command for one module: always with GOPROXY=off and
// -mod=readonly (or -mod=vendor when the module vendors its dependencies),
// so that it reads the module cache and never downloads anything, and in a
// process group of its own that is killed when the context ends (go list
// -export runs the compiler).
type goCmd struct {
	path    string
	env     []string
	timeout time.Duration
}

// maxStderr bounds what is kept of the go command's standard error.
const maxStderr = 64 << 10

// run runs go with args in dir and returns its standard output. A failure
// returns an error carrying the first lines of its standard error.
func (g goCmd) run(ctx context.Context, dir string, stdin []byte, args ...string) ([]byte, error) {
	tctx, cancel := context.WithTimeout(ctx, g.timeout)
	defer cancel()
	cmd := exec.CommandContext(tctx, g.path, args...)
	cmd.Dir = dir
	cmd.Env = g.env
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout bytes.Buffer
	stderr := &capped{max: maxStderr}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	setProcessGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if tctx.Err() != nil {
		return nil, fmt.Errorf("go %s: no answer within %s", args[0], g.timeout)
	}
	if err != nil {
		return nil, &goError{args: args, stderr: firstLines(stderr.String(), 4), err: err}
	}
	return stdout.Bytes(), nil
}

// goError is a failed run of the go command.
type goError struct {
	args   []string
	stderr string
	err    error
}

func (e *goError) Error() string {
	if e.stderr != "" {
		return e.stderr
	}
	return fmt.Sprintf("go %s: %v", e.args[0], e.err)
}

func (e *goError) Unwrap() error { return e.err }

// capped is a buffer that keeps the first max bytes written to it.
type capped struct {
	buf bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *capped) String() string { return c.buf.String() }

// firstLines returns the first n non-empty lines of s, joined by "; ".
func firstLines(s string, n int) string {
	var out []string
	for line := range strings.Lines(s) {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, line)
			if len(out) == n {
				break
			}
		}
	}
	return strings.Join(out, "; ")
}

// goEnv is what the checker needs of `go env` for a directory.
type goEnv struct {
	GOMOD, GOWORK, GOFLAGS, GOARCH, GOOS, GOMODCACHE, GOROOT, GOVERSION string
}

// goEnvVars are the variables goEnv reads.
var goEnvVars = []string{"GOMOD", "GOWORK", "GOFLAGS", "GOARCH", "GOOS", "GOMODCACHE", "GOROOT", "GOVERSION"}

// readGoEnv runs `go env -json` in dir with the base environment (GOPROXY
// off, so that a toolchain switch cannot download).
func readGoEnv(ctx context.Context, g goCmd, dir string) (goEnv, error) {
	out, err := g.run(ctx, dir, nil, append([]string{"env", "-json"}, goEnvVars...)...)
	if err != nil {
		return goEnv{}, err
	}
	var e goEnv
	if err := json.Unmarshal(out, &e); err != nil {
		return goEnv{}, fmt.Errorf("go env: %w", err)
	}
	return e, nil
}

// commandEnv returns base with GOPROXY=off and GOFLAGS set to goflags
// without its -mod and -overlay flags, plus the -mod flag that never
// downloads: -mod=vendor when the user asked for it or the module has a
// vendor/modules.txt, else -mod=readonly. GOFLAGS is set explicitly, so
// the value from `go env -w` (passed in as goflags) is kept.
func commandEnv(base []string, goflags string, vendorDir string) []string {
	var flags []string
	mod := "-mod=readonly"
	for _, f := range strings.Fields(goflags) {
		name, _, _ := strings.Cut(strings.TrimLeft(f, "-"), "=")
		switch name {
		case "mod":
			if f == "-mod=vendor" || f == "--mod=vendor" {
				mod = "-mod=vendor"
			}
			continue
		case "overlay":
			continue
		}
		flags = append(flags, f)
	}
	if vendorDir != "" {
		if _, err := os.Stat(filepath.Join(vendorDir, "vendor", "modules.txt")); err == nil {
			mod = "-mod=vendor"
		}
	}
	flags = append(flags, mod)
	return envWithout(envWithout(base, "GOFLAGS", strings.Join(flags, " ")), "GOPROXY", "off")
}

// envWithout returns a copy of env with key set to value (every earlier
// setting removed).
func envWithout(env []string, key, value string) []string {
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, key+"=") })
	return append(out, key+"="+value)
}

// listedPackage is the part of `go list -json` output the checker reads.
type listedPackage struct {
	Dir, ImportPath, Name, Export string
	Standard                      bool
	Module                        *listedModule
	GoFiles, CgoFiles             []string
	TestGoFiles, XTestGoFiles     []string
	IgnoredGoFiles                []string
	Imports                       []string
	Error                         *struct{ Err string }
	DepsErrors                    []*struct{ Err string }
}

// listedModule is a module as go list reports it.
type listedModule struct {
	Path, Dir, GoVersion string
	Main                 bool
}

// decodeList decodes the stream of JSON objects go list -json prints.
func decodeList(out []byte) ([]listedPackage, error) {
	return decodeStream[listedPackage](out)
}

// decodeStream decodes a stream of JSON objects.
func decodeStream[T any](out []byte) ([]T, error) {
	dec := json.NewDecoder(bytes.NewReader(out))
	var vs []T
	for {
		var v T
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return vs, nil
		}
		if err != nil {
			return nil, fmt.Errorf("go list output: %w", err)
		}
		vs = append(vs, v)
	}
}
