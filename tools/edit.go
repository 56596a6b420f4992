package tools

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/hermes-acp/hermes-acp/lint"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// This file holds what the two editing tools, write_file and patch, share:
// resolving and checking a target before anything is proposed, reading the
// current content, the delta lint and its fail-closed syntax gate, and the
// bookkeeping after a write (state, read dedup, lint report).

// editTarget resolves raw, a path from the model, and applies the write
// guards for verb ("Write", "Delete" or "Move"). On failure it returns the
// message for the model (hermes's wording, from the workspace package):
// a path outside the workspace, a sensitive system path, a credential file.
func editTarget(env fileDeps, raw, verb string) (workspace.Path, string) {
	p, err := env.Workspace().Resolve(raw)
	if err != nil {
		return workspace.Path{}, err.Error()
	}
	if err := env.Workspace().CheckWrite(p, verb); err != nil {
		return workspace.Path{}, err.Error()
	}
	return p, ""
}

// editRead returns the current content of p through the session's files
// (the editor's buffer when it can serve it, else the disk). A missing file
// is not an error: it reports exists false.
func editRead(ctx context.Context, env fileDeps, p workspace.Path) (content []byte, exists bool, err error) {
	b, err := env.Files().Read(ctx, p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if b == nil {
		b = []byte{}
	}
	return b, true, nil
}

// editLint is the delta lint, by env's linter, of an edit of p from old
// (nil for a new file) to new. When ctx is done it stops and returns a
// skipped Result; the caller must then look at ctx before going on.
func editLint(ctx context.Context, env editDeps, p workspace.Path, old []byte, exists bool, new []byte) lint.Result {
	if !exists {
		old = nil
	} else if old == nil {
		old = []byte{}
	}
	r, err := env.Linter().DeltaFileContext(ctx, p.Abs(), old, new)
	if err != nil {
		return lint.Result{Language: lint.LanguageFor(p.Abs()), Skipped: true, SkipReason: "lint cancelled"}
	}
	return r
}

// editGate applies the fail-closed syntax gate of lint.on_new_errors:
// refuse. It returns hermes's refusal message when the session refuses new
// lint errors and res introduces syntax errors into a JSON, YAML or TOML
// file, and "" otherwise.
func editGate(env editDeps, p workspace.Path, res lint.Result) string {
	if !env.RefuseNewLintErrors() {
		return ""
	}
	if err := res.Gate(); err != nil {
		return lint.RefusalMessage(p.Abs(), err)
	}
	return ""
}

// editTypes starts the type check of a call's changes (lints: their
// syntax lints). The caller must call Done on what it returns, which is
// never nil.
func editTypes(env editDeps, callID string, changes []workspace.Change, lints []lint.Result) TypeCheck {
	if env.TypeChecker() != nil {
		if tc := env.TypeChecker().CheckTypes(callID, changes, lints); tc != nil {
			return tc
		}
	}
	return noTypeCheck{}
}

// noTypeCheck is the TypeCheck of a call nothing type-checks.
type noTypeCheck struct{}

func (noTypeCheck) Wrote(_ workspace.Path, _ []byte, res lint.Result) lint.Result { return res }
func (noTypeCheck) Removed(workspace.Path)                                        {}
func (noTypeCheck) Done()                                                         {}

// editChange is the proposal for replacing the text of p (old, when it
// exists) by new. Both are decoded text (see editText), so the diff shows
// the real change whatever the file's encoding.
func editChange(p workspace.Path, old string, exists bool, new string) workspace.Change {
	c := workspace.Change{Kind: workspace.ChangeCreate, Path: p, New: new}
	if exists {
		c.Kind, c.Old = workspace.ChangeEdit, &old
	}
	return c
}

// editWriteMessage renders a failed write for the model: a refusal by the
// workspace's guards keeps its own message; any other failure is prefixed
// with what was being done.
func editWriteMessage(prefix string, err error) string {
	var we *workspace.Error
	if errors.As(err, &we) {
		return we.Msg
	}
	return prefix + err.Error()
}

// editWritten does the bookkeeping after the call callID wrote p: the
// session state learns the new content (so the agent's own write is not
// reported as an external change), read_file's dedup forgets the path,
// the call's type check learns the write (and adds its findings when they
// are ready in time), and the lint goes to the editor. planned is the
// content (bytes as written) the lint res was computed for; when what was
// actually written differs (the file changed between the proposal and the
// write, so its conventions did), the lint is recomputed. Lints see
// decoded text. It returns the lint of what was written.
func editWritten(env editDeps, callID string, p workspace.Path, info workspace.WriteInfo, planned []byte, res lint.Result, types TypeCheck) lint.Result {
	env.State().RecordWrite(p, info.After)
	env.Reads().forget(p)
	after := []byte(editText(p, info.After))
	if !bytes.Equal(info.After, planned) {
		var before []byte
		if !info.Created {
			before = []byte(editText(p, info.Before))
		}
		// The write happened: its lint runs to its (bounded) end even
		// when the turn was cancelled, so the editor sees the truth.
		res = editLint(context.Background(), env, p, before, !info.Created, after)
	}
	res = types.Wrote(p, after, res)
	env.ReportLint(callID, p, after, res)
	return res
}

// editCancelled returns the call's context error, wrapped with op, when the
// turn was cancelled; the pipeline then reports the call as cancelled
// instead of showing the model a failure it did not cause.
func editCancelled(ctx context.Context, op string, p workspace.Path) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s %s: %w", op, p.Abs(), err)
	}
	return nil
}

// denialMessage tells the model why an edit was not approved and that
// nothing was written.
func denialMessage(d workspace.Decision) string {
	const notModified = " No file was modified."
	switch d.Denial {
	case workspace.DenyNoChange:
		return "Edit approval denied: the edit changes no file; nothing was written."
	case workspace.DenyRejected:
		return "Edit approval denied: the user rejected this edit." + notModified + " Do not retry the same edit; ask the user what they want instead."
	case workspace.DenyTimeout:
		return fmt.Sprintf("Edit approval denied: the user did not answer within %s (approvals.timeout).%s", d.Detail, notModified)
	case workspace.DenyTurnCancelled:
		return "Edit approval denied: the user cancelled the turn before answering." + notModified
	case workspace.DenyEditorCancelled:
		return "Edit approval denied: the request was cancelled by the editor." + notModified
	case workspace.DenyRequestFailed:
		return fmt.Sprintf("Edit approval denied: the permission request failed (%s).%s", d.Detail, notModified)
	case workspace.DenyUnknownOption:
		return fmt.Sprintf("Edit approval denied: the editor answered with an unknown option %q.%s", d.Detail, notModified)
	}
	return "Edit approval denied." + notModified
}

// fileDeps is what the file tools use of their session: its workspace
// (roots and path rules), file access through the editor or the disk,
// the read/write state for staleness checks, read_file's dedup and loop
// guard, and the tools it offers (hints name only those).
type fileDeps interface {
	Workspace() *workspace.Workspace
	Files() *workspace.Files
	State() *workspace.State
	Reads() *readFileTracker
	Enabled(tool string) bool
}

// editDeps is what the editing tools (write_file, patch) use besides: the
// user's approval of each change, the lint of what they write (the shared
// linter, lint.on_new_errors: refuse, the Go type check) and its report
// to the editor.
type editDeps interface {
	fileDeps
	EditApprover
	LintSink
	Linter() *lint.Linter
	RefuseNewLintErrors() bool
	// TypeChecker type-checks the Go files of edits; nil: they get the
	// syntax lint only.
	TypeChecker() TypeChecker
}
