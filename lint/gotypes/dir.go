package gotypes

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// fileKind is how the go command builds a file of a package directory.
type fileKind uint8

const (
	kindIgnored fileKind = iota // excluded by build constraints, or not Go
	kindPackage                 // GoFiles and CgoFiles
	kindTest                    // TestGoFiles: in the package, for its tests
	kindXTest                   // XTestGoFiles: the external test package
)

// pkgDir is a module's cache for one package directory: the Go files last
// seen on disk (content, stamp), their parsed syntax, how the go command
// classified each set of files it was asked about, and the type errors of
// the last few states checked. Its lock serialises the checks of the
// directory.
type pkgDir struct {
	path string
	m    *module

	mu       sync.Mutex // guards the fields below, and serialises checks
	disk     map[string]*srcFile
	parsed   map[fileID]*ast.File
	listings map[[32]byte]*listing
	results  map[[32]byte][]typeError
	// order is the age of results' keys, oldest first.
	order [][32]byte
}

// fileID identifies a parse: the file's name and its content's hash.
type fileID struct {
	name string
	hash [32]byte
}

// Bounds of a pkgDir's caches.
const (
	maxListings = 8
	maxResults  = 4
)

func newPkgDir(path string, m *module) *pkgDir {
	return &pkgDir{path: path, m: m, disk: map[string]*srcFile{}, parsed: map[fileID]*ast.File{},
		listings: map[[32]byte]*listing{}, results: map[[32]byte][]typeError{}}
}

// srcFile is one version of a Go file of the directory.
type srcFile struct {
	name    string // base name
	content []byte
	hash    [32]byte
	stamp   stamp // of the disk file; zero for content from an Edit
	// header is what decides how the file is built: the text before its
	// package clause (build constraints), its package name and whether it
	// imports "C".
	header  string
	pkgName string
}

// newSrcFile reads the header of content.
func newSrcFile(name string, content []byte, st stamp) *srcFile {
	f := &srcFile{name: name, content: content, hash: sha256.Sum256(content), stamp: st}
	af, _ := parser.ParseFile(token.NewFileSet(), name, content, parser.ImportsOnly|parser.ParseComments)
	if af == nil || af.Name == nil || !af.Package.IsValid() {
		f.header = "\x00invalid\x00" + string(f.hash[:])
		return f
	}
	off := int(af.Package) - 1 // the FileSet holds this file alone, at base 1
	f.pkgName = af.Name.Name
	hasC := false
	for _, im := range af.Imports {
		if p, err := strconv.Unquote(im.Path.Value); err == nil && p == "C" {
			hasC = true
		}
	}
	f.header = string(content[:max(0, min(off, len(content)))]) + "\x00" + f.pkgName + "\x00" + strconv.FormatBool(hasC)
	return f
}

// listing is how the go command builds the files of a directory.
type listing struct {
	importPath, name, goVersion string
	kinds                       map[string]fileKind
}

// state is one version of the package directory: the disk with an Edit's
// contents laid over it.
type state struct {
	files   map[string]*srcFile
	listing *listing
	// pkg holds the package's files and its in-package tests; xtest the
	// external test package's; both sorted by name.
	pkg, xtest []*srcFile
}

// units returns the state's files of kind Package, Test and XTest.
func (s *state) all() []*srcFile { return slices.Concat(s.pkg, s.xtest) }

// key identifies the state's type errors: its files, how they are built,
// and gen, the generation of the dependency information.
func (s *state) key(gen int, goVersion string) [32]byte {
	h := sha256.New()
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], uint64(gen))
	h.Write(buf[:])
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00", s.listing.importPath, s.listing.name, goVersion)
	for _, group := range [][]*srcFile{s.pkg, s.xtest} {
		for _, f := range group {
			fmt.Fprintf(h, "%s\x00", f.name)
			h.Write(f.hash[:])
		}
		h.Write([]byte{0xff})
	}
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// readDisk reads the directory's Go files, reusing the versions whose
// stamps did not change. A missing directory has none.
func (d *pkgDir) readDisk() (exists bool, err error) {
	entries, err := os.ReadDir(d.path)
	if errors.Is(err, fs.ErrNotExist) {
		clear(d.disk)
		return false, nil
	}
	if err != nil {
		return false, err
	}
	seen := map[string]*srcFile{}
	for _, e := range entries {
		name := e.Name()
		if !goFileName(name) || e.IsDir() {
			continue
		}
		path := filepath.Join(d.path, name)
		st := stampOf(path)
		if !st.exists {
			continue
		}
		if old := d.disk[name]; old != nil && old.stamp == st {
			seen[name] = old
			continue
		}
		content, err := os.ReadFile(path)
		if err != nil {
			continue // unreadable: go list reports it if it matters
		}
		seen[name] = newSrcFile(name, content, st)
	}
	d.disk = seen
	return true, nil
}

