package gotypes

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Defaults of [Options].
const (
	// DefaultLoadTimeout bounds one run of the go command. The first check
	// in a module may compile the export data of its dependencies.
	DefaultLoadTimeout = 2 * time.Minute
	// DefaultMaxMemory bounds the estimated memory of the dependency type
	// information kept for all modules together.
	DefaultMaxMemory = 512 << 20
	// DefaultMaxPackageBytes bounds the Go source of one checked package
	// (its files and tests together).
	DefaultMaxPackageBytes = 8 << 20
)

// maxModules is how many modules a Checker keeps caches for; the one used
// longest ago is dropped first.
const maxModules = 8

// Options configure a [Checker]; the zero value is the defaults.
type Options struct {
	// Go is the go command; "" means "go", found on PATH at the first
	// check.
	Go string
	// Env is the environment of the go command, which decides the build:
	// GOOS, GOARCH, GOFLAGS (build tags), CGO_ENABLED, GOWORK, GOMODCACHE.
	// Nil means os.Environ(). GOPROXY=off and -mod=readonly (or
	// -mod=vendor) are always added, so that nothing is downloaded.
	Env []string
	// LoadTimeout bounds one run of the go command; 0 means
	// DefaultLoadTimeout.
	LoadTimeout time.Duration
	// MaxMemory bounds the estimated memory of the dependency type
	// information and parsed files kept for all modules together; 0 means
	// DefaultMaxMemory. A module that needs more on its own is not
	// type-checked.
	MaxMemory int64
	// MaxPackageBytes bounds the source of one checked package; a larger
	// package is not type-checked. 0 means DefaultMaxPackageBytes.
	MaxPackageBytes int64
	// Log receives debug messages; nil discards them.
	Log *slog.Logger
}

// A Checker type-checks Go packages with go/types, from source, against the
// export data of their dependencies (see the package documentation). It
// keeps, per module, the dependencies' type information and the parsed
// files of the packages it checked, so that the check of a later edit of
// the same package reads only what changed. It is safe for concurrent
// use; [Checker.Check] of one package directory is serialised. Nothing is
// loaded before the first Check.
type Checker struct {
	opts Options
	// tool finds the go command, once.
	tool func() (string, error)
	// life is cancelled by Close; loads holds the dependency loads, which
	// outlive the check that started them (module.load).
	life  context.Context
	close context.CancelFunc
	loads sync.WaitGroup

	mu      sync.Mutex // guards the fields below
	modules map[string]*module
	// dirs remembers which module (key) a directory is in, or why it is
	// in none.
	dirs  map[string]dirModule
	clock int64
}

// dirModule is what `go env` said about a directory: the key of its
// module, or why it has none.
type dirModule struct {
	key, reason string
	env         goEnv
}

// ErrNoToolchain is why a Checker cannot check anything: no go command.
var ErrNoToolchain = errors.New("no Go toolchain found")

