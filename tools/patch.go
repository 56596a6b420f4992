package tools

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/hermes-acp/hermes-acp/lint"
	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/tools/internal/fuzzy"
	"github.com/hermes-acp/hermes-acp/tools/internal/v4a"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// patch edits files in place, as hermes-agent's tool of the same name does:
// replace mode runs the nine-strategy fuzzy find-and-replace ([FuzzyReplace])
// on one file; patch mode applies a V4A multi-file patch ([v4a.Parse],
// [v4a.Apply]) only after every operation has validated. Either way the
// complete proposed change is linted and shown to the user for approval
// before anything is written.
var _ = declare(registry.Tool[patchDeps]{
	Spec: registry.Spec{Entry: registry.Entry{
		Name:           "patch",
		Toolset:        "file",
		Emoji:          "🔧",
		Description:    patchDescription,
		MaxResultChars: 100_000,
		Kind:           registry.KindEdit,
		ChangesFiles:   true, // checkpointed first (issue 29)
		PathArg:        "path",
		Title:          patchTitle,
		Preview:        editPreview("patch"),
		Render:         editRender("patch"),
	}, Params: patchParams{}},
	New: func(d patchDeps) registry.Handler {
		return registry.Typed(func(ctx context.Context, call *registry.Call, p *patchParams) (registry.Result, error) {
			return patchTool(ctx, d, call, p)
		})
	},
})

//go:embed patch.md
var patchDescription string

// patchParams are patch's arguments. Mode is any: hermes answers a mode
// that is not a string with "Unknown mode".
type patchParams struct {
	Mode       any     `json:"mode" schema:"required,type=string,default=replace" enum:"replace,patch" desc:"Edit mode. 'replace' (default): requires path + old_string + new_string. 'patch': requires patch content only."`
	Path       string  `json:"path" desc:"REQUIRED when mode='replace'. File path to edit."`
	OldString  *string `json:"old_string" desc:"REQUIRED when mode='replace'. Exact text to find and replace. Must be unique in the file unless replace_all=true. Include surrounding context lines to ensure uniqueness."`
	NewString  *string `json:"new_string" desc:"REQUIRED when mode='replace'. Replacement text. Pass empty string '' to delete the matched text."`
	ReplaceAll bool    `json:"replace_all" schema:"default=false" desc:"Replace all occurrences instead of requiring a unique match (default: false)"`
	Patch      string  `json:"patch" desc:"REQUIRED when mode='patch'. V4A format patch content. Format:\n*** Begin Patch\n*** Update File: path/to/file\n@@ context hint @@\n context line\n-removed line\n+added line\n*** End Patch"`
}

// patchTitle is "patch (<mode>): <path>".
func patchTitle(args map[string]any) string {
	mode, _ := args["mode"].(string)
	if mode == "" {
		mode = "replace"
	}
	if p, _ := args["path"].(string); p != "" {
		return fmt.Sprintf("patch (%s): %s", mode, p)
	}
	return fmt.Sprintf("patch (%s)", mode)
}

// Messages and limits; the wording and numbers are hermes-agent's.
const (
	patchHintEscalatedFmt = "This is failure #%d patching %s. Stop retrying with variations of the " +
		"same old_string. Either: (1) re-read the file fresh to verify current content, (2) use a " +
		"longer / more unique old_string with surrounding context lines"
	patchHintEscalatedWrite = ", or (3) use write_file to replace the entire file if the targeted region is hard to anchor"
	patchVerifyFailedFmt    = "Post-write verification failed for %s: on-disk content differs from " +
		"intended write (wrote %d chars, read back %d chars after normalizing line endings). The " +
		"patch did not persist. Re-read the file and try again."
	patchApplyFailed = "Apply phase failed (state may be inconsistent — run `git diff` to assess):"

	// patchEscalateAfter is the consecutive failure on one path from which
	// the escalated hint replaces the plain one.
	patchEscalateAfter = 3
	// patchFailurePaths caps the paths whose failures a session counts; the
	// oldest is forgotten first.
	patchFailurePaths = 64
)

