package gotypes

import (
	"context"
	"fmt"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/tools/go/gcexportdata"
)

// module is a Checker's cache for one module (or go.work workspace): the
// export data and type information of the dependencies its packages
// import, and the package directories it checked. Dependencies are
// listed, and their export data built, by `go list -export -deps` the
// first time a package imports them; the export data is read with
// gcexportdata into one map shared by every check of the module, so that a
// dependency is read once. A dependency inside the workspace (not in
// GOROOT or the module cache) is stat'ed at every check and, when one of
// its files changed, every workspace dependency is listed again.
type module struct {
	key   string // GOWORK or GOMOD
	env   goEnv
	cmd   goCmd
	opts  Options
	sizes types.Sizes
	// stamps are go.mod, go.sum, go.work and go.work.sum when the cache was
	// made: a change drops the whole module (Checker.module).
	stamps []stamp
	// used orders the modules for eviction; guarded by Checker.mu.
	used int64
	// life and loads are the Checker's: its lifetime and its loads.
	life  context.Context
	loads *sync.WaitGroup

	// loadMu serialises the go list runs that load dependencies.
	loadMu sync.Mutex

	// mu guards the fields below. A type check holds it for reading from
	// before it imports its first package to its end: reading export data
	// adds objects to packages that a running check may look into.
	mu          sync.RWMutex
	fset        *token.FileSet
	deps        map[string]*dep
	pkgs        map[string]*types.Package
	gen         int // counts the times pkgs was dropped
	exportBytes int64
	broken      string // why the module cannot be checked until its go.mod changes
	mains       []listedModule
	mainsDone   bool

	dirsMu sync.Mutex // guards dirs
	dirs   map[string]*pkgDir
	// sourceBytes is the size of the parsed files kept by dirs.
	sourceBytes atomic.Int64
}

// dep is a dependency as go list reported it.
type dep struct {
	export  string // export data file; "" when err is set
	err     string // why it cannot be imported
	imports []string
	// local is set for a package in the workspace (its files are stamped),
	// and for a package under a main module that was not found (the
	// directory it would be in is stamped).
	local []stamp
}

// exportShare estimates the heap that type information read from export
// data takes, as a share of the export data files read: 71 packages (fmt,
// os, go-cmp and their dependencies) took 5 MiB of heap from 37 MiB of
// files.
const exportShare = 6

// astFactor estimates the heap of a parsed Go file as a multiple of its
// source size.
const astFactor = 10

func newModule(key string, env goEnv, cmd goCmd, opts Options) *module {
	m := &module{
		key: key, env: env, cmd: cmd, opts: opts,
		sizes: types.SizesFor("gc", env.GOARCH),
		fset:  token.NewFileSet(),
		deps:  map[string]*dep{}, pkgs: map[string]*types.Package{},
		dirs: map[string]*pkgDir{},
	}
	if m.sizes == nil {
		m.sizes = types.SizesFor("gc", "amd64")
	}
	m.stamps = m.rootStamps()
	return m
}

// rootStamps stamps the files whose change invalidates the whole module:
// go.mod and go.sum, go.work and go.work.sum.
func (m *module) rootStamps() []stamp {
	var out []stamp
	add := func(file, sum string) {
		if file != "" && file != os.DevNull && file != "off" {
			out = append(out, stampOf(file), stampOf(sum))
		}
	}
	add(m.env.GOMOD, strings.TrimSuffix(m.env.GOMOD, ".mod")+".sum")
	add(m.env.GOWORK, m.env.GOWORK+".sum")
	return out
}

// current reports whether the module's go.mod, go.sum and go.work are
// unchanged since the cache was made.
func (m *module) current() bool {
	return slices.Equal(m.stamps, m.rootStamps())
}

// memory estimates the heap the module's cache takes.
func (m *module) memory() int64 {
	m.mu.RLock()
	b := m.exportBytes / exportShare
	m.mu.RUnlock()
	return b + astFactor*m.sourceBytes.Load()
}

// loaded reports whether the module holds type information read from its
// dependencies' export data.
func (m *module) loaded() bool {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.exportBytes > 0
}

// dir returns the cache of a package directory.
func (m *module) dir(path string) *pkgDir {
	m.dirsMu.Lock()
	defer m.dirsMu.Unlock()
	d := m.dirs[path]
	if d == nil {
		d = newPkgDir(path, m)
		m.dirs[path] = d
	}
	return d
}

// mainModules returns the workspace's main modules (go list -m).
func (m *module) mainModules(ctx context.Context, cwd string) []listedModule {
	m.mu.RLock()
	done, mains := m.mainsDone, m.mains
	m.mu.RUnlock()
	if done {
		return mains
	}
	out, err := m.cmd.run(ctx, cwd, nil, "list", "-m", "-json=Path,Dir,GoVersion,Main")
	if err != nil {
		m.opts.Log.Debug("go type check: go list -m", "error", err)
		return nil
	}
	dec, err := decodeModules(out)
	if err != nil {
		return nil
	}
	m.mu.Lock()
	m.mains, m.mainsDone = dec, true
	m.mu.Unlock()
	return dec
}