// goFileName reports whether the go command considers a file of this name
// (a .go file not starting with "." or "_").
func goFileName(name string) bool {
	return strings.HasSuffix(name, ".go") && !strings.HasPrefix(name, ".") && !strings.HasPrefix(name, "_")
}

// overlay returns the files of the state that lays contents (by absolute
// path; nil deletes) over the disk.
func (d *pkgDir) overlay(contents map[string][]byte) map[string]*srcFile {
	files := make(map[string]*srcFile, len(d.disk)+len(contents))
	for name, f := range d.disk {
		files[name] = f
	}
	for path, content := range contents {
		if filepath.Dir(path) != d.path || !goFileName(filepath.Base(path)) {
			continue
		}
		name := filepath.Base(path)
		if content == nil {
			delete(files, name)
			continue
		}
		if old := d.disk[name]; old != nil && string(old.content) == string(content) {
			files[name] = old
			continue
		}
		files[name] = newSrcFile(name, content, stamp{})
	}
	return files
}

// state classifies files, listing them with the go command when their
// names and headers are new, and returns the state.
func (d *pkgDir) state(ctx context.Context, files map[string]*srcFile, exists bool) (*state, error) {
	sig := signature(files)
	l := d.listings[sig]
	if l == nil {
		var err error
		if exists {
			l, err = d.list(ctx, files)
		} else {
			l = d.guess(ctx, files)
		}
		if err != nil {
			return nil, err
		}
		if len(d.listings) >= maxListings {
			clear(d.listings)
		}
		d.listings[sig] = l
	}
	s := &state{files: files, listing: l}
	for _, name := range sortedKeys(files) {
		switch l.kinds[name] {
		case kindPackage, kindTest:
			s.pkg = append(s.pkg, files[name])
		case kindXTest:
			s.xtest = append(s.xtest, files[name])
		}
	}
	return s, nil
}

// signature hashes the names and headers of files: all that decides how
// they are built.
func signature(files map[string]*srcFile) [32]byte {
	h := sha256.New()
	for _, name := range sortedKeys(files) {
		fmt.Fprintf(h, "%s\x00%d\x00%s", name, len(files[name].header), files[name].header)
	}
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// findFields are the fields of go list -find output a listing needs.
const findFields = "-json=Dir,ImportPath,Name,Module,GoFiles,CgoFiles,TestGoFiles,XTestGoFiles,Error"

// list asks the go command how it builds files: go list -find with an
// overlay for the files that differ from the disk.
func (d *pkgDir) list(ctx context.Context, files map[string]*srcFile) (*listing, error) {
	replace := map[string]string{}
	var tmp string
	defer func() {
		if tmp != "" {
			os.RemoveAll(tmp)
		}
	}()
	for name, f := range files {
		if d.disk[name] == f {
			continue
		}
		if tmp == "" {
			var err error
			if tmp, err = os.MkdirTemp("", "hermes-gotypes-"); err != nil {
				return nil, &errSkip{"overlay: " + err.Error()}
			}
		}
		p := filepath.Join(tmp, strconv.Itoa(len(replace))+".go")
		if err := os.WriteFile(p, f.content, 0o600); err != nil {
			return nil, &errSkip{"overlay: " + err.Error()}
		}
		replace[filepath.Join(d.path, name)] = p
	}
	for name := range d.disk {
		if files[name] == nil {
			replace[filepath.Join(d.path, name)] = "" // deleted
		}
	}
	args := []string{"list", "-e", "-find", findFields}
	if len(replace) > 0 {
		data, err := json.Marshal(map[string]any{"Replace": replace})
		if err != nil {
			return nil, err
		}
		op := filepath.Join(tmp, "overlay.json")
		if tmp == "" {
			if tmp, err = os.MkdirTemp("", "hermes-gotypes-"); err != nil {
				return nil, &errSkip{"overlay: " + err.Error()}
			}
			op = filepath.Join(tmp, "overlay.json")
		}
		if err := os.WriteFile(op, data, 0o600); err != nil {
			return nil, &errSkip{"overlay: " + err.Error()}
		}
		args = append(args, "-overlay="+op)
	}
	out, err := d.m.cmd.run(ctx, d.path, nil, append(args, ".")...)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, d.m.fail("go list: " + trimReason(err.Error()))
	}
	pkgs, err := decodeList(out)
	if err != nil || len(pkgs) != 1 {
		return nil, &errSkip{fmt.Sprintf("go list: unexpected output (%v)", err)}
	}
	p := pkgs[0]
	l := &listing{importPath: p.ImportPath, name: p.Name, kinds: map[string]fileKind{}}
	if p.Module != nil {
		l.goVersion = p.Module.GoVersion
	}
	for _, f := range slices.Concat(p.GoFiles, p.CgoFiles) {
		l.kinds[f] = kindPackage
	}
	for _, f := range p.TestGoFiles {
		l.kinds[f] = kindTest
	}
	for _, f := range p.XTestGoFiles {
		l.kinds[f] = kindXTest
	}
	if l.name == "" {
		l.name = guessName(files)
	}
	return l, nil
}