// patchFailureResult is the result of a patch that failed after its
// arguments were accepted: hermes's PatchResult with success false, plus
// the advisory keys of its tool layer.
type patchFailureResult struct {
	Success bool   `json:"success"`
	Error   string `json:"error"`
	Warning string `json:"_warning,omitempty"`
	Hint    string `json:"_hint,omitempty"`
}

// patchReplaceResult is the result of a successful replace.
type patchReplaceResult struct {
	Success       bool           `json:"success"`
	Diff          string         `json:"diff,omitempty"`
	FilesModified []string       `json:"files_modified"`
	Lint          lint.ModelLint `json:"lint"`
	ResolvedPath  string         `json:"resolved_path"`
	Warning       string         `json:"_warning,omitempty"`
}

// patchV4AResult is the result of a V4A patch that reached the apply
// phase. On success files_modified lists every file the patch touched; after
// an apply-phase failure it lists only those changed, and Error says what
// failed.
type patchV4AResult struct {
	Success       bool                      `json:"success"`
	Diff          string                    `json:"diff,omitempty"`
	FilesModified []string                  `json:"files_modified,omitempty"`
	FilesCreated  []string                  `json:"files_created,omitempty"`
	FilesDeleted  []string                  `json:"files_deleted,omitempty"`
	Lint          map[string]lint.ModelLint `json:"lint,omitempty"`
	Error         string                    `json:"error,omitempty"`
	ResolvedPath  string                    `json:"resolved_path,omitempty"`
	Warning       string                    `json:"_warning,omitempty"`
}

// patchTool is patch's handler: it picks the mode.
func patchTool(ctx context.Context, env patchDeps, call *registry.Call, p *patchParams) (registry.Result, error) {
	mode := "replace"
	if p.Mode != nil {
		s, ok := p.Mode.(string)
		if !ok {
			return registry.Error(fmt.Sprintf("Unknown mode: %v", p.Mode)), nil
		}
		mode = s
	}
	switch mode {
	case "replace":
		return patchReplace(ctx, env, call, p)
	case "patch":
		return patchV4A(ctx, env, call, p)
	}
	return registry.Error("Unknown mode: " + mode), nil
}

