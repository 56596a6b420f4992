package tools

import (
	"bytes"
	"container/heap"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// search_files searches file contents (a regular expression, line by line)
// or file names (a glob) below a workspace directory, as hermes-agent's
// tool of the same name does with ripgrep, but in process: a .gitignore-
// aware walk that skips hidden directories, node_modules, binary and huge
// files and does not follow symbolic links, feeding a bounded pool of
// workers. Results are sorted deterministically (content: by path then
// line; file names: newest first), paginated with offset and limit, and
// cleaned of read-denied files. The whole search stops after 60 seconds
// with what it found.
var _ = register(registry.Entry{
	Name:        searchFilesName,
	Toolset:     "file",
	Emoji:       "🔎",
	Description: searchFilesDescription,
	Schema: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"pattern": map[string]any{
				"type":        "string",
				"description": "Regex pattern for content search, or glob pattern (e.g., '*.py') for file search",
			},
			"target": map[string]any{
				"type":        "string",
				"enum":        []any{"content", "files"},
				"description": "'content' searches inside file contents, 'files' searches for files by name",
				"default":     "content",
			},
			"path": map[string]any{
				"type":        "string",
				"description": "Directory or file to search in (default: current working directory)",
				"default":     ".",
			},
			"file_glob": map[string]any{
				"type":        "string",
				"description": "Filter files by pattern in grep mode (e.g., '*.py' to only search Python files)",
			},
			"limit": map[string]any{
				"type":        "integer",
				"description": "Maximum number of results to return (default: 50)",
				"default":     50,
			},
			"offset": map[string]any{
				"type":        "integer",
				"description": "Skip first N results for pagination (default: 0)",
				"default":     0,
			},
			"output_mode": map[string]any{
				"type":        "string",
				"enum":        []any{"content", "files_only", "count"},
				"description": "Output format for grep mode: 'content' shows matching lines with line numbers, 'files_only' lists file paths, 'count' shows match counts per file",
				"default":     "content",
			},
			"context": map[string]any{
				"type":        "integer",
				"description": "Number of context lines before and after each match (grep mode only)",
				"default":     0,
			},
		},
		"required": []any{"pattern"},
	},
	MaxResultChars: 100_000,
	Kind:           registry.KindSearch,
	ReadOnly:       true,
	Idempotent:     true,
	ParallelSafe:   true,
	Title:          searchFilesTitle,
	Preview:        searchFilesPreview,
	Render:         searchFilesRender,
}, handle(searchFiles))

//go:embed search_files.md
var searchFilesDescription string

// searchFilesName is the tool's name, for other tools' hints.
const searchFilesName = "search_files"

// searchFilesParams are search_files's arguments. The numbers are any:
// hermes takes "20" as 20 and anything unusable as the default.
type searchFilesParams struct {
	Pattern    string `json:"pattern"`
	Target     string `json:"target"`
	Path       string `json:"path"`
	FileGlob   string `json:"file_glob"`
	OutputMode string `json:"output_mode"`
	Limit      any    `json:"limit"`
	Offset     any    `json:"offset"`
	Context    any    `json:"context"`
}

// Limits.
const (
	searchDefaultLimit = 50
	// searchTimeout bounds one search (hermes's 60 s command timeout).
	searchTimeout = 60 * time.Second
	// searchMaxFileBytes is the size above which a file is not searched.
	searchMaxFileBytes = 16 << 20
	// searchBinarySniff is how many leading bytes are checked for NUL.
	searchBinarySniff = 8 << 10
	// searchMaxMatchChars caps the text of one match line.
	searchMaxMatchChars = 500
	// searchMaxContext caps the context lines around a match.
	searchMaxContext = 100
	// searchDensifyMin is the match count from which matches are sent as
	// path-grouped text (hermes's _DENSIFY_MIN_MATCHES).
	searchDensifyMin = 5
	// searchSimilarScan is how many directory entries are considered for a
	// missing path's suggestions (hermes's `ls | head -20`).
	searchSimilarScan = 20
)

const searchMatchesFormat = "path-grouped: each file path on its own line, followed by indented " +
	"'<line>: <content>' rows for matches in that file"

// searchConfig holds what tests change about a search; the handler uses
// searchDefaultConfig.
type searchConfig struct {
	timeout time.Duration
	workers int
	// beforeFile, when set, runs in a worker before each file is searched.
	beforeFile func(ctx context.Context)
}

func searchDefaultConfig() searchConfig {
	return searchConfig{
		timeout: searchTimeout,
		workers: min(16, max(4, 2*runtime.GOMAXPROCS(0))),
	}
}

// searchArgs are the normalised arguments of one call.
type searchArgs struct {
	pattern, target, path, glob, mode string
	limit, offset, context            int
}