// guess classifies the files of a directory that does not exist yet (a
// new package is being proposed), as the go command would without build
// constraints: test files by their package clause, every other file in
// the package. The import path is the main module's path joined with the
// directory.
func (d *pkgDir) guess(ctx context.Context, files map[string]*srcFile) *listing {
	l := &listing{name: guessName(files), kinds: map[string]fileKind{}}
	for _, mod := range d.m.mainModules(ctx, existingDir(d.path)) {
		if inDir(d.path, mod.Dir) {
			rel, _ := filepath.Rel(mod.Dir, d.path)
			l.importPath, l.goVersion = mod.Path+"/"+filepath.ToSlash(rel), mod.GoVersion
			break
		}
	}
	if l.importPath == "" {
		l.importPath = filepath.ToSlash(d.path)
	}
	for name, f := range files {
		switch {
		case !strings.HasSuffix(name, "_test.go"):
			l.kinds[name] = kindPackage
		case strings.HasSuffix(f.pkgName, "_test"):
			l.kinds[name] = kindXTest
		default:
			l.kinds[name] = kindTest
		}
	}
	return l
}

// guessName returns the package name of the first non-test file, or of the
// first file.
func guessName(files map[string]*srcFile) string {
	name := ""
	for _, n := range sortedKeys(files) {
		f := files[n]
		if f.pkgName == "" {
			continue
		}
		if !strings.HasSuffix(n, "_test.go") {
			return f.pkgName
		}
		if name == "" {
			name = strings.TrimSuffix(f.pkgName, "_test")
		}
	}
	return name
}

// parse returns the syntax of f, parsed once per content into the
// module's FileSet. Parse errors are the syntax lint's, not reported here.
func (d *pkgDir) parse(f *srcFile) *ast.File {
	id := fileID{f.name, f.hash}
	if af := d.parsed[id]; af != nil {
		return af
	}
	af, _ := parser.ParseFile(d.m.fset, filepath.Join(d.path, f.name), f.content, parser.SkipObjectResolution|parser.AllErrors)
	if af == nil {
		return nil
	}
	d.parsed[id] = af
	d.m.sourceBytes.Add(int64(len(f.content)))
	return af
}

// forget drops the parsed files that neither state uses once the cache
// holds more than twice as many as the directory has.
func (d *pkgDir) forget(states ...*state) {
	if len(d.parsed) <= 2*len(d.disk)+16 {
		return
	}
	keep := map[fileID]bool{}
	for _, s := range states {
		for _, f := range s.all() {
			keep[fileID{f.name, f.hash}] = true
		}
	}
	for id, af := range d.parsed {
		if keep[id] {
			continue
		}
		delete(d.parsed, id)
		if tf := d.m.fset.File(af.Pos()); tf != nil {
			d.m.sourceBytes.Add(-int64(tf.Size()))
			d.m.fset.RemoveFile(tf) // nothing refers to its positions any more
		}
	}
}

// imports returns the import paths of the state's files, sorted, without
// "C" and "unsafe" and without the package itself (which its external
// tests import).
func (d *pkgDir) imports(s *state) []string {
	set := map[string]bool{}
	for _, f := range s.all() {
		af := d.parse(f)
		if af == nil {
			continue
		}
		for _, im := range af.Imports {
			p, err := strconv.Unquote(im.Path.Value)
			if err != nil || p == "C" || p == "unsafe" || p == s.listing.importPath {
				continue
			}
			set[p] = true
		}
	}
	return sortedKeys(set)
}

// remember keeps the type errors of the state with key k, forgetting the
// oldest beyond maxResults.
func (d *pkgDir) remember(k [32]byte, errs []typeError) {
	if _, ok := d.results[k]; ok {
		return
	}
	d.results[k] = errs
	d.order = append(d.order, k)
	for len(d.order) > maxResults {
		delete(d.results, d.order[0])
		d.order = d.order[1:]
	}
}