// stamp is a file's identity for change detection: modification time and
// size, or its absence.
type stamp struct {
	path   string
	mod    time.Time
	size   int64
	exists bool
}

// stampOf stamps path.
func stampOf(path string) stamp {
	st, err := os.Stat(path)
	if err != nil {
		return stamp{path: path}
	}
	return stamp{path: path, mod: st.ModTime(), size: st.Size(), exists: true}
}

// unchanged reports whether every stamp still holds.
func unchanged(stamps []stamp) bool {
	for _, s := range stamps {
		if stampOf(s.path) != s {
			return false
		}
	}
	return true
}

// errSkip is a reason not to check, as an error.
type errSkip struct{ reason string }

func (e *errSkip) Error() string { return e.reason }

// prepare makes sure that every package in paths is listed and its export
// data read, and returns with m.mu held for reading, for the type checks,
// and the generation of the package map they see. A reason to skip the
// check comes back as an *errSkip; otherwise the only error is ctx's.
func (m *module) prepare(ctx context.Context, cwd string, paths []string) (int, error) {
	for attempt := 0; ; attempt++ {
		m.dropStaleLocal()
		if missing := m.missing(paths); len(missing) > 0 {
			if err := m.load(ctx, cwd, paths); err != nil {
				return 0, err
			}
		}
		if err := m.importAll(paths); err != nil {
			return 0, err
		}
		m.mu.RLock()
		if m.ready(paths) {
			return m.gen, nil
		}
		m.mu.RUnlock()
		if attempt == 3 {
			return 0, &errSkip{"the package's dependencies kept changing while it was checked"}
		}
	}
}

// ready reports whether every package in paths is listed and, when it can
// be imported, read. m.mu must be held.
func (m *module) ready(paths []string) bool {
	for _, p := range paths {
		d := m.deps[p]
		if d == nil {
			return false
		}
		if d.err == "" {
			if pkg := m.pkgs[p]; pkg == nil || !pkg.Complete() {
				return false
			}
		}
	}
	return m.broken == ""
}

// missing returns the packages of paths that are not listed yet.
func (m *module) missing(paths []string) []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	var out []string
	for _, p := range paths {
		if m.deps[p] == nil {
			out = append(out, p)
		}
	}
	return out
}