// searchResult is search_files's answer, in hermes's key order.
type searchResult struct {
	TotalCount    int              `json:"total_count"`
	MatchesFormat string           `json:"matches_format,omitempty"`
	MatchesText   string           `json:"matches_text,omitempty"`
	Matches       []searchMatchOut `json:"matches,omitempty"`
	Files         []string         `json:"files,omitempty"`
	Counts        map[string]int   `json:"counts,omitempty"`
	Truncated     bool             `json:"truncated,omitempty"`
	LowerBound    bool             `json:"total_count_is_lower_bound,omitempty"`
	LimitReason   string           `json:"limit_reason,omitempty"`
	Warning       string           `json:"warning,omitempty"`
	Error         string           `json:"error,omitempty"`
	Omitted       string           `json:"_omitted,omitempty"`
	LoopWarning   string           `json:"_warning,omitempty"`
}

type searchMatchOut struct {
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Content string `json:"content"`
}

func searchFiles(ctx context.Context, env *session, _ *registry.Call, p *searchFilesParams) (registry.Result, error) {
	return searchFilesRun(ctx, env, p, searchDefaultConfig())
}

func searchFilesRun(ctx context.Context, env *session, p *searchFilesParams, cfg searchConfig) (registry.Result, error) {
	a := searchParseArgs(p)

	tr := env.reads
	count := tr.note(strings.Join([]string{"search", a.pattern, a.target, a.path, a.glob,
		strconv.Itoa(a.limit), strconv.Itoa(a.offset)}, "\x00"))
	if count >= 4 {
		return registry.Failed(struct {
			Error           string `json:"error"`
			Pattern         string `json:"pattern"`
			AlreadySearched int    `json:"already_searched"`
		}{fmt.Sprintf("BLOCKED: You have run this exact search %d times in a row. The results have NOT changed. "+
			"You already have this information. STOP re-searching and proceed with your task.", count), a.pattern, count}), nil
	}

	ws := env.Workspace
	root, err := ws.Resolve(a.path)
	if err != nil {
		return registry.Error(err.Error()), nil
	}
	if err := ws.CheckRead(root); err != nil {
		return registry.Error(err.Error()), nil
	}

	res, err := searchDo(ctx, ws, root, a, cfg)
	if err != nil {
		return registry.Result{}, fmt.Errorf("search_files %s: %w", root.Abs(), err)
	}
	if count == 3 {
		res.LoopWarning = fmt.Sprintf("You have run this exact search %d times consecutively. The results have not "+
			"changed. Use the information you already have.", count)
	}
	out := registry.Result{Value: res, IsError: res.Error != ""}
	if res.Truncated {
		out.Hint = fmt.Sprintf("[Hint: Results truncated. Use offset=%d to see more, or narrow with a more specific pattern or file_glob.]", a.offset+a.limit)
	}
	return out, nil
}

// searchParseArgs normalises the arguments as hermes does: legacy targets
// mapped (grep → content, find → files), offset ≥ 0, limit ≥ 1.
func searchParseArgs(p *searchFilesParams) searchArgs {
	a := searchArgs{target: "content", path: ".", mode: "content"}
	a.pattern = p.Pattern
	if t := p.Target; t != "" {
		switch t {
		case "grep":
			a.target = "content"
		case "find":
			a.target = "files"
		default:
			a.target = t
		}
	}
	if strings.TrimSpace(p.Path) != "" {
		a.path = p.Path
	}
	a.glob = p.FileGlob
	if m := p.OutputMode; m == "files_only" || m == "count" {
		a.mode = m
	}
	a.offset = max(0, readFileInt(p.Offset, 0))
	a.limit = max(1, readFileInt(p.Limit, searchDefaultLimit))
	a.context = min(searchMaxContext, max(0, readFileInt(p.Context, 0)))
	return a
}