// patchReplace is replace mode: one fuzzy find-and-replace in one file.
func patchReplace(ctx context.Context, env patchDeps, call *registry.Call, params *patchParams) (registry.Result, error) {
	rawPath := params.Path
	if rawPath == "" {
		return registry.Error("path required"), nil
	}
	if params.OldString == nil || params.NewString == nil {
		return registry.Error("old_string and new_string required"), nil
	}
	oldString, newString, replaceAll := *params.OldString, *params.NewString, params.ReplaceAll

	p, msg := editTarget(env, rawPath, "Write")
	if msg != "" {
		return registry.Error(msg), nil
	}
	warning := env.State().CheckStale(p)
	fail := func(msg string) registry.Result {
		return patchFailed(env, rawPath, p, msg, warning, true)
	}

	raw, exists, err := editRead(ctx, env, p)
	if err != nil {
		if cerr := editCancelled(ctx, "patch", p); cerr != nil {
			return registry.Result{}, cerr
		}
		return fail("Failed to read file: " + err.Error()), nil
	}
	if !exists {
		return fail("Failed to read file: " + p.Abs()), nil
	}
	ft, msg := editDecode(ctx, env, rawPath, p, raw)
	if msg != "" {
		return fail(msg), nil
	}
	content := ft.Text
	fr, err := FuzzyReplace(ctx, content, oldString, newString, replaceAll)
	if err != nil {
		if cerr := editCancelled(ctx, "patch", p); cerr != nil {
			return registry.Result{}, cerr
		}
		return fail(err.Error()), nil
	}
	// New and changed lines take the file's dominant line ending; the lines
	// the replacement did not touch keep theirs. KeepConventions then
	// applies the file's encoding and BOM.
	newContent := workspace.PatchEndings(content, fr.Content)
	plan, msg := editPlanFor(rawPath, p, raw, true, newContent)
	if msg != "" {
		return fail(msg), nil
	}
	oldText := editText(p, raw)
	res := editLint(ctx, env, p, []byte(oldText), true, []byte(plan.text))
	if cerr := editCancelled(ctx, "patch", p); cerr != nil {
		return registry.Result{}, cerr
	}
	if msg := editGate(env, p, res); msg != "" {
		return fail("Failed to write changes: " + msg), nil
	}
	change := editChange(p, oldText, true, plan.text)
	types := editTypes(env, call.ID, []workspace.Change{change}, []lint.Result{res})
	defer types.Done()
	if d := env.ApproveEdit(ctx, call.ID, []workspace.Change{change}, []lint.Result{res}); !d.Approved {
		if cerr := editCancelled(ctx, "patch", p); cerr != nil {
			return registry.Result{}, cerr
		}
		return registry.Error(denialMessage(d)), nil
	}

	info, err := env.Files().Write(ctx, p, []byte(newContent))
	if err != nil {
		if cerr := editCancelled(ctx, "patch", p); cerr != nil {
			return registry.Result{}, cerr
		}
		return fail("Failed to write changes: " + editWriteMessage("", err)), nil
	}
	if msg := patchVerify(ctx, env, info, plan.text); msg != "" {
		if cerr := editCancelled(ctx, "patch", p); cerr != nil {
			return registry.Result{}, cerr
		}
		return fail(msg), nil
	}
	res = editWritten(env, call.ID, p, info, plan.planned, res, types)
	env.PatchFailures().reset(p.Abs())
	return registry.OK(patchReplaceResult{
		Success:       true,
		Diff:          pathDiff(p.Rel(), content, bomless(plan.text)),
		FilesModified: []string{p.Abs()},
		Lint:          res.ModelLint(),
		ResolvedPath:  p.Abs(),
		Warning:       warning,
	}), nil
}

// patchFailed renders a failed patch with hermes's hints. When msg is a
// not-found failure it adds a _hint: for replace mode (count true) the
// session's consecutive failures on p are counted and from the third on the
// hint escalates; otherwise the plain hint is given unless msg already
// offers "Did you mean" sections.
func patchFailed(env patchDeps, rawPath string, p workspace.Path, msg, warning string, count bool) registry.Result {
	out := patchFailureResult{Error: msg, Warning: warning}
	if strings.Contains(msg, "Could not find") {
		n := 0
		if count {
			n = env.PatchFailures().record(p.Abs())
		}
		switch {
		case n >= patchEscalateAfter:
			out.Hint = fmt.Sprintf(patchHintEscalatedFmt, n, fuzzy.Repr(rawPath))
			if env.Enabled("write_file") {
				out.Hint += patchHintEscalatedWrite
			}
			out.Hint += "."
		case !strings.Contains(msg, "Did you mean one of these sections?"):
			out.Hint = patchHintNotFound(env)
		}
	}
	return registry.Failed(out)
}

// patchVerify re-reads the file a replace wrote, from where the write went
// (the disk, or the editor that wrote it: [workspace.Files.ReadBack]), and
// compares it with what was meant to be written, line endings and BOM aside
// (hermes's post-write verification). It returns the failure message, or
// "". A write through an editor that cannot read is not verified.
func patchVerify(ctx context.Context, env patchDeps, info workspace.WriteInfo, intended string) string {
	b, ok, err := env.Files().ReadBack(ctx, info)
	if err != nil {
		return "Post-write verification failed: could not re-read " + info.Path.Abs()
	}
	if !ok {
		return ""
	}
	got := patchNormalizeEndings(bomless(editText(info.Path, b)), "\n")
	want := patchNormalizeEndings(bomless(intended), "\n")
	if got != want {
		return fmt.Sprintf(patchVerifyFailedFmt, info.Path.Abs(), utf8.RuneCountInString(want), utf8.RuneCountInString(got))
	}
	return ""
}