// dropStaleLocal forgets every workspace dependency when one of them
// changed on disk (their export data was built from the old files), and
// with them the type information read so far.
func (m *module) dropStaleLocal() {
	m.mu.RLock()
	var local [][]stamp
	for _, d := range m.deps {
		if d.local != nil {
			local = append(local, d.local)
		}
	}
	m.mu.RUnlock()
	stale := false
	for _, l := range local { // stat'ed without the lock
		if !unchanged(l) {
			stale = true
			break
		}
	}
	if !stale {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for p, d := range m.deps {
		if d.local != nil {
			delete(m.deps, p)
		}
	}
	m.pkgs = map[string]*types.Package{}
	m.exportBytes = 0
	m.gen++
}

// load lists the packages of paths not listed yet. The go list run is not
// cancelled with ctx: it may be compiling the dependencies' export data,
// which a newer check of the module, cancelling this one, needs too (it
// waits for the run under loadMu and finds them listed). It is bounded by
// LoadTimeout and stopped by Checker.Close, which waits for it.
func (m *module) load(ctx context.Context, cwd string, paths []string) error {
	done := make(chan error, 1)
	m.loads.Go(func() {
		m.loadMu.Lock()
		defer m.loadMu.Unlock()
		done <- m.list(m.life, cwd, m.missing(paths))
	})
	select {
	case err := <-done:
		if err != nil && m.life.Err() != nil && ctx.Err() == nil {
			return &errSkip{"the type checker is closed"}
		}
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// listFields are the fields go list -export -deps prints.
const listFields = "-json=ImportPath,Dir,Export,Standard,Module,GoFiles,CgoFiles,Imports,Error,DepsErrors"

// list runs go list -export -deps on paths, which builds (or finds in the
// build cache) their export data and that of their dependencies, and
// records every package it reports.
func (m *module) list(ctx context.Context, cwd string, paths []string) error {
	if len(paths) == 0 {
		return nil
	}
	var args, bad []string
	for _, p := range paths {
		if !validImportPath(p) {
			bad = append(bad, p)
			continue
		}
		args = append(args, p)
	}
	var listed []listedPackage
	if len(args) > 0 {
		out, err := m.cmd.run(ctx, cwd, nil, append([]string{"list", "-e", "-export", "-deps", listFields, "--"}, args...)...)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return m.fail("go list: " + trimReason(err.Error()))
		}
		if listed, err = decodeList(out); err != nil {
			return m.fail(err.Error())
		}
	}
	var mains []listedModule
	if slices.ContainsFunc(listed, func(p listedPackage) bool { return p.Error != nil && !p.Standard }) {
		mains = m.mainModules(ctx, cwd)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range listed {
		d := &dep{export: p.Export, imports: p.Imports}
		switch {
		case p.Error != nil:
			d.err = strings.TrimSpace(p.Error.Err)
			d.export = ""
			if dir := missingDir(mains, p.ImportPath); dir != "" {
				d.local = []stamp{stampOf(dir)}
			}
		case p.Export == "" && len(p.DepsErrors) > 0:
			d.err = "its dependencies do not build: " + strings.TrimSpace(p.DepsErrors[0].Err)
		case p.Export == "":
			d.err = "no export data"
		}
		if d.local == nil && !p.Standard && p.Dir != "" && !inDir(p.Dir, m.env.GOMODCACHE) && !inDir(p.Dir, m.env.GOROOT) {
			d.local = packageStamps(p.Dir, p.GoFiles, p.CgoFiles)
		}
		m.deps[p.ImportPath] = d
	}
	for _, p := range paths {
		if m.deps[p] == nil {
			m.deps[p] = &dep{err: "cannot find package " + p}
			if slices.Contains(bad, p) {
				m.deps[p].err = "invalid import path " + p
			}
		}
	}
	return nil
}

// fail marks the module broken (until its go.mod or go.work changes) and
// returns the reason as an *errSkip.
func (m *module) fail(reason string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.broken = reason
	return &errSkip{reason}
}

// brokenReason returns why the module cannot be checked, or "".
func (m *module) brokenReason() string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.broken
}

// importAll reads the export data of the packages of paths that can be
// imported and are not read yet. A dependency that needs cgo, which
// cannot be built here, or export data this build of hermes-acp cannot
// read (a newer toolchain's) is a reason to skip the check.
func (m *module) importAll(paths []string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range paths {
		d := m.deps[p]
		if d == nil {
			continue
		}
		if d.err != "" {
			if strings.Contains(d.err, "cgo") || strings.Contains(d.err, "C compiler") {
				return &errSkip{fmt.Sprintf("dependency %s needs cgo, which cannot be built here: %s", p, trimReason(d.err))}
			}
			continue
		}
		if pkg := m.pkgs[p]; pkg != nil && pkg.Complete() {
			continue
		}
		if err := m.read(p, d.export); err != nil {
			m.broken = fmt.Sprintf("cannot read the export data of %s (%s built it; hermes-acp reads that of %s and earlier): %v",
				p, m.env.GOVERSION, goVersionOfBinary(), err)
			return &errSkip{m.broken}
		}
	}
	if mem := m.exportBytes/exportShare + astFactor*m.sourceBytes.Load(); mem > m.opts.MaxMemory {
		m.pkgs = map[string]*types.Package{}
		m.exportBytes = 0
		m.gen++
		return &errSkip{fmt.Sprintf("the type information of the package's dependencies needs more than the memory budget (%d MiB)", m.opts.MaxMemory>>20)}
	}
	return nil
}

// read reads the export data of package path from file into m.pkgs.
// m.mu must be held for writing.
func (m *module) read(path, file string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil {
		m.exportBytes += st.Size()
	}
	r, err := gcexportdata.NewReader(f)
	if err != nil {
		return err
	}
	_, err = gcexportdata.Read(r, m.fset, m.pkgs, path)
	return err
}

// packageStamps stamps a workspace package: its directory (files added or
// removed) and its Go files.
func packageStamps(dir string, lists ...[]string) []stamp {
	out := []stamp{stampOf(dir)}
	for _, l := range lists {
		for _, f := range l {
			out = append(out, stampOf(filepath.Join(dir, f)))
		}
	}
	return out
}

// missingDir returns the directory a package that was not found would be
// in, when its path is under a main module's, else "".
func missingDir(mains []listedModule, path string) string {
	for _, mod := range mains {
		if rest, ok := strings.CutPrefix(path, mod.Path+"/"); ok && mod.Dir != "" {
			return filepath.Join(mod.Dir, filepath.FromSlash(rest))
		}
	}
	return ""
}

// inDir reports whether path is dir or inside it.
func inDir(path, dir string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// validImportPath reports whether p can be given to go list as an import
// path (not a file system path or a pattern).
func validImportPath(p string) bool {
	return p != "" && !strings.HasPrefix(p, ".") && !strings.HasPrefix(p, "/") && !strings.HasPrefix(p, "-") &&
		!strings.Contains(p, "...") && !strings.ContainsAny(p, "\\ \t\n:")
}

// decodeModules decodes go list -m -json output.
func decodeModules(out []byte) ([]listedModule, error) {
	return decodeStream[listedModule](out)
}

// goVersionOfBinary is the Go release this program was built with, whose
// export data format it reads.
func goVersionOfBinary() string { return runtime.Version() }