// searchDo runs one search below root. An error means ctx was cancelled.
func searchDo(ctx context.Context, ws *workspace.Workspace, root workspace.Path, a searchArgs, cfg searchConfig) (*searchResult, error) {
	fi, err := ws.Stat(root)
	if err != nil {
		if readFileMissing(err) {
			return &searchResult{Error: searchNotFound(ws, a.path, root)}, nil
		}
		return &searchResult{Error: "Search failed: " + err.Error()}, nil
	}

	s := &searchRun{ws: ws, root: root, args: a, cfg: cfg, display: searchDisplayBase(ws, root)}
	if a.target == "files" {
		if s.nameGlob, err = searchCompileGlob(a.pattern, true); err != nil {
			return &searchResult{Error: "Search failed: " + err.Error()}, nil
		}
	} else {
		if s.matcher, err = searchCompile(a.pattern); err != nil {
			return &searchResult{Error: "Search failed: " + err.Error()}, nil
		}
	}
	if a.glob != "" && a.target != "files" {
		if s.fileGlob, err = searchCompileGlob(a.glob, false); err != nil {
			return &searchResult{Error: "Search failed: " + err.Error()}, nil
		}
	}
	s.coll = newSearchCollector(a.offset+a.limit, a.target == "files")

	runCtx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	if fi.IsDir() {
		s.walkTree(runCtx)
	} else {
		s.searchOne(runCtx, fi)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	timedOut := runCtx.Err() != nil
	return s.result(timedOut), nil
}

// searchRun is one search in progress.
type searchRun struct {
	ws       *workspace.Workspace
	root     workspace.Path
	args     searchArgs
	cfg      searchConfig
	display  string // how root is shown ("" for the cwd itself)
	matcher  *searchMatcher
	nameGlob *searchGlob // target=files
	fileGlob *searchGlob // file_glob
	coll     *searchCollector
}

// searchJob is one file for a worker.
type searchJob struct {
	dir  *searchDir
	name string
	rel  string // slash path below the search root
}

// searchDir is a directory open during the walk; the walker and each
// queued job hold a reference, and the last one out closes it.
type searchDir struct {
	root *os.Root
	refs atomic.Int32
	own  bool // close root when released
}

func (d *searchDir) release() {
	if d.refs.Add(-1) == 0 && d.own {
		d.root.Close()
	}
}

// walkTree walks the search root with one goroutine (which owns the
// .gitignore matcher) and searches the files it finds with a pool of
// workers, or, for target=files, matches names as it goes.
func (s *searchRun) walkTree(ctx context.Context) {
	top, err := s.ws.OpenDirRoot(s.root)
	if err != nil {
		return
	}
	defer top.Close()
	ign := s.loadParentIgnores()

	var jobs chan searchJob
	var wg sync.WaitGroup
	if s.args.target != "files" {
		jobs = make(chan searchJob, 256)
		for range max(1, s.cfg.workers) {
			wg.Go(func() { s.worker(ctx, jobs) })
		}
	}
	defer func() {
		if jobs != nil {
			close(jobs)
			wg.Wait()
		}
	}()

	topRel := s.root.Rel()
	stack := []string{"."}
	for len(stack) > 0 && ctx.Err() == nil {
		rel := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		d := &searchDir{root: top}
		if rel != "." {
			r, err := top.OpenRoot(filepath.FromSlash(rel))
			if err != nil {
				continue
			}
			d.root, d.own = r, true
		}
		d.refs.Store(1)
		entries := searchReadDir(d.root)
		for _, e := range entries {
			if e.Name() == ".gitignore" && e.Type().IsRegular() {
				if data, err := d.root.ReadFile(".gitignore"); err == nil {
					ign.Set(path.Join(topRel, rel), data)
				}
				break
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
				if name[0] == '.' || name == "node_modules" || ign.Excluded(path.Join(topRel, childRel), true) {
					continue
				}
				stack = append(stack, childRel)
			case t.IsRegular():
				if ign.Excluded(path.Join(topRel, childRel), false) {
					continue
				}
				if s.args.target == "files" {
					s.matchName(d.root, name, childRel)
					continue
				}
				if s.fileGlob != nil && !s.fileGlob.match(childRel, name) {
					continue
				}
				d.refs.Add(1)
				select {
				case jobs <- searchJob{dir: d, name: name, rel: childRel}:
				case <-ctx.Done():
					d.release()
				}
			}
		}
		d.release()
	}
}

// loadParentIgnores returns a matcher holding the .gitignore files from
// the workspace root down to the search root (ripgrep reads the parents'
// too), with paths relative to the workspace root.
func (s *searchRun) loadParentIgnores() *workspace.IgnoreMatcher {
	ign := workspace.NewIgnoreMatcher()
	if s.root.IsRoot() {
		return ign
	}
	wsRoot, err := s.ws.Resolve(s.root.Root())
	if err != nil {
		return ign
	}
	r, err := s.ws.OpenDirRoot(wsRoot)
	if err != nil {
		return ign
	}
	defer r.Close()
	dir := "."
	parts := strings.Split(s.root.Rel(), "/")
	for i := 0; i < len(parts); i++ {
		if data, err := r.ReadFile(filepath.FromSlash(path.Join(dir, ".gitignore"))); err == nil {
			ign.Set(dir, data)
		}
		dir = path.Join(dir, parts[i])
	}
	return ign
}

func searchReadDir(r *os.Root) []fs.DirEntry {
	d, err := r.Open(".")
	if err != nil {
		return nil
	}
	defer d.Close()
	entries, _ := d.ReadDir(-1)
	return entries
}

// matchName handles one file of a target=files search.
func (s *searchRun) matchName(dir *os.Root, name, rel string) {
	if !s.nameGlob.match(rel, name) {
		return
	}
	var mod int64
	if fi, err := dir.Lstat(name); err == nil {
		mod = fi.ModTime().UnixNano()
	}
	s.coll.addFile(s.admit(rel, 1), searchFileHit{path: s.show(rel), units: 1, mod: mod})
}

// searchOne searches a search root that is a single file.
func (s *searchRun) searchOne(ctx context.Context, fi fs.FileInfo) {
	name := s.root.Base()
	if s.args.target == "files" {
		if s.nameGlob.match(name, name) {
			s.coll.addFile(s.admit("", 1), searchFileHit{path: s.show(""), units: 1, mod: fi.ModTime().UnixNano()})
		}
		return
	}
	if s.fileGlob != nil && !s.fileGlob.match(name, name) {
		return
	}
	dir, err := s.ws.Resolve(filepath.Dir(s.root.Abs()))
	if err != nil {
		return
	}
	r, err := s.ws.OpenDirRoot(dir)
	if err != nil {
		return
	}
	d := &searchDir{root: r, own: true}
	d.refs.Store(1)
	var w searchWorker
	w.file(ctx, s, searchJob{dir: d, name: name, rel: ""})
	d.release()
}

// admit reports whether the file at rel (below the search root) may be
// shown, counting units omitted results when the read-deny list refuses it.
func (s *searchRun) admit(rel string, units int) bool {
	p := s.root
	if rel != "" {
		var err error
		if p, err = s.ws.Child(s.root, rel); err != nil {
			return false
		}
	}
	if s.ws.CheckRead(p) != nil {
		s.coll.omit(units)
		return false
	}
	return true
}

// show is how a file at rel below the search root appears in results:
// relative to the session cwd when inside it, else absolute.
func (s *searchRun) show(rel string) string {
	switch {
	case rel == "":
		if s.display == "" {
			return "."
		}
		return s.display
	case s.display == "":
		return rel
	case filepath.IsAbs(s.display):
		return filepath.Join(s.display, filepath.FromSlash(rel))
	}
	return s.display + "/" + rel
}

// searchDisplayBase is how root is shown: its slash path relative to the
// cwd ("" for the cwd itself), or its absolute path when outside the cwd.
func searchDisplayBase(ws *workspace.Workspace, root workspace.Path) string {
	if ws.InCwd(root) {
		if rel, err := filepath.Rel(ws.Cwd(), root.Abs()); err == nil && (rel == "." || filepath.IsLocal(rel)) {
			if rel == "." {
				return ""
			}
			return filepath.ToSlash(rel)
		}
	}
	return root.Abs()
}

// searchWorker holds a worker's reusable read buffer.
type searchWorker struct {
	buf []byte
}

func (s *searchRun) worker(ctx context.Context, jobs <-chan searchJob) {
	var w searchWorker
	for job := range jobs {
		if ctx.Err() == nil {
			w.file(ctx, s, job)
		}
		job.dir.release()
	}
}

// file searches one file's content.
func (w *searchWorker) file(ctx context.Context, s *searchRun, job searchJob) {
	if s.cfg.beforeFile != nil {
		s.cfg.beforeFile(ctx)
		if ctx.Err() != nil {
			return
		}
	}
	f, err := job.dir.root.OpenFile(job.name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > searchMaxFileBytes {
		return
	}
	data, err := w.read(f, fi.Size())
	if err != nil {
		return
	}
	if bytes.IndexByte(data[:min(len(data), searchBinarySniff)], 0) >= 0 || workspace.LooksBinary(data) {
		return
	}
	a := &s.args
	switch a.mode {
	case "files_only":
		if s.matcher.any(ctx, data) && s.admit(job.rel, 1) {
			s.coll.addFile(true, searchFileHit{path: s.show(job.rel), units: 1, count: 1})
		}
	case "count":
		if n := s.matcher.count(ctx, data); n > 0 && s.admit(job.rel, 1) {
			s.coll.addFile(true, searchFileHit{path: s.show(job.rel), units: 1, count: n})
		}
	default:
		lines := s.matcher.lines(ctx, data)
		if len(lines) == 0 {
			return
		}
		entries := searchEntries(data, lines, a.context)
		if !s.admit(job.rel, len(entries)) {
			return
		}
		show := s.show(job.rel)
		s.coll.addFile(true, searchFileHit{path: show, units: len(entries), entries: entries})
	}
}

// read reads f (of the given size) into the worker's buffer.
func (w *searchWorker) read(f *os.File, size int64) ([]byte, error) {
	need := int(size) + 1
	if cap(w.buf) < need {
		w.buf = make([]byte, need+need/4)
	}
	buf := w.buf[:cap(w.buf)]
	n := 0
	for {
		if n == len(buf) {
			if len(buf) >= searchMaxFileBytes+1 {
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

// searchLine is one matching line: its 1-based number and byte range.
type searchLine struct {
	no         int
	start, end int
}

// searchEntry is one row of a content result: a matching line or one of
// its context lines.
type searchEntry struct {
	line    int
	content string
}

// searchEntries renders the matching lines of data, with ctxLines lines of
// context around each (overlapping ranges merged, as ripgrep does).
func searchEntries(data []byte, lines []searchLine, ctxLines int) []searchEntry {
	if ctxLines == 0 {
		out := make([]searchEntry, len(lines))
		for i, l := range lines {
			out[i] = searchEntry{line: l.no, content: searchClip(data[l.start:l.end])}
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
	var out []searchEntry
	last := 0
	for _, l := range lines {
		from := max(last+1, l.no-ctxLines)
		to := min(len(starts), l.no+ctxLines)
		for n := from; n <= to; n++ {
			out = append(out, searchEntry{line: n, content: searchClip(lineAt(n))})
		}
		last = max(last, to)
	}
	return out
}

// searchClip is a line as shown: without a trailing CR, at most
// searchMaxMatchChars characters.
func searchClip(line []byte) string {
	line = bytes.TrimSuffix(line, []byte("\r"))
	if len(line) > searchMaxMatchChars {
		return readFileClampRunes(string(line), searchMaxMatchChars)
	}
	return string(line)
}

// result builds the answer from the collected hits.
func (s *searchRun) result(timedOut bool) *searchResult {
	a := &s.args
	hits, tot := s.coll.finish()
	res := &searchResult{TotalCount: tot.units}
	if a.target == "files" {
		slices.SortFunc(hits, func(x, y searchFileHit) int {
			if x.mod != y.mod {
				if x.mod > y.mod {
					return -1
				}
				return 1
			}
			return strings.Compare(x.path, y.path)
		})
	} else {
		slices.SortFunc(hits, func(x, y searchFileHit) int { return strings.Compare(x.path, y.path) })
	}
	lo, hi := a.offset, a.offset+a.limit
	switch {
	case a.target == "files" || a.mode == "files_only":
		for i, h := range hits {
			if i >= lo && i < hi {
				res.Files = append(res.Files, h.path)
			}
		}
	case a.mode == "count":
		for i, h := range hits {
			if i >= lo && i < hi {
				if res.Counts == nil {
					res.Counts = map[string]int{}
				}
				res.Counts[h.path] = h.count
			}
		}
		res.TotalCount = tot.countSum
	default:
		var rows []searchMatchOut
		i := 0
		for _, h := range hits {
			for _, e := range h.entries {
				if i >= lo && i < hi {
					rows = append(rows, searchMatchOut{Path: h.path, Line: e.line, Content: e.content})
				}
				i++
			}
		}
		if len(rows) >= searchDensifyMin {
			res.MatchesFormat = searchMatchesFormat
			res.MatchesText = searchDensify(rows)
		} else {
			res.Matches = rows
		}
	}
	res.Truncated = tot.units > hi
	if timedOut {
		res.Truncated, res.LowerBound, res.LimitReason = true, true, "search_timeout"
	}
	if tot.omitted > 0 {
		res.Omitted = fmt.Sprintf("%d result(s) omitted because they target credential, token, cache, or secret-bearing environment files.", tot.omitted)
	}
	if a.target != "files" && res.TotalCount == 0 && !timedOut && searchWantsNewline(a.pattern) {
		res.Warning = "0 results found. Note: search_files content search is line-oriented (no -U/--multiline " +
			"mode), so `\\n` in the regex does not match line breaks. Use context=N to inspect neighboring lines, " +
			"or escape as `\\\\n` when searching for a literal backslash+n."
	}
	return res
}

// searchDensify renders rows path-grouped: each path once, then
// "  <line>: <content>" rows (content right-trimmed).
func searchDensify(rows []searchMatchOut) string {
	var b strings.Builder
	cur := ""
	for i, r := range rows {
		if i == 0 || r.Path != cur {
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(r.Path)
			cur = r.Path
		}
		b.WriteString("\n  ")
		b.WriteString(strconv.Itoa(r.Line))
		b.WriteString(": ")
		b.WriteString(strings.TrimRight(r.Content, " \t\r\n\v\f"))
	}
	return b.String()
}

// searchWantsNewline reports whether a pattern asks for a line break: a
// literal newline, or \n escaped by an odd number of backslashes.
func searchWantsNewline(p string) bool {
	if strings.Contains(p, "\n") {
		return true
	}
	for i := 0; i < len(p); i++ {
		if p[i] != '\\' {
			continue
		}
		j := i
		for j < len(p) && p[j] == '\\' {
			j++
		}
		if (j-i)%2 == 1 && j < len(p) && p[j] == 'n' {
			return true
		}
		i = j - 1
	}
	return false
}

// searchNotFound is hermes's missing-path message with suggestions from the
// parent directory.
func searchNotFound(ws *workspace.Workspace, raw string, p workspace.Path) string {
	msg := "Path not found: " + raw
	base := strings.ToLower(p.Base())
	dir, err := ws.Resolve(filepath.Dir(p.Abs()))
	if err != nil || base == "" {
		return msg
	}
	r, err := ws.OpenDirRoot(dir)
	if err != nil {
		return msg
	}
	defer r.Close()
	d, err := r.Open(".")
	if err != nil {
		return msg
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	slices.Sort(names)
	names = names[:min(len(names), searchSimilarScan)]
	prefix := base[:min(3, len(base))]
	var similar []string
	for _, n := range names {
		ln := strings.ToLower(n)
		if strings.Contains(ln, base) || strings.Contains(base, ln) || strings.HasPrefix(ln, prefix) {
			similar = append(similar, filepath.Join(filepath.Dir(raw), n))
		}
	}
	if len(similar) > 0 {
		msg += ". Similar paths: " + strings.Join(similar[:min(5, len(similar))], ", ")
	}
	return msg
}

// The content matcher.

// searchMatcher finds matching lines. A pattern without regular
// expression metacharacters is searched as a literal; any other pattern is
// compiled with RE2 (package regexp), and when it has a literal every
// match must contain (case-sensitive, or ASCII case-insensitive under
// (?i)), that literal is found first and the expression runs only on the
// lines containing it. Literals are found by scanning for their rarest
// byte with bytes.IndexByte (SIMD), as ripgrep does with memchr.
type searchMatcher struct {
	re    *regexp.Regexp // nil for a plain literal
	find  *searchFinder  // required literal; nil when there is none
	never bool           // no line can match (the pattern needs a line break)
}

func searchCompile(pattern string) (*searchMatcher, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("invalid regex %q: %s", pattern, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
	}
	if regexp.QuoteMeta(pattern) == pattern {
		return &searchMatcher{find: newSearchFinder(pattern, false), never: strings.Contains(pattern, "\n")}, nil
	}
	m := &searchMatcher{re: re}
	if parsed, err := syntax.Parse(pattern, syntax.Perl); err == nil {
		var exact, fold string
		for _, l := range searchRequired(parsed.Simplify()) {
			switch {
			case !l.fold && len(l.s) > len(exact):
				exact = l.s
			case l.fold:
				for _, piece := range searchFoldPieces(l.s) {
					if len(piece) > len(fold) {
						fold = piece
					}
				}
			}
		}
		switch {
		case exact != "":
			m.find = newSearchFinder(exact, false)
			m.never = strings.Contains(exact, "\n")
		case fold != "":
			m.find = newSearchFinder(fold, true)
		}
	}
	return m, nil
}

// searchLiteral is a literal that every match contains; fold means it is
// matched ignoring case.
type searchLiteral struct {
	s    string
	fold bool
}

// searchRequired returns literals that every match of r contains.
func searchRequired(r *syntax.Regexp) []searchLiteral {
	switch r.Op {
	case syntax.OpLiteral:
		return []searchLiteral{{string(r.Rune), r.Flags&syntax.FoldCase != 0}}
	case syntax.OpCapture, syntax.OpPlus:
		return searchRequired(r.Sub[0])
	case syntax.OpRepeat:
		if r.Min >= 1 {
			return searchRequired(r.Sub[0])
		}
	case syntax.OpConcat:
		var out []searchLiteral
		var run strings.Builder
		runFold := false
		flush := func() {
			if run.Len() > 0 {
				out = append(out, searchLiteral{run.String(), runFold})
				run.Reset()
			}
		}
		for _, sub := range r.Sub {
			if sub.Op == syntax.OpLiteral {
				fold := sub.Flags&syntax.FoldCase != 0
				if run.Len() > 0 && fold != runFold {
					flush()
				}
				runFold = fold
				run.WriteString(string(sub.Rune))
				continue
			}
			flush()
			out = append(out, searchRequired(sub)...)
		}
		flush()
		return out
	}
	return nil
}

// searchFoldPieces splits a case-insensitive literal into the pieces an
// ASCII case-insensitive scan can find exactly: only ASCII text, and cut
// at k and s, which Unicode folding also matches to the Kelvin sign and
// the long s.
func searchFoldPieces(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return r >= utf8.RuneSelf || r == 'k' || r == 'K' || r == 's' || r == 'S'
	})
}

// searchByteRank orders bytes from most to least frequent in source code
// and prose; a byte not listed is rarer than all of them.
const searchByteRank = " etnaoirsldcu\n\tphmf.g(),_=;\"bywv:kx/-*{}0[]'>#1<2+&|!\\$ETSARCINOLDPMF"

// searchFinder finds a literal by its rarest byte.
type searchFinder struct {
	needle []byte // lower-cased when fold
	fold   bool
	rare   int  // index of the rarest byte in needle
	b1, b2 byte // the rarest byte and its other case (b2 == b1 when none)
}

func newSearchFinder(lit string, fold bool) *searchFinder {
	f := &searchFinder{needle: []byte(lit), fold: fold}
	if fold {
		f.needle = bytes.ToLower(f.needle)
	}
	best := -1
	for i, c := range f.needle {
		rank := strings.IndexByte(searchByteRank, c)
		if rank < 0 {
			rank = len(searchByteRank)
		}
		if fold && 'a' <= c && c <= 'z' {
			if r := strings.IndexByte(searchByteRank, c-'a'+'A'); r >= 0 && r < rank {
				rank = r
			}
		}
		if rank > best {
			best, f.rare = rank, i
		}
	}
	if len(f.needle) > 0 {
		f.b1, f.b2 = f.needle[f.rare], f.needle[f.rare]
		if fold && 'a' <= f.b1 && f.b1 <= 'z' {
			f.b2 = f.b1 - 'a' + 'A'
		}
	}
	return f
}

// index returns the offset of the first occurrence of the literal in data,
// or -1.
func (f *searchFinder) index(data []byte) int {
	n := len(f.needle)
	if n == 0 {
		return 0
	}
	if !f.fold && n > 1 && f.rare == 0 {
		return bytes.Index(data, f.needle)
	}
	pos := f.rare // the rare byte cannot occur earlier in a match
	next2 := -2   // cached next position of b2; -2 unknown, -1 none
	for pos < len(data) {
		c := bytes.IndexByte(data[pos:], f.b1)
		if c >= 0 {
			c += pos
		}
		if f.b2 != f.b1 {
			if next2 == -2 || (next2 >= 0 && next2 < pos) {
				next2 = bytes.IndexByte(data[pos:], f.b2)
				if next2 >= 0 {
					next2 += pos
				}
			}
			if next2 >= 0 && (c < 0 || next2 < c) {
				c = next2
			}
		}
		if c < 0 {
			return -1
		}
		start := c - f.rare
		if start+n <= len(data) && f.equal(data[start:start+n]) {
			return start
		}
		pos = c + 1
	}
	return -1
}

func (f *searchFinder) equal(b []byte) bool {
	if !f.fold {
		return bytes.Equal(b, f.needle)
	}
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != f.needle[i] {
			return false
		}
	}
	return true
}

// searchCheckEvery is how many lines each tests between two looks at the
// context: a 16 MiB file of short lines is left within about a millisecond
// of a cancel.
const searchCheckEvery = 1024

// each calls fn for each matching line of data, in order, until fn
// returns false or ctx is done (one line is matched without a look).
func (m *searchMatcher) each(ctx context.Context, data []byte, fn func(start, end int) bool) {
	if m.never {
		return
	}
	pos, tested := 0, 0
	if m.find != nil {
		for pos < len(data) {
			if tested++; tested%searchCheckEvery == 0 && ctx.Err() != nil {
				return
			}
			i := m.find.index(data[pos:])
			if i < 0 {
				return
			}
			i += pos
			start := pos
			if j := bytes.LastIndexByte(data[pos:i], '\n'); j >= 0 {
				start = pos + j + 1
			}
			end := len(data)
			if j := bytes.IndexByte(data[i:], '\n'); j >= 0 {
				end = i + j
			}
			if (m.re == nil || m.re.Match(data[start:end])) && !fn(start, end) {
				return
			}
			pos = end + 1
		}
		return
	}
	for pos < len(data) {
		if tested++; tested%searchCheckEvery == 0 && ctx.Err() != nil {
			return
		}
		end := len(data)
		if j := bytes.IndexByte(data[pos:], '\n'); j >= 0 {
			end = pos + j
		}
		if m.re.Match(data[pos:end]) && !fn(pos, end) {
			return
		}
		pos = end + 1
	}
}

// lines returns the matching lines of data with their numbers.
func (m *searchMatcher) lines(ctx context.Context, data []byte) []searchLine {
	var out []searchLine
	no, at := 1, 0
	m.each(ctx, data, func(start, end int) bool {
		no += bytes.Count(data[at:start], []byte{'\n'})
		at = start
		out = append(out, searchLine{no: no, start: start, end: end})
		return true
	})
	return out
}

// count returns how many lines of data match.
func (m *searchMatcher) count(ctx context.Context, data []byte) int {
	n := 0
	m.each(ctx, data, func(int, int) bool { n++; return true })
	return n
}

// any reports whether a line of data matches.
func (m *searchMatcher) any(ctx context.Context, data []byte) bool {
	found := false
	m.each(ctx, data, func(int, int) bool { found = true; return false })
	return found
}

// Globs.

// searchGlob matches files by name or by path, as ripgrep's --glob does: a
// pattern without "/" matches the file name at any depth, one with "/"
// matches the path below the search root ("**" spans directories). A
// leading "!" negates; "{a,b}" alternates.
type searchGlob struct {
	alts   [][]string // each alternative split on "/"
	byPath bool
	negate bool
	fold   bool // compare case-insensitively (bare names)
}

// searchCompileGlob compiles pattern. With bare, a pattern without any
// glob metacharacter is a substring of the name (hermes's bare-name
// wrapping), matched case-insensitively.
func searchCompileGlob(pattern string, bare bool) (*searchGlob, error) {
	g := &searchGlob{}
	p := strings.TrimSpace(pattern)
	if strings.HasPrefix(p, "!") {
		g.negate = true
		p = p[1:]
	}
	if p == "" {
		p = "*"
	}
	if bare && !strings.ContainsAny(p, "*?[{/") {
		p = "*" + strings.ToLower(p) + "*"
		g.fold = true
	}
	p = strings.TrimPrefix(p, "/")
	g.byPath = strings.Contains(strings.TrimPrefix(p, "**/"), "/")
	if !g.byPath {
		p = strings.TrimPrefix(p, "**/")
	}
	for _, alt := range searchExpandBraces(p) {
		segs := strings.Split(alt, "/")
		for _, s := range segs {
			if _, err := path.Match(s, ""); err != nil {
				return nil, fmt.Errorf("invalid glob pattern %q: %v", pattern, err)
			}
		}
		g.alts = append(g.alts, segs)
	}
	return g, nil
}

// match reports whether the file at slash path rel (below the search
// root) with base name name is selected.
func (g *searchGlob) match(rel, name string) bool {
	if g.fold {
		rel, name = strings.ToLower(rel), strings.ToLower(name)
	}
	hit := false
	for _, alt := range g.alts {
		if g.byPath {
			hit = searchMatchSegs(alt, strings.Split(rel, "/"))
		} else {
			hit, _ = path.Match(alt[0], name)
		}
		if hit {
			break
		}
	}
	return hit != g.negate
}

// searchMatchSegs matches path segments against pattern segments, "**"
// matching any number of segments.
func searchMatchSegs(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			pat = pat[1:]
			if len(pat) == 0 {
				return true
			}
			for i := 0; i <= len(name); i++ {
				if searchMatchSegs(pat, name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// searchExpandBraces expands "{a,b}" alternatives (nested ones too) into
// plain patterns. Unbalanced braces are left as they are.
func searchExpandBraces(p string) []string {
	open := strings.IndexByte(p, '{')
	if open < 0 {
		return []string{p}
	}
	depth := 0
	var parts []string
	last := open + 1
	for i := open; i < len(p); i++ {
		switch p[i] {
		case '{':
			depth++
		case ',':
			if depth == 1 {
				parts = append(parts, p[last:i])
				last = i + 1
			}
		case '}':
			depth--
			if depth == 0 {
				parts = append(parts, p[last:i])
				var out []string
				for _, rest := range searchExpandBraces(p[i+1:]) {
					for _, part := range parts {
						for _, inner := range searchExpandBraces(part) {
							out = append(out, p[:open]+inner+rest)
						}
					}
				}
				return out
			}
		}
	}
	return []string{p}
}

// The collector.

// searchFileHit is one file with results.
type searchFileHit struct {
	path    string
	units   int // rows it contributes to pagination
	count   int // matching lines (count mode)
	mod     int64
	entries []searchEntry
}

// searchCollector gathers hits from the workers. It counts every hit but,
// unless keepAll, keeps only the files needed for the first keep rows in
// path order, so a search with a million matches holds one page of them.
// It is safe for concurrent use.
type searchCollector struct {
	keep    int
	keepAll bool // target=files: the order is by time, so every name is kept

	mu       sync.Mutex // guards the fields below
	files    searchHeap // kept files, largest path on top
	kept     int        // units in files
	total    int        // units of every admitted file
	countSum int        // matching lines of every admitted file (count mode)
	omitted  int        // units refused by the read-deny list
}

func newSearchCollector(keep int, keepAll bool) *searchCollector {
	return &searchCollector{keep: keep, keepAll: keepAll}
}

// addFile records a hit; admitted false means it was refused and already
// counted as omitted.
func (c *searchCollector) addFile(admitted bool, h searchFileHit) {
	if !admitted {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.total += h.units
	c.countSum += h.count
	heap.Push(&c.files, h)
	c.kept += h.units
	if c.keepAll {
		return
	}
	for len(c.files) > 1 && c.kept-c.files[0].units >= c.keep {
		top := heap.Pop(&c.files).(searchFileHit)
		c.kept -= top.units
	}
}

func (c *searchCollector) omit(units int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.omitted += units
}

// searchTotals are the counts of a finished search.
type searchTotals struct {
	units    int // rows of every admitted file
	countSum int // matching lines (count mode)
	omitted  int // rows refused by the read-deny list
}

// finish returns the kept files (unordered) and the totals.
func (c *searchCollector) finish() ([]searchFileHit, searchTotals) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.files), searchTotals{units: c.total, countSum: c.countSum, omitted: c.omitted}
}

// searchHeap is a max-heap of hits by path.
type searchHeap []searchFileHit

func (h searchHeap) Len() int           { return len(h) }
func (h searchHeap) Less(i, j int) bool { return h[i].path > h[j].path }
func (h searchHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *searchHeap) Push(x any)        { *h = append(*h, x.(searchFileHit)) }
func (h *searchHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