// patchNormalizeEndings turns every line ending of text (CRLF, lone CR or
// LF) into target, "\n" or "\r\n".
func patchNormalizeEndings(text, target string) string {
	lf := strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	if target == "\r\n" {
		return strings.ReplaceAll(lf, "\n", "\r\n")
	}
	return lf
}

// patchFailures counts, for one session, the consecutive replace-mode
// failures on each path (hermes's _patch_failure_tracker). It is safe for
// concurrent use.
type patchFailures struct {
	mu     sync.Mutex // guards counts, order
	counts map[string]int
	order  []string // the keys of counts, oldest first
}

func newPatchFailures() *patchFailures {
	return &patchFailures{counts: map[string]int{}}
}

// patchHintNotFound is hermes's hint after old_string was not found; it
// names only the tools the session enables.
func patchHintNotFound(env patchDeps) string {
	read, search := env.Enabled(readFileName), env.Enabled(searchFilesName)
	switch {
	case read && search:
		return "old_string not found. Use read_file to verify the current content, or search_files to locate the text."
	case read:
		return "old_string not found. Use read_file to verify the current content."
	case search:
		return "old_string not found. Use search_files to locate the text."
	}
	return "old_string not found. Verify the current content of the file."
}

// record counts one more failure on path and returns the count. When
// patchFailurePaths paths are already counted, the oldest is forgotten.
func (f *patchFailures) record(path string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.counts[path]; !ok {
		if len(f.order) >= patchFailurePaths {
			delete(f.counts, f.order[0])
			f.order = f.order[1:]
		}
		f.order = append(f.order, path)
	}
	f.counts[path]++
	return f.counts[path]
}

// reset forgets the failures on paths, after a successful patch.
func (f *patchFailures) reset(paths ...string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range paths {
		if _, ok := f.counts[p]; !ok {
			continue
		}
		delete(f.counts, p)
		for i, k := range f.order {
			if k == p {
				f.order = append(f.order[:i], f.order[i+1:]...)
				break
			}
		}
	}
}

