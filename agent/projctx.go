package agent

import (
	"context"
	"fmt"
	"log/slog"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/hermes-acp/hermes-acp/agent/internal/projctx"
	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// projectContext is a session's project instructions (AGENTS.md, HERMES.md,
// .hermes.md): the workspace root's file, loaded once when the session
// opens and put in every system prompt, and a tracker per workspace root
// for the files of the folders the session's tool calls touch later. It is
// safe for concurrent use.
type projectContext struct {
	ws       *workspace.Workspace
	log      *slog.Logger
	section  string                      // the system prompt's "# Project Context" block; "" when none
	trackers map[string]*projctx.Tracker // by root, as the workspace names it; fixed at creation
}

// newProjectContext loads the root file of ws's first root (the session's
// cwd) and prepares the trackers of every root. An additional root's own
// file arrives with the first touch below it, like a sub-folder's.
func newProjectContext(ws *workspace.Workspace, log *slog.Logger) *projectContext {
	pc := &projectContext{ws: ws, log: log, trackers: map[string]*projctx.Tracker{}}
	for i, root := range ws.Roots() {
		read := pc.reader(root)
		if i == 0 {
			if f, ok := projctx.Root(read); ok {
				pc.report(root, f)
				pc.section = projctx.Section(f)
			}
		}
		pc.trackers[root] = projctx.NewTracker(read, i == 0)
	}
	return pc
}

// reader reads rel below root through the workspace: the path is resolved
// (no escape from the root, not even by a symbolic link), the read
// deny-list applies, and so does the workspace's file size limit.
func (pc *projectContext) reader(root string) projctx.ReadFunc {
	return func(rel string) (string, error) {
		p, err := pc.ws.Resolve(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return "", err
		}
		if p.Root() != root {
			return "", fmt.Errorf("read project context %s: outside root %s", p.Abs(), root)
		}
		if err := pc.ws.CheckRead(p); err != nil {
			return "", err
		}
		b, err := pc.ws.ReadFile(p)
		return string(b), err
	}
}

// report logs a file left out or truncated.
func (pc *projectContext) report(root string, f projctx.File) {
	if f.Blocked != nil {
		pc.log.Warn("project context file left out: possible prompt injection", "root", root, "file", f.Path, "findings", strings.Join(f.Blocked, ","))
	} else if f.Truncated {
		pc.log.Warn("project context file truncated", "root", root, "file", f.Path, "chars", f.Chars)
	}
}

// touched returns the note about the context files newly found for a call
// that touched the file or folder arg (as the model spelled it), or "".
func (pc *projectContext) touched(arg string) string {
	p, err := pc.ws.Resolve(arg)
	if err != nil {
		return ""
	}
	tr := pc.trackers[p.Root()]
	if tr == nil {
		return ""
	}
	dir := p.Rel()
	if fi, err := pc.ws.Stat(p); err != nil || !fi.IsDir() {
		dir = path.Dir(dir)
	}
	files := tr.Touch(dir)
	for _, f := range files {
		pc.report(p.Root(), f)
	}
	return projctx.Note(files)
}

// projectHook appends the context files of the folders a successful call
// touched to its result, after the result's own hint: the call's path is
// the argument its tool's entry names as PathArg (read_file, write_file,
// patch). It is a [registry.Transformer]; it changes no other result.
type projectHook struct {
	pc  *projectContext
	reg *registry.Registry
}

func (projectHook) Pre(context.Context, *registry.Call) (bool, string) { return false, "" }

func (projectHook) Post(context.Context, *registry.Call, registry.Result, time.Duration) {}

// Transform adds the note of newly found context files to result.Hint.
func (h projectHook) Transform(_ context.Context, call *registry.Call, result registry.Result) (registry.Result, bool) {
	if result.IsError {
		return result, false
	}
	e, ok := h.reg.Snapshot().Lookup(call.Name)
	if !ok || e.PathArg == "" {
		return result, false
	}
	arg, _ := call.Args[e.PathArg].(string)
	if arg == "" {
		return result, false
	}
	note := h.pc.touched(arg)
	if note == "" {
		return result, false
	}
	if result.Hint != "" {
		result.Hint += "\n\n"
	}
	result.Hint += note
	return result, true
}

// projectContextHook is the session's hook for project context files in
// tool results; nil when the session has none.
func (s *Session) projectContextHook() registry.Hook {
	if s.proj == nil || s.reg == nil {
		return nil
	}
	return projectHook{pc: s.proj, reg: s.reg}
}

// projectContextPrompt is the system prompt's part about the enabled tools
// and the project's own instructions; s.mu is held.
func (s *Session) projectContextPrompt() string {
	var b strings.Builder
	if names := s.toolNames(); len(names) > 0 {
		fmt.Fprintf(&b, "\nEnabled tools: %s\n", strings.Join(names, ", "))
	} else {
		b.WriteString("\nEnabled tools: none\n")
	}
	if s.proj != nil && s.proj.section != "" {
		b.WriteString("\n" + s.proj.section)
	}
	return b.String()
}
