package gotypes

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/types"
	"strings"
	"sync"
)

// maxErrors bounds the type errors kept of one state.
const maxErrors = 500

// typeError is one go/types error in byte offsets.
type typeError struct {
	file string // absolute path
	off  int
	msg  string
	// related are the "\t…" continuations go/types reports after it.
	related []typeError
}

// check is Checker.Check for a package directory of the module.
func (m *module) check(ctx context.Context, dir string, e Edit) (Result, error) {
	skip := func(reason string) (Result, error) {
		return Result{Skipped: true, Reason: reason, Dir: dir}, nil
	}
	if reason := m.brokenReason(); reason != "" {
		return skip(reason)
	}
	d := m.dir(dir)
	d.mu.Lock()
	defer d.mu.Unlock()
	exists, err := d.readDisk()
	if err != nil {
		return skip("cannot read the package directory: " + err.Error())
	}
	before, after, err := d.states(ctx, e, exists)
	if err == nil {
		err = d.checkSize(before, after)
	}
	if err != nil {
		return skipOrErr(dir, err)
	}
	paths := mergeSorted(d.imports(before), d.imports(after))
	cwd := dir
	if !exists {
		cwd = existingDir(dir)
	}
	gen, err := m.prepare(ctx, cwd, paths)
	if err != nil {
		return skipOrErr(dir, err)
	}
	// m.mu is held for reading until the type checks end.
	goVersion := after.listing.goVersion
	if goVersion == "" {
		goVersion = before.listing.goVersion
	}
	bk, ak := before.key(gen, goVersion), after.key(gen, goVersion)
	bErrs, bOK := d.results[bk]
	aErrs, aOK := d.results[ak]
	// The two checks run at once; every file was parsed by imports above,
	// so they only read d's caches.
	var wg sync.WaitGroup
	if !bOK && bk != ak {
		bPkg, bX := d.syntax(before.pkg), d.syntax(before.xtest)
		wg.Go(func() { bErrs = m.typeCheck(before, bPkg, bX, goVersion) })
	}
	if !aOK {
		aErrs = m.typeCheck(after, d.syntax(after.pkg), d.syntax(after.xtest), goVersion)
	}
	wg.Wait()
	if bk == ak {
		bErrs = aErrs
	}
	m.mu.RUnlock()
	d.remember(bk, bErrs)
	d.remember(ak, aErrs)
	d.forget(before, after)
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	r := classify(dir, e.File, before, after, bErrs, aErrs)
	r.Package = after.listing.importPath
	return r, nil
}

// skipOrErr turns an *errSkip into a skipped Result and returns any other
// error (ctx's).
func skipOrErr(dir string, err error) (Result, error) {
	var s *errSkip
	if errors.As(err, &s) {
		return Result{Skipped: true, Reason: s.reason, Dir: dir}, nil
	}
	return Result{}, err
}

// states returns the directory's two states around the edit.
func (d *pkgDir) states(ctx context.Context, e Edit, exists bool) (before, after *state, err error) {
	before, err = d.state(ctx, d.overlay(e.Before), exists)
	if err != nil {
		return nil, nil, err
	}
	after, err = d.state(ctx, d.overlay(e.After), exists)
	return before, after, err
}

// checkSize refuses a package larger than the budget.
func (d *pkgDir) checkSize(states ...*state) error {
	for _, s := range states {
		var n int64
		for _, f := range s.all() {
			n += int64(len(f.content))
		}
		if n > d.m.opts.MaxPackageBytes {
			return &errSkip{fmt.Sprintf("the package is larger than %d MiB", d.m.opts.MaxPackageBytes>>20)}
		}
	}
	return nil
}

// typeCheck type-checks a state, given the syntax of its files: the
// package with its in-package tests, then its external tests against
// that. m.mu must be held for reading, with every import of the state
// prepared.
func (m *module) typeCheck(s *state, pkgFiles, xtestFiles []*ast.File, goVersion string) []typeError {
	var errs []typeError
	report := func(err error) {
		var te types.Error
		if !errors.As(err, &te) {
			return
		}
		pos := te.Fset.Position(te.Pos)
		e := typeError{file: pos.Filename, off: pos.Offset, msg: te.Msg}
		if !te.Pos.IsValid() {
			e.off = -1
		}
		if strings.HasPrefix(te.Msg, "\t") && len(errs) > 0 {
			last := &errs[len(errs)-1]
			e.msg = strings.TrimSpace(e.msg)
			last.related = append(last.related, e)
			return
		}
		if len(errs) < maxErrors {
			errs = append(errs, e)
		}
	}
	conf := func(self map[string]*types.Package) *types.Config {
		gv := ""
		if goVersion != "" {
			gv = "go" + goVersion
		}
		return &types.Config{
			GoVersion:   gv,
			Sizes:       m.sizes,
			FakeImportC: true,
			Importer:    importer{m: m, self: self},
			Error:       report,
		}
	}
	var pkg *types.Package
	if len(pkgFiles) > 0 {
		pkg, _ = conf(nil).Check(s.listing.importPath, m.fset, pkgFiles, nil)
	}
	if files := xtestFiles; len(files) > 0 {
		self := map[string]*types.Package{}
		if pkg != nil {
			self[s.listing.importPath] = pkg
		}
		conf(self).Check(s.listing.importPath+"_test", m.fset, files, nil)
	}
	return errs
}

// syntax returns the parsed files, leaving out any that did not parse.
func (d *pkgDir) syntax(files []*srcFile) []*ast.File {
	out := make([]*ast.File, 0, len(files))
	for _, f := range files {
		if af := d.parse(f); af != nil {
			out = append(out, af)
		}
	}
	return out
}

// importer imports the module's prepared dependencies, and the packages
// of self (the package under test, for its external tests). m.mu is held
// for reading while it is used.
type importer struct {
	m    *module
	self map[string]*types.Package
}

func (i importer) Import(path string) (*types.Package, error) {
	if p := i.self[path]; p != nil {
		return p, nil
	}
	if path == "unsafe" {
		return types.Unsafe, nil
	}
	d := i.m.deps[path]
	switch {
	case d == nil:
		return nil, fmt.Errorf("cannot find package %s", path)
	case d.err != "":
		return nil, errors.New(d.err)
	}
	if p := i.m.pkgs[path]; p != nil && p.Complete() {
		return p, nil
	}
	return nil, fmt.Errorf("package %s was not loaded", path)
}

// mergeSorted returns the sorted union of two sorted lists.
func mergeSorted(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i] < b[j]:
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i, j = i+1, j+1
		}
	}
	return out
}