// patchV4A is patch mode: a V4A patch, validated as a whole, approved as a
// whole and then applied operation by operation.
func patchV4A(ctx context.Context, env patchDeps, call *registry.Call, params *patchParams) (registry.Result, error) {
	text := params.Patch
	if text == "" {
		return registry.Error("patch content required"), nil
	}
	for _, hp := range v4a.Paths(text) {
		if v4a.HasTraversal(hp) {
			_, err := v4a.Parse(text) // reports the traversal in hermes's words
			return registry.Error(err.Error()), nil
		}
	}
	ops, err := v4a.Parse(text)
	if err != nil {
		return registry.Failed(patchFailureResult{Error: "Failed to parse patch: " + err.Error()}), nil
	}

	// Resolve and check every path, both ends of moves, before anything is
	// read or proposed.
	fsys := &patchFS{env: env, targets: map[string]workspace.Path{}, reads: map[string]patchRead{}}
	var touched []workspace.Path
	check := func(raw, verb string) string {
		p, msg := editTarget(env, raw, verb)
		if msg != "" {
			return msg
		}
		if _, seen := fsys.targets[raw]; !seen {
			fsys.targets[raw] = p
		}
		for _, t := range touched {
			if t == p {
				return ""
			}
		}
		touched = append(touched, p)
		return ""
	}
	for _, op := range ops {
		var msg string
		switch op.Kind {
		case v4a.Delete:
			msg = check(op.Path, "Delete")
		case v4a.Move:
			if msg = check(op.Path, "Move"); msg == "" {
				msg = check(op.MoveTo, "Move")
			}
		default:
			msg = check(op.Path, "Write")
		}
		if msg != "" {
			return registry.Error(msg), nil
		}
	}
	var warnings []string
	for _, p := range touched {
		if w := env.State().CheckStale(p); w != "" {
			warnings = append(warnings, w)
		}
	}
	warning := strings.Join(warnings, " | ")

	for _, op := range ops {
		if msg := fsys.refusal(ctx, op); msg != "" {
			return registry.Failed(patchFailureResult{Error: msg, Warning: warning}), nil
		}
	}
	changes, err := v4a.Apply(ctx, ops, fsys, patchMatch)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return registry.Result{}, fmt.Errorf("patch: %w", cerr)
		}
		return patchFailed(env, "", workspace.Path{}, err.Error(), warning, false), nil
	}
	plan, refusals := patchPlan(ctx, env, fsys, changes)
	if cerr := ctx.Err(); cerr != nil {
		return registry.Result{}, fmt.Errorf("patch: %w", cerr)
	}
	for _, s := range plan {
		if s.linted {
			if msg := editGate(env, s.path, s.res); msg != "" {
				refusals = append(refusals, msg)
			}
		}
	}
	if len(refusals) > 0 {
		return registry.Failed(patchFailureResult{Error: strings.Join(refusals, "\n"), Warning: warning}), nil
	}
	proposal := make([]workspace.Change, len(plan))
	lints := make([]lint.Result, len(plan))
	for i, s := range plan {
		proposal[i], lints[i] = s.change, s.res
	}
	types := editTypes(env, call.ID, proposal, lints)
	defer types.Done()
	if d := env.ApproveEdit(ctx, call.ID, proposal, lints); !d.Approved {
		if cerr := ctx.Err(); cerr != nil {
			return registry.Result{}, fmt.Errorf("patch: %w", cerr)
		}
		return registry.Error(denialMessage(d)), nil
	}

	// Once anything may have been written, the result reports what was
	// done, even when the turn is being cancelled.
	out := patchApply(ctx, env, call.ID, plan, types)
	out.Warning = warning
	if out.Success {
		abs := make([]string, len(touched))
		for i, p := range touched {
			abs[i] = p.Abs()
		}
		out.FilesModified = abs
		if len(abs) == 1 {
			out.ResolvedPath = abs[0]
		}
		env.PatchFailures().reset(abs...)
	}
	return registry.Result{Value: out, IsError: !out.Success}, nil
}

// patchStep is one change of a validated V4A patch, ready for approval
// and application.
type patchStep struct {
	fc       v4a.Change
	path, to workspace.Path
	change   workspace.Change
	// planned is the content the step leaves at its file as it will be
	// written (with the file's line-ending and BOM conventions): the new
	// content of an add or update, the moved content of a move.
	planned []byte
	res     lint.Result
	linted  bool
}

