package search

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"
)

// Limits.
const (
	// DefaultTimeout bounds one search (hermes's 60 s command timeout).
	DefaultTimeout = 60 * time.Second
	// MaxFileBytes is the size above which a file is not searched.
	MaxFileBytes = 16 << 20
	// MaxLineChars caps the characters of one result line.
	MaxLineChars = 500
	// MaxContext caps the context lines around a match.
	MaxContext = 100
	// binarySniff is how many leading bytes are checked for NUL.
	binarySniff = 8 << 10
)

// Mode is what a content search reports about each matching file.
type Mode int

// The modes of a content search.
const (
	Lines  Mode = iota // the matching lines, with context lines
	Files              // the file only
	Counts             // the number of matching lines
)

// Query is what to search for.
type Query struct {
	// Pattern is a regular expression (RE2) matched against each line,
	// or, with Names, a glob matched against file names (see [Compile]).
	Pattern string
	// Names selects a search of file names instead of contents.
	Names bool
	// Glob, when not "", restricts a content search to the files it
	// selects (ripgrep's --glob rules).
	Glob string
	// Mode is what a content search reports.
	Mode Mode
	// Context is the number of lines shown before and after each match in
	// [Lines] mode, at most [MaxContext].
	Context int
	// Keep is the number of result rows, in path order, the caller will
	// look at: only the files holding them are kept (all of them for a
	// names search, which is ordered by time). Every hit is counted.
	Keep int
}

// Search is a compiled [Query]. It keeps no state between runs and is safe
// for concurrent use.
type Search struct {
	q        Query
	matcher  *matcher // content search
	nameGlob *glob    // names search
	fileGlob *glob    // Query.Glob of a content search
}

