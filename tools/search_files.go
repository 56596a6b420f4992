package tools

import (
	"context"
	_ "embed"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/tools/internal/search"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// search_files searches file contents (a regular expression, line by line)
// or file names (a glob) below a workspace directory, as hermes-agent's
// tool of the same name does with ripgrep, but in process: a .gitignore-
// aware walk that skips hidden directories, node_modules, binary and huge
// files and does not follow symbolic links, feeding a bounded pool of
// workers (the engine is package tools/internal/search). Results are sorted
// deterministically (content: by path then
// line; file names: newest first), paginated with offset and limit, and
// cleaned of read-denied files. The whole search stops after 60 seconds
// with what it found.
var _ = declare(registry.Tool[searchFilesDeps]{
	Spec: registry.Spec{Entry: registry.Entry{
		Name:           searchFilesName,
		Toolset:        "file",
		Emoji:          "🔎",
		Description:    searchFilesDescription,
		MaxResultChars: 100_000,
		Kind:           registry.KindSearch,
		ReadOnly:       true,
		Idempotent:     true,
		ParallelSafe:   true,
		Title:          searchFilesTitle,
		Preview:        searchFilesPreview,
		Render:         searchFilesRender,
	}, Params: searchFilesParams{}},
	New: func(d searchFilesDeps) registry.Handler {
		return registry.Typed(func(ctx context.Context, call *registry.Call, p *searchFilesParams) (registry.Result, error) {
			return searchFiles(ctx, d, call, p)
		})
	},
})

//go:embed search_files.md
var searchFilesDescription string

// searchFilesName is the tool's name, for other tools' hints.
const searchFilesName = "search_files"

// searchFilesParams are search_files's arguments. The numbers are any:
// hermes takes "20" as 20 and anything unusable as the default.
type searchFilesParams struct {
	Pattern    string `json:"pattern" schema:"required" desc:"Regex pattern for content search, or glob pattern (e.g., '*.py') for file search"`
	Target     string `json:"target" schema:"default=content" enum:"content,files" desc:"'content' searches inside file contents, 'files' searches for files by name"`
	Path       string `json:"path" schema:"default=." desc:"Directory or file to search in (default: current working directory)"`
	FileGlob   string `json:"file_glob" desc:"Filter files by pattern in grep mode (e.g., '*.py' to only search Python files)"`
	OutputMode string `json:"output_mode" schema:"default=content" enum:"content,files_only,count" desc:"Output format for grep mode: 'content' shows matching lines with line numbers, 'files_only' lists file paths, 'count' shows match counts per file"`
	Limit      any    `json:"limit" schema:"type=integer,default=50" desc:"Maximum number of results to return (default: 50)"`
	Offset     any    `json:"offset" schema:"type=integer,default=0" desc:"Skip first N results for pagination (default: 0)"`
	Context    any    `json:"context" schema:"type=integer,default=0" desc:"Number of context lines before and after each match (grep mode only)"`
}

// Limits.
const (
	searchDefaultLimit = 50
	// searchDensifyMin is the match count from which matches are sent as
	// path-grouped text (hermes's _DENSIFY_MIN_MATCHES).
	searchDensifyMin = 5
	// searchSimilarScan is how many directory entries are considered for a
	// missing path's suggestions (hermes's `ls | head -20`).
	searchSimilarScan = 20
)

const searchMatchesFormat = "path-grouped: each file path on its own line, followed by indented " +
	"'<line>: <content>' rows for matches in that file"

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

func searchFiles(ctx context.Context, env searchFilesDeps, _ *registry.Call, p *searchFilesParams) (registry.Result, error) {
	return searchFilesRun(ctx, env, p, search.Options{})
}

// searchFilesRun is searchFiles with the engine's options (tests change
// them).
func searchFilesRun(ctx context.Context, env searchFilesDeps, p *searchFilesParams, opts search.Options) (registry.Result, error) {
	a := searchParseArgs(p)

	tr := env.Reads()
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

	ws := env.Workspace()
	root, err := ws.Resolve(a.path)
	if err != nil {
		return registry.Error(err.Error()), nil
	}
	if err := ws.CheckRead(root); err != nil {
		return registry.Error(err.Error()), nil
	}

	res, err := searchDo(ctx, ws, root, a, opts)
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
	a.context = min(search.MaxContext, max(0, readFileInt(p.Context, 0)))
	return a
}

// searchDo runs one search below root. An error means ctx was cancelled.
func searchDo(ctx context.Context, ws *workspace.Workspace, root workspace.Path, a searchArgs, opts search.Options) (*searchResult, error) {
	fi, err := ws.Stat(root)
	if err != nil {
		if readFileMissing(err) {
			return &searchResult{Error: searchNotFound(ws, a.path, root)}, nil
		}
		return &searchResult{Error: "Search failed: " + err.Error()}, nil
	}
	q := search.Query{Pattern: a.pattern, Names: a.target == "files", Context: a.context, Keep: a.offset + a.limit}
	if !q.Names {
		q.Glob = a.glob
	}
	switch a.mode {
	case "files_only":
		q.Mode = search.Files
	case "count":
		q.Mode = search.Counts
	}
	s, err := search.Compile(q)
	if err != nil {
		return &searchResult{Error: "Search failed: " + err.Error()}, nil
	}

	display := searchDisplayBase(ws, root)
	tree := search.Tree{
		// Files the read-deny list refuses are left out and counted.
		Admit: func(rel string) bool {
			p := root
			if rel != "" {
				var err error
				if p, err = ws.Child(root, rel); err != nil {
					return false
				}
			}
			return ws.CheckRead(p) == nil
		},
		Show:   func(rel string) string { return searchShow(display, rel) },
		Binary: workspace.LooksBinary,
	}
	if fi.IsDir() {
		if tree.Dir, err = ws.OpenDirRoot(root); err == nil {
			defer tree.Dir.Close()
		}
		tree.Ignore, tree.IgnoreBase = searchParentIgnores(ws, root), root.Rel()
	} else {
		tree.File = root.Base()
		if dir, err := ws.Resolve(filepath.Dir(root.Abs())); err == nil {
			if tree.Dir, err = ws.OpenDirRoot(dir); err == nil {
				defer tree.Dir.Close()
			}
		}
	}
	found, err := s.Run(ctx, tree, opts)
	if err != nil {
		return nil, err
	}
	return searchResultOf(a, found), nil
}

// searchParentIgnores returns a matcher holding the .gitignore files from
// the workspace root down to the search root (ripgrep reads the parents'
// too), with paths relative to the workspace root.
func searchParentIgnores(ws *workspace.Workspace, root workspace.Path) *workspace.IgnoreMatcher {
	ign := workspace.NewIgnoreMatcher()
	if root.IsRoot() {
		return ign
	}
	wsRoot, err := ws.Resolve(root.Root())
	if err != nil {
		return ign
	}
	r, err := ws.OpenDirRoot(wsRoot)
	if err != nil {
		return ign
	}
	defer r.Close()
	dir := "."
	parts := strings.Split(root.Rel(), "/")
	for i := 0; i < len(parts); i++ {
		if data, err := r.ReadFile(filepath.FromSlash(path.Join(dir, ".gitignore"))); err == nil {
			ign.Set(dir, data)
		}
		dir = path.Join(dir, parts[i])
	}
	return ign
}

// searchShow is how a file at rel below the search root appears in
// results, given the root's display base (see searchDisplayBase): relative
// to the session cwd when inside it, else absolute.
func searchShow(display, rel string) string {
	switch {
	case rel == "":
		if display == "" {
			return "."
		}
		return display
	case display == "":
		return rel
	case filepath.IsAbs(display):
		return filepath.Join(display, filepath.FromSlash(rel))
	}
	return display + "/" + rel
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

// searchResultOf shapes what the engine found into the answer: the page
// [offset, offset+limit) of the rows, in hermes's keys.
func searchResultOf(a searchArgs, found search.Result) *searchResult {
	res := &searchResult{TotalCount: found.Units}
	lo, hi := a.offset, a.offset+a.limit
	switch {
	case a.target == "files" || a.mode == "files_only":
		for i, h := range found.Hits {
			if i >= lo && i < hi {
				res.Files = append(res.Files, h.Path)
			}
		}
	case a.mode == "count":
		for i, h := range found.Hits {
			if i >= lo && i < hi {
				if res.Counts == nil {
					res.Counts = map[string]int{}
				}
				res.Counts[h.Path] = h.Count
			}
		}
		res.TotalCount = found.CountSum
	default:
		var rows []searchMatchOut
		i := 0
		for _, h := range found.Hits {
			for _, e := range h.Entries {
				if i >= lo && i < hi {
					rows = append(rows, searchMatchOut{Path: h.Path, Line: e.Line, Content: e.Text})
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
	res.Truncated = found.Units > hi
	if found.TimedOut {
		res.Truncated, res.LowerBound, res.LimitReason = true, true, "search_timeout"
	}
	if found.Omitted > 0 {
		res.Omitted = fmt.Sprintf("%d result(s) omitted because they target credential, token, cache, or secret-bearing environment files.", found.Omitted)
	}
	if a.target != "files" && res.TotalCount == 0 && !found.TimedOut && searchWantsNewline(a.pattern) {
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

// searchFilesDeps is what search_files uses of its session: the workspace
// it searches and the loop guard it shares with read_file (the same
// search repeated is blocked).
type searchFilesDeps interface {
	Workspace() *workspace.Workspace
	Reads() *readFileTracker
}