// patchPlan turns the changes v4a.Apply computed into proposals. It follows
// the patch in order, so that a file's "before" is what the earlier
// operations leave there (a move followed by an update of the destination,
// a delete followed by an add), and applies each file's conventions to what
// will be written. It also returns the refusals of updates whose new text
// the file's encoding cannot hold.
func patchPlan(ctx context.Context, env patchDeps, fsys *patchFS, changes []v4a.Change) ([]patchStep, []string) {
	var refusals []string
	type state struct {
		content []byte
		exists  bool
	}
	overlay := map[workspace.Path]state{}
	current := func(p workspace.Path) ([]byte, bool) {
		if s, ok := overlay[p]; ok {
			return s.content, s.exists
		}
		r := fsys.reads[p.Abs()]
		return r.raw, r.exists
	}
	steps := make([]patchStep, 0, len(changes))
	for _, fc := range changes {
		s := patchStep{fc: fc, path: fsys.targets[fc.Path]}
		switch fc.Kind {
		case v4a.Update:
			old, _ := current(s.path)
			oldText := editText(s.path, old)
			plan, msg := editPlanFor(fc.Path, s.path, old, true, fc.NewText)
			if msg != "" {
				refusals = append(refusals, msg)
				plan = editPlan{planned: old, text: oldText}
			}
			s.planned = plan.planned
			s.res, s.linted = editLint(ctx, env, s.path, []byte(oldText), true, []byte(plan.text)), true
			s.change = editChange(s.path, oldText, true, plan.text)
			overlay[s.path] = state{s.planned, true}
		case v4a.Add:
			s.planned = []byte(fc.NewText)
			s.res, s.linted = editLint(ctx, env, s.path, nil, false, s.planned), true
			s.change = editChange(s.path, "", false, fc.NewText)
			overlay[s.path] = state{s.planned, true}
		case v4a.Delete:
			old, _ := current(s.path)
			o := editText(s.path, old)
			s.change = workspace.Change{Kind: workspace.ChangeDelete, Path: s.path, Old: &o}
			overlay[s.path] = state{nil, false}
		case v4a.Move:
			s.to = fsys.targets[fc.MoveTo]
			content, _ := current(s.path)
			o := editText(s.path, content)
			s.planned = content
			s.change = workspace.Change{Kind: workspace.ChangeMove, Path: s.path, MoveTo: s.to, Old: &o, New: o}
			overlay[s.path] = state{nil, false}
			overlay[s.to] = state{content, true}
		}
		steps = append(steps, s)
	}
	return steps, refusals
}

// patchApply makes the approved changes in order. Adds and updates are
// written through the session's files (the editor when it can write);
// deletes remove the file from disk; a move renames the file on disk, or,
// when the editor holds unsaved changes to it (the approved content differs
// from the disk's), writes the approved content at the destination and
// removes the source. Each step first re-checks what it validated (an added
// file must still be absent, an updated file unchanged, a destination free),
// so a file changed meanwhile is reported instead of overwritten. A failed
// step does not stop the later ones, as in hermes; the result then carries
// hermes's "state may be inconsistent" error.
func patchApply(ctx context.Context, env patchDeps, callID string, plan []patchStep, types TypeCheck) patchV4AResult {
	out := patchV4AResult{Success: true}
	var diffs, errs []string
	for _, s := range plan {
		var msg string
		switch s.fc.Kind {
		case v4a.Add, v4a.Update:
			var res lint.Result
			if res, msg = patchApplyWrite(ctx, env, callID, s, types); msg == "" {
				if out.Lint == nil {
					out.Lint = map[string]lint.ModelLint{}
				}
				out.Lint[s.fc.Path] = res.ModelLint()
				if s.fc.Kind == v4a.Add {
					out.FilesCreated = append(out.FilesCreated, s.path.Abs())
				} else {
					out.FilesModified = append(out.FilesModified, s.path.Abs())
				}
			}
		case v4a.Delete:
			if msg = patchApplyDelete(ctx, env, s, types); msg == "" {
				out.FilesDeleted = append(out.FilesDeleted, s.path.Abs())
			}
		case v4a.Move:
			if msg = patchApplyMove(ctx, env, callID, s, types); msg == "" {
				out.FilesModified = append(out.FilesModified, s.path.Abs(), s.to.Abs())
			}
		}
		if msg != "" {
			errs = append(errs, fmt.Sprintf("Failed to %s %s: %s", patchVerb(s.fc.Kind), s.fc.Path, msg))
			continue
		}
		diffs = append(diffs, patchDiff(s.fc))
	}
	out.Diff = strings.Join(diffs, "\n")
	if len(errs) > 0 {
		out.Success = false
		out.Error = patchApplyFailed + "\n  • " + strings.Join(errs, "\n  • ")
	}
	return out
}

// patchVerb names an operation in apply-phase errors, as hermes does.
func patchVerb(k v4a.Kind) string {
	return strings.ToLower(k.String())
}