// Compile compiles q. A content pattern without regular expression
// metacharacters is searched as a literal; a names pattern without glob
// metacharacters matches any name containing it, ignoring case (hermes's
// bare-name wrapping). The error says which pattern is invalid and why.
func Compile(q Query) (*Search, error) {
	s := &Search{q: q}
	s.q.Context = min(MaxContext, max(0, q.Context))
	var err error
	if q.Names {
		if s.nameGlob, err = compileGlob(q.Pattern, true); err != nil {
			return nil, err
		}
		return s, nil
	}
	if s.matcher, err = compilePattern(q.Pattern); err != nil {
		return nil, err
	}
	if q.Glob != "" {
		if s.fileGlob, err = compileGlob(q.Glob, false); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Ignorer holds .gitignore rules, as workspace.IgnoreMatcher does. Paths
// are slash paths relative to one base folder.
type Ignorer interface {
	// Set records the content of the .gitignore file of folder dir.
	Set(dir string, data []byte)
	// Excluded reports whether the file or folder at rel is ignored.
	Excluded(rel string, isDir bool) bool
}

// Tree is where a search runs and what its caller decides about the files
// found. Paths given to its functions are slash paths below Dir ("" for
// File).
type Tree struct {
	// Dir is the folder searched (File's folder when File is set). The
	// caller opens it and closes it after [Search.Run] returns. A nil Dir
	// finds nothing, except the name of File.
	Dir *os.Root
	// File, when not "", is the name of the one file of Dir to search.
	File string
	// Ignore, when not nil, decides which files and folders the walk skips;
	// it already holds the rules of the folders above Dir, and the walk adds
	// the .gitignore files it meets. Its paths are relative to IgnoreBase,
	// the slash path of Dir in its base (use "." when Dir is the base).
	Ignore     Ignorer
	IgnoreBase string
	// Admit, when not nil, reports whether a file with hits may be shown;
	// the rows of a refused file are counted in [Result.Omitted]. It is
	// called from several goroutines.
	Admit func(rel string) bool
	// Show, when not nil, is how a file appears in [Hit.Path]; by default
	// its path below Dir (File for a single file). It is called from
	// several goroutines.
	Show func(rel string) string
	// Binary, when not nil, reports from its first bytes whether a file is
	// binary and not searched; files with a NUL byte in their first 8 KiB
	// are binary in any case.
	Binary func(first []byte) bool
}

// Options tune a run. The zero value is the default.
type Options struct {
	// Timeout bounds the run (default [DefaultTimeout]); a run that hits
	// it returns what it found with [Result.TimedOut] set.
	Timeout time.Duration
	// Workers is the number of files searched at once (default between 4
	// and 16, twice the processors).
	Workers int
	// BeforeFile, when set, runs in a worker before each file is searched
	// (tests use it to hold files back).
	BeforeFile func(ctx context.Context)
}

// Result is what a run found.
type Result struct {
	// Hits are the kept files: in path order for a content search, newest
	// first (then by path) for a names search.
	Hits []Hit
	// Units is the number of result rows of every admitted file, kept or
	// not.
	Units int
	// CountSum is the number of matching lines of every admitted file
	// ([Counts] mode).
	CountSum int
	// Omitted is the number of rows of the files [Tree.Admit] refused.
	Omitted int
	// TimedOut reports that the run stopped at its timeout; the counts are
	// then lower bounds.
	TimedOut bool
}

// Entry is one row of a content result: a matching line or one of its
// context lines.
type Entry struct {
	// Line is the 1-based line number.
	Line int
	// Text is the line without its line ending, at most [MaxLineChars]
	// characters.
	Text string
}

// Run searches t. The walk does not follow symbolic links and skips hidden
// folders, node_modules, ignored files and folders, binary files and files
// over [MaxFileBytes]; the files it finds are searched by a pool of
// workers. It returns an error only when ctx is done, ctx's own.
func (s *Search) Run(ctx context.Context, t Tree, opts Options) (Result, error) {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Workers <= 0 {
		opts.Workers = min(16, max(4, 2*runtime.GOMAXPROCS(0)))
	}
	r := &run{Search: s, tree: t, opts: opts, coll: newCollector(s.q.Keep, s.q.Names)}
	runCtx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	if t.File != "" {
		r.searchOne(runCtx)
	} else if t.Dir != nil {
		r.walkTree(runCtx)
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	return r.result(runCtx.Err() != nil), nil
}

// run is one run of a Search in progress.
type run struct {
	*Search
	tree Tree
	opts Options
	coll *collector
}

// job is one file for a worker.
type job struct {
	dir  *dirRef
	name string
	rel  string // slash path below the search root
}

// dirRef is a directory open during the walk; the walker and each queued
// job hold a reference, and the last one out closes it.
type dirRef struct {
	root *os.Root
	refs atomic.Int32
	own  bool // close root when released
}

func (d *dirRef) release() {
	if d.refs.Add(-1) == 0 && d.own {
		d.root.Close()
	}
}

// walkTree walks the search root with one goroutine (which owns the
// ignore rules) and searches the files it finds with a pool of workers,
// or, for a names search, matches names as it goes.
func (r *run) walkTree(ctx context.Context) {
	top := r.tree.Dir
	ign := r.tree.Ignore

	var jobs chan job
	var wg sync.WaitGroup
	if !r.q.Names {
		jobs = make(chan job, 256)
		for range r.opts.Workers {
			wg.Go(func() { r.worker(ctx, jobs) })
		}
	}
	defer func() {
		if jobs != nil {
			close(jobs)
			wg.Wait()
		}
	}()

	base := r.tree.IgnoreBase
	stack := []string{"."}
	for len(stack) > 0 && ctx.Err() == nil {
		rel := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		d := &dirRef{root: top}
		if rel != "." {
			sub, err := top.OpenRoot(filepath.FromSlash(rel))
			if err != nil {
				continue
			}
			d.root, d.own = sub, true
		}
		d.refs.Store(1)
		entries := readDir(d.root)
		if ign != nil {
			for _, e := range entries {
				if e.Name() == ".gitignore" && e.Type().IsRegular() {
					if data, err := d.root.ReadFile(".gitignore"); err == nil {
						ign.Set(path.Join(base, rel), data)
					}
					break
				}
			}
		}
		for _, e := range entries {
			name := e.Name()
			t := e.Type()
			childRel := path.Join(rel, name)
			switch {
			case t&fs.ModeSymlink != 0:
				// Symbolic links are not followed, as ripgrep does not.
			case t.IsDir():
				if name[0] == '.' || name == "node_modules" || (ign != nil && ign.Excluded(path.Join(base, childRel), true)) {
					continue
				}
				stack = append(stack, childRel)
			case t.IsRegular():
				if ign != nil && ign.Excluded(path.Join(base, childRel), false) {
					continue
				}
				if r.q.Names {
					r.matchName(d.root, name, childRel)
					continue
				}
				if r.fileGlob != nil && !r.fileGlob.match(childRel, name) {
					continue
				}
				d.refs.Add(1)
				select {
				case jobs <- job{dir: d, name: name, rel: childRel}:
				case <-ctx.Done():
					d.release()
				}
			}
		}
		d.release()
	}
}

func readDir(r *os.Root) []fs.DirEntry {
	d, err := r.Open(".")
	if err != nil {
		return nil
	}
	defer d.Close()
	entries, _ := d.ReadDir(-1)
	return entries
}

// matchName handles one file of a names search.
func (r *run) matchName(dir *os.Root, name, rel string) {
	if !r.nameGlob.match(rel, name) {
		return
	}
	var mod int64
	if fi, err := dir.Lstat(name); err == nil {
		mod = fi.ModTime().UnixNano()
	}
	r.coll.addFile(r.admit(rel, 1), Hit{Path: r.show(rel), Units: 1, mod: mod})
}

// searchOne searches the single file of the tree.
func (r *run) searchOne(ctx context.Context) {
	name := r.tree.File
	if r.q.Names {
		if r.nameGlob.match(name, name) {
			r.coll.addFile(r.admit("", 1), Hit{Path: r.show(""), Units: 1})
		}
		return
	}
	if r.tree.Dir == nil || (r.fileGlob != nil && !r.fileGlob.match(name, name)) {
		return
	}
	d := &dirRef{root: r.tree.Dir}
	d.refs.Store(1)
	var w worker
	w.file(ctx, r, job{dir: d, name: name, rel: ""})
	d.release()
}

// admit reports whether the file at rel may be shown, counting units
// omitted results when the tree refuses it.
func (r *run) admit(rel string, units int) bool {
	if r.tree.Admit == nil || r.tree.Admit(rel) {
		return true
	}
	r.coll.omit(units)
	return false
}

// show is how the file at rel appears in results.
func (r *run) show(rel string) string {
	switch {
	case r.tree.Show != nil:
		return r.tree.Show(rel)
	case rel == "":
		return r.tree.File
	}
	return rel
}

// worker holds a worker's reusable read buffer.
type worker struct {
	buf []byte
}

func (r *run) worker(ctx context.Context, jobs <-chan job) {
	var w worker
	for j := range jobs {
		if ctx.Err() == nil {
			w.file(ctx, r, j)
		}
		j.dir.release()
	}
}

// file searches one file's content.
func (w *worker) file(ctx context.Context, r *run, j job) {
	if r.opts.BeforeFile != nil {
		r.opts.BeforeFile(ctx)
		if ctx.Err() != nil {
			return
		}
	}
	f, err := j.dir.root.OpenFile(j.name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > MaxFileBytes {
		return
	}
	data, err := w.read(f, fi.Size())
	if err != nil {
		return
	}
	if bytes.IndexByte(data[:min(len(data), binarySniff)], 0) >= 0 || (r.tree.Binary != nil && r.tree.Binary(data)) {
		return
	}
	switch r.q.Mode {
	case Files:
		if r.matcher.any(ctx, data) && r.admit(j.rel, 1) {
			r.coll.addFile(true, Hit{Path: r.show(j.rel), Units: 1, Count: 1})
		}
	case Counts:
		if n := r.matcher.count(ctx, data); n > 0 && r.admit(j.rel, 1) {
			r.coll.addFile(true, Hit{Path: r.show(j.rel), Units: 1, Count: n})
		}
	default:
		lines := r.matcher.lines(ctx, data)
		if len(lines) == 0 {
			return
		}
		entries := entriesOf(data, lines, r.q.Context)
		if !r.admit(j.rel, len(entries)) {
			return
		}
		r.coll.addFile(true, Hit{Path: r.show(j.rel), Units: len(entries), Entries: entries})
	}
}

// read reads f (of the given size) into the worker's buffer.
func (w *worker) read(f *os.File, size int64) ([]byte, error) {
	need := int(size) + 1
	if cap(w.buf) < need {
		w.buf = make([]byte, need+need/4)
	}
	buf := w.buf[:cap(w.buf)]
	n := 0
	for {
		if n == len(buf) {
			if len(buf) >= MaxFileBytes+1 {
				return nil, errors.New("file grew past the size limit")
			}
			w.buf = slices.Grow(buf[:n], len(buf))
			buf = w.buf[:cap(w.buf)]
		}
		m, err := f.Read(buf[n:])
		n += m
		if err == io.EOF || (err == nil && int64(n) == size && m > 0) {
			// A regular file read up to the size fstat gave is complete;
			// skipping the read that would return EOF saves a system call.
			return buf[:n], nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// entriesOf renders the matching lines of data, with ctxLines lines of
// context around each (overlapping ranges merged, as ripgrep does).
func entriesOf(data []byte, lines []line, ctxLines int) []Entry {
	if ctxLines == 0 {
		out := make([]Entry, len(lines))
		for i, l := range lines {
			out[i] = Entry{Line: l.no, Text: clip(data[l.start:l.end])}
		}
		return out
	}
	starts := []int{0}
	for i := 0; ; {
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 || i+j+1 >= len(data) {
			break
		}
		i += j + 1
		starts = append(starts, i)
	}
	lineAt := func(no int) []byte {
		s := starts[no-1]
		e := len(data)
		if no < len(starts) {
			e = starts[no] - 1
		} else if e > s && data[e-1] == '\n' {
			e--
		}
		return data[s:e]
	}
	var out []Entry
	last := 0
	for _, l := range lines {
		from := max(last+1, l.no-ctxLines)
		to := min(len(starts), l.no+ctxLines)
		for n := from; n <= to; n++ {
			out = append(out, Entry{Line: n, Text: clip(lineAt(n))})
		}
		last = max(last, to)
	}
	return out
}

// clip is a line as shown: without a trailing CR, at most MaxLineChars
// characters.
func clip(line []byte) string {
	line = bytes.TrimSuffix(line, []byte("\r"))
	if len(line) > MaxLineChars {
		i := 0
		for c := 0; c < MaxLineChars && i < len(line); c++ {
			_, size := utf8.DecodeRune(line[i:])
			i += size
		}
		return string(line[:i])
	}
	return string(line)
}

// result sorts the kept hits and adds the totals.
func (r *run) result(timedOut bool) Result {
	hits, tot := r.coll.finish()
	if r.q.Names {
		slices.SortFunc(hits, func(x, y Hit) int {
			if x.mod != y.mod {
				if x.mod > y.mod {
					return -1
				}
				return 1
			}
			return strings.Compare(x.Path, y.Path)
		})
	} else {
		slices.SortFunc(hits, func(x, y Hit) int { return strings.Compare(x.Path, y.Path) })
	}
	return Result{Hits: hits, Units: tot.units, CountSum: tot.countSum, Omitted: tot.omitted, TimedOut: timedOut}
}