// New returns a Checker; it does nothing until the first Check.
func New(o Options) *Checker {
	if o.LoadTimeout <= 0 {
		o.LoadTimeout = DefaultLoadTimeout
	}
	if o.MaxMemory <= 0 {
		o.MaxMemory = DefaultMaxMemory
	}
	if o.MaxPackageBytes <= 0 {
		o.MaxPackageBytes = DefaultMaxPackageBytes
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Go == "" {
		o.Go = "go"
	}
	c := &Checker{opts: o, modules: map[string]*module{}, dirs: map[string]dirModule{}}
	c.life, c.close = context.WithCancel(context.Background())
	c.tool = sync.OnceValues(func() (string, error) {
		p, err := exec.LookPath(o.Go)
		if err != nil {
			return "", fmt.Errorf("%w (%v)", ErrNoToolchain, err)
		}
		return p, nil
	})
	return c
}

// Close stops the dependency loads under way and waits for them; checks
// after it are skipped. The composition root calls it at shutdown.
func (c *Checker) Close() {
	c.close()
	c.loads.Wait()
}

// Available reports whether the go command was found; the error says why
// not (it wraps [ErrNoToolchain]).
func (c *Checker) Available() error {
	_, err := c.tool()
	return err
}

// env returns the base environment of the go command.
func (c *Checker) env() []string {
	if c.opts.Env != nil {
		return c.opts.Env
	}
	return os.Environ()
}

// Check type-checks the package of e.File before and after the edit and
// returns its errors after it, each marked introduced or not. A package
// that cannot be checked (no toolchain, not in a module, a go.work or
// go.mod the go command rejects, a dependency needing cgo that cannot be
// built, the budgets) gives a skipped Result saying why; the only error is
// ctx's, when it ends first.
func (c *Checker) Check(ctx context.Context, e Edit) (Result, error) {
	dir := filepath.Dir(e.File)
	skip := func(reason string) (Result, error) {
		return Result{Skipped: true, Reason: reason, Dir: dir}, nil
	}
	goPath, err := c.tool()
	if err != nil {
		return skip(ErrNoToolchain.Error())
	}
	if c.life.Err() != nil {
		return skip("the type checker is closed")
	}
	m, reason, err := c.module(ctx, goPath, dir)
	if err != nil {
		return Result{}, err
	}
	if m == nil {
		return skip(reason)
	}
	r, err := m.check(ctx, dir, e)
	if err != nil {
		return Result{}, err
	}
	c.trim(m)
	return r, nil
}

// module returns the cache of the module holding dir, creating it (or
// replacing it when its go.mod, go.sum or go.work changed), or why there
// is none.
func (c *Checker) module(ctx context.Context, goPath, dir string) (*module, string, error) {
	c.mu.Lock()
	dm, known := c.dirs[dir]
	c.mu.Unlock()
	base := goCmd{path: goPath, env: envWithout(c.env(), "GOPROXY", "off"), timeout: c.opts.LoadTimeout}
	if !known {
		env, err := readGoEnv(ctx, base, existingDir(dir))
		switch {
		case ctx.Err() != nil:
			return nil, "", ctx.Err()
		case err != nil:
			dm = dirModule{reason: "go env: " + err.Error()}
		case env.GOMOD == "" || env.GOMOD == os.DevNull:
			dm = dirModule{reason: "not in a Go module"}
		default:
			dm = dirModule{key: env.GOMOD, env: env}
			if env.GOWORK != "" && env.GOWORK != "off" {
				dm.key = env.GOWORK
			}
		}
		if dm.key != "" { // a directory outside any module is asked again: a go.mod may appear
			c.mu.Lock()
			if len(c.dirs) > 4096 {
				clear(c.dirs)
			}
			c.dirs[dir] = dm
			c.mu.Unlock()
		}
	}
	if dm.key == "" {
		return nil, dm.reason, nil
	}
	c.mu.Lock()
	m := c.modules[dm.key]
	c.mu.Unlock()
	if m != nil && !m.current() {
		c.opts.Log.Debug("go type check: module changed; dropping its cache", "module", dm.key)
		c.mu.Lock()
		if c.modules[dm.key] == m {
			delete(c.modules, dm.key)
		}
		clear(c.dirs) // a go.work change can move directories between modules
		c.mu.Unlock()
		m = nil
	}
	if m == nil {
		vendorDir := filepath.Dir(dm.key)
		fresh := newModule(dm.key, dm.env, goCmd{path: goPath, env: commandEnv(c.env(), dm.env.GOFLAGS, vendorDir), timeout: c.opts.LoadTimeout}, c.opts)
		fresh.life, fresh.loads = c.life, &c.loads
		c.mu.Lock()
		if m = c.modules[dm.key]; m == nil { // unless another check made it meanwhile
			m = fresh
			c.modules[dm.key] = m
		}
		c.mu.Unlock()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clock++
	m.used = c.clock
	return m, "", nil
}

// trim drops the caches of the modules used longest ago while there are
// more than maxModules or their estimated memory is over the budget; m,
// just used, is kept (it fits the budget on its own, or it would have
// dropped its cache).
func (c *Checker) trim(keep *module) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		var total int64
		for _, m := range c.modules {
			total += m.memory()
		}
		if len(c.modules) <= maxModules && total <= c.opts.MaxMemory {
			return
		}
		var oldest *module
		for _, m := range c.modules {
			if m != keep && (oldest == nil || m.used < oldest.used) {
				oldest = m
			}
		}
		if oldest == nil {
			return
		}
		delete(c.modules, oldest.key)
	}
}

// Memory returns the estimated memory of what the Checker keeps, and for
// how many modules it holds dependency type information: for /context and
// tests.
func (c *Checker) Memory() (bytes int64, modules int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, m := range c.modules {
		bytes += m.memory()
		if m.loaded() {
			modules++
		}
	}
	return bytes, modules
}

// existingDir returns dir or its nearest existing ancestor (a new package
// is proposed in a directory that does not exist yet).
func existingDir(dir string) string {
	for {
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return dir
		}
		dir = parent
	}
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// trimReason shortens a go command error for a skip reason.
func trimReason(s string) string {
	s = strings.TrimPrefix(s, "go: ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