// patchDiff is how a V4A change shows in the result: a unified diff
// (a/<path>, b/<path>; /dev/null for the missing side of an add or a
// delete, "# Deleted: p" for the delete of an empty file) or, for a move,
// "# Moved: a -> b".
func patchDiff(c v4a.Change) string {
	switch c.Kind {
	case v4a.Add:
		return unifiedDiff("/dev/null", "b/"+c.Path, "", c.NewText)
	case v4a.Delete:
		if d := unifiedDiff("a/"+c.Path, "/dev/null", *c.OldText, ""); d != "" {
			return d
		}
		return "# Deleted: " + c.Path
	case v4a.Move:
		return fmt.Sprintf("# Moved: %s -> %s", c.Path, c.MoveTo)
	}
	return pathDiff(c.Path, *c.OldText, c.NewText)
}

// patchMatch is the [v4a.Matcher] of patch mode: [FuzzyReplace] of a
// unique occurrence, hermes's matching for V4A hunks.
func patchMatch(ctx context.Context, content, search, replace string) (string, error) {
	r, err := FuzzyReplace(ctx, content, search, replace, false)
	return r.Content, err
}

// patchApplyWrite applies an add or an update and returns the lint of what
// it wrote, or why it failed.
func patchApplyWrite(ctx context.Context, env patchDeps, callID string, s patchStep, types TypeCheck) (lint.Result, string) {
	cur, exists, err := editRead(ctx, env, s.path)
	switch {
	case err != nil && s.fc.Kind == v4a.Add:
		return lint.Result{}, s.fc.Path + ": could not confirm the path is free — " + err.Error()
	case err != nil:
		return lint.Result{}, "Cannot read file: " + err.Error()
	case s.fc.Kind == v4a.Add && exists:
		return lint.Result{}, s.fc.Path + ": file already exists — use Update File, not Add File"
	case s.fc.Kind == v4a.Update && !exists:
		return lint.Result{}, "Cannot read file: File not found: " + s.path.Abs()
	case s.fc.Kind == v4a.Update && s.fc.OldText != nil && !patchSameText(editText(s.path, cur), *s.fc.OldText):
		return lint.Result{}, s.fc.Path + ": file changed after the patch was validated; re-read it and retry"
	}
	info, err := env.Files().Write(ctx, s.path, []byte(s.fc.NewText))
	if err != nil {
		return lint.Result{}, editWriteMessage("", err)
	}
	return editWritten(env, callID, s.path, info, s.planned, s.res, types), ""
}

// patchSameText reports whether cur, the decoded text of a file now, is the
// text a step was validated against, line endings aside (an earlier step of
// the same patch may have applied the file's line-ending convention to it).
func patchSameText(cur, validated string) bool {
	return patchNormalizeEndings(bomless(cur), "\n") == patchNormalizeEndings(validated, "\n")
}

// patchApplyDelete removes a file from disk.
func patchApplyDelete(ctx context.Context, env patchDeps, s patchStep, types TypeCheck) string {
	if _, exists, err := editRead(ctx, env, s.path); err != nil || !exists {
		return "Cannot delete " + s.fc.Path + ": file not found"
	}
	if err := env.Workspace().Remove(s.path); err != nil {
		return editWriteMessage("", err)
	}
	env.State().Forget(s.path)
	env.Reads().forget(s.path)
	types.Removed(s.path)
	return ""
}

// patchApplyMove moves a file; see [patchApply].
func patchApplyMove(ctx context.Context, env patchDeps, callID string, s patchStep, types TypeCheck) string {
	_, exists, err := editRead(ctx, env, s.to)
	switch {
	case err != nil:
		return s.fc.MoveTo + ": could not confirm the destination is free — " + err.Error()
	case exists:
		return s.fc.MoveTo + ": destination already exists — move would overwrite"
	}
	disk, diskErr := env.Workspace().ReadFile(s.path)
	var info workspace.WriteInfo
	if diskErr == nil && bytes.Equal(disk, s.planned) {
		if info, err = env.Workspace().Rename(s.path, s.to); err != nil {
			return editWriteMessage("", err)
		}
	} else {
		if info, err = env.Files().Write(ctx, s.to, s.planned); err != nil {
			return editWriteMessage("", err)
		}
		if diskErr == nil {
			if err := env.Workspace().Remove(s.path); err != nil {
				return editWriteMessage("", err)
			}
		}
	}
	if info.After == nil {
		info.After = s.planned // a rename moved exactly the approved bytes
	}
	env.State().Forget(s.path)
	env.Reads().forget(s.path)
	types.Removed(s.path)
	editWritten(env, callID, s.to, info, s.planned, editLint(context.WithoutCancel(ctx), env, s.to, s.planned, true, s.planned), types)
	return ""
}

// patchRead is one read of a patch target.
type patchRead struct {
	raw    []byte
	exists bool
	err    error
}

// patchFS is the [v4a.Files] a patch is validated against: the session's
// files (the editor's buffers when it serves them, else the disk), addressed
// by the paths written in the patch, which patchV4A has resolved and
// checked. Each file is read once; the raw bytes are kept for the
// proposals. It is used by one goroutine, within one call of the handler.
type patchFS struct {
	env     patchDeps
	targets map[string]workspace.Path // by the path as written in the patch
	reads   map[string]patchRead      // by absolute path
}

// load reads the file the patch calls name.
func (f *patchFS) load(ctx context.Context, name string) patchRead {
	p, ok := f.targets[name]
	if !ok {
		var msg string
		if p, msg = editTarget(f.env, name, "Write"); msg != "" {
			return patchRead{err: errors.New(msg)}
		}
		f.targets[name] = p
	}
	if r, ok := f.reads[p.Abs()]; ok {
		return r
	}
	raw, exists, err := editRead(ctx, f.env, p)
	r := patchRead{raw: raw, exists: exists, err: err}
	f.reads[p.Abs()] = r
	return r
}

// Read returns the file's text, decoded from its encoding and without its
// BOM (patchV4A has refused updates of files that cannot be decoded); a
// missing file is an error matching fs.ErrNotExist. A path that cannot be
// resolved or read is reported with another error, so that v4a.Apply
// creates nothing over it.
func (f *patchFS) Read(ctx context.Context, name string) (string, error) {
	r := f.load(ctx, name)
	switch {
	case r.err != nil:
		return "", r.err
	case !r.exists:
		return "", fmt.Errorf("read %s: %w", name, fs.ErrNotExist)
	}
	return bomless(editText(f.targets[name], r.raw)), nil
}

// refusal returns the refusal of op before the patch is validated: an
// update of a file the editing tools cannot change without losing bytes
// (binary, not decodable byte for byte, or decoded lossily by the editor),
// or a move of a file whose editor buffer is such a lossy decoding (the
// move would write that text). Deletes and moves of binary files are
// allowed: they do not rewrite content. Missing files are left to v4a.Apply.
func (f *patchFS) refusal(ctx context.Context, op v4a.Op) string {
	if op.Kind != v4a.Update && op.Kind != v4a.Move {
		return ""
	}
	r := f.load(ctx, op.Path)
	if r.err != nil || !r.exists {
		return ""
	}
	p := f.targets[op.Path]
	if op.Kind == v4a.Update {
		_, msg := editDecode(ctx, f.env, op.Path, p, r.raw)
		return msg
	}
	if lossy, enc := editorLossy(ctx, f.env, p, string(r.raw)); lossy {
		return editLossyMessage(op.Path, enc)
	}
	return ""
}

// patchDeps is what patch uses of its session: the editing tools'
// services and its count of consecutive failures per file.
type patchDeps interface {
	editDeps
	PatchFailures() *patchFailures
}
