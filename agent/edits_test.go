package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/lint"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// editTools is a minimal write_file that goes through the agent's edit
// approval, file access and lint reporting, as the real tool does. Its
// entry carries the facts the editor shows: an edit of the file "path".
func editTools() []envTool {
	return []envTool{{
		entry: registry.Entry{
			Name: "write_file", Toolset: "test", Kind: registry.KindEdit, PathArg: "path",
			Schema: map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}, "content": map[string]any{"type": "string"}}},
		},
		handler: func(env *agent.Env) registry.Handler {
			return func(ctx context.Context, c *registry.Call) (registry.Result, error) {
				path, _ := c.String("path")
				content, _ := c.String("content")
				p, err := env.Workspace().Resolve(path)
				if err != nil {
					return registry.Error(err.Error()), nil
				}
				var old *string
				if b, err := env.Files().Read(ctx, p); err == nil {
					s := string(b)
					old = &s
				} else if !errors.Is(err, fs.ErrNotExist) {
					return registry.Result{}, err
				}
				kind := workspace.ChangeEdit
				var before []byte
				if old == nil {
					kind = workspace.ChangeCreate
				} else {
					before = []byte(*old)
				}
				res := (*lint.Linter)(nil).DeltaFile(p.Abs(), before, []byte(content))
				if d := env.ApproveEdit(ctx, c.ID, []workspace.Change{{Kind: kind, Path: p, Old: old, New: content}}, []lint.Result{res}); !d.Approved {
					return registry.Errorf("edit denied: %s %s; no file was modified", denialWords[d.Denial], d.Detail), nil
				}
				if _, err := env.Files().Write(ctx, p, []byte(content)); err != nil {
					return registry.Error(err.Error()), nil
				}
				env.ReportLint(c.ID, p, []byte(content), res)
				return registry.OK(map[string]int{"bytes_written": len(content)}), nil
			}
		},
	}}
}

// denialWords names the agent's edit denials in the test tool's results.
var denialWords = map[workspace.Denial]string{
	workspace.DenyNothing:         "approved",
	workspace.DenyNoChange:        "no_change",
	workspace.DenyRejected:        "rejected",
	workspace.DenyTimeout:         "timeout",
	workspace.DenyTurnCancelled:   "turn_cancelled",
	workspace.DenyEditorCancelled: "editor_cancelled",
	workspace.DenyRequestFailed:   "request_failed",
	workspace.DenyUnknownOption:   "unknown_option",
}

func jsonNum(n int) string { b, _ := json.Marshal(n); return string(b) }

// writeModel asks to write each of files in turn (one model call per file),
// then answers "done".
func writeModel(files ...[2]string) *fakeModel {
	return &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		idx := 0
		for _, m := range req.Messages {
			if m.Role == model.RoleTool {
				idx++
			}
		}
		if idx < len(files) {
			args, _ := json.Marshal(map[string]string{"path": files[idx][0], "content": files[idx][1]})
			return toolReply(model.ToolCall{ID: "w" + jsonNum(n), Name: "write_file", Arguments: string(args)}), nil
		}
		return textReply("done", emit), nil
	}}
}

var fsCaps = acp.ClientCapabilities{FS: acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}}

// wantsDiagnostics is the client capability that asks for our
// _hermes/publishDiagnostics (as our VS Code extension advertises it).
var wantsDiagnostics = acp.Meta{"hermes": map[string]any{"diagnostics": true}}

// diagCaps is fsCaps asking for our diagnostics too.
var diagCaps = acp.ClientCapabilities{FS: fsCaps.FS, Meta: wantsDiagnostics}

func pick(id string) func(context.Context, *acp.RequestPermissionRequest) acp.PermissionOutcome {
	return func(context.Context, *acp.RequestPermissionRequest) acp.PermissionOutcome {
		return acp.PermissionOutcome{OptionID: id}
	}
}

// toolResults returns the tool messages the model received last.
func toolResults(fm *fakeModel) []string {
	reqs := fm.requests()
	var out []string
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == model.RoleTool {
			out = append(out, m.Content)
		}
	}
	return out
}

func TestEditApprovedThroughEditor(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	fm := writeModel([2]string{"config.json", "{\"a\": 1,}\n"})
	h := newHarness(t, fm, harnessOptions{bound: editTools(), caps: diagCaps, perm: pick("allow")})
	sid := h.newSession(ws)
	if stop := h.prompt(sid, "write config"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %s", stop)
	}
	abs := filepath.Join(ws, "config.json")
	// The diff reached the editor on the tool_call itself, before the permission request.
	var call *acp.ToolCall
	for _, u := range h.editor.Updates(sid) {
		if u.Update.ToolCall != nil {
			call = u.Update.ToolCall
		}
	}
	if call == nil || call.Kind != acp.KindEdit || call.Status != acp.StatusPending || len(call.Content) == 0 || call.Content[0].Diff == nil {
		t.Fatalf("tool_call = %+v, want a pending edit carrying the diff", call)
	}
	if d := call.Content[0].Diff; d.Path != abs || d.OldText != nil || d.NewText != "{\"a\": 1,}\n" {
		t.Errorf("diff = %+v, want new file %s", d, abs)
	}
	if len(call.Locations) != 1 || call.Locations[0].Path != abs {
		t.Errorf("locations = %+v", call.Locations)
	}
	perms := h.editor.Permissions()
	if len(perms) != 1 {
		t.Fatalf("permission requests = %d, want 1", len(perms))
	}
	var kinds []acp.PermissionOptionKind
	var names []string
	for _, o := range perms[0].Options {
		kinds, names = append(kinds, o.Kind), append(names, o.Name)
	}
	if !slices.Equal(kinds, []acp.PermissionOptionKind{acp.AllowOnce, acp.AllowAlways, acp.RejectOnce}) ||
		!slices.Equal(names, []string{"Allow edit", "Allow all edits this session", "Reject"}) {
		t.Errorf("options = %v %v", kinds, names)
	}
	var text string
	for _, c := range perms[0].ToolCall.Content {
		if c.Content != nil && c.Content.Text != nil {
			text += c.Content.Text.Text
		}
	}
	if !strings.Contains(text, "this edit introduces 1 syntax error") {
		t.Errorf("permission text %q lacks the lint summary", text)
	}
	if perms[0].ToolCall.Meta == nil {
		t.Error("permission request lacks _meta.hermes.lint")
	}
	// Written through the editor, not the disk.
	if w := h.editor.Writes(); len(w) != 1 || w[0].Path != abs {
		t.Errorf("fs/write_text_file calls = %+v", w)
	}
	if _, err := os.Stat(abs); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("file written to disk although the editor serves writes: %v", err)
	}
	// Completion keeps the diff and carries the lint; the editor got diagnostics.
	var done *acp.ToolCallUpdate
	for _, u := range h.editor.Updates(sid) {
		if tu := u.Update.ToolCallUpdate; tu != nil && tu.Status == acp.StatusCompleted {
			done = tu
		}
	}
	if done == nil || done.Content[0].Diff == nil {
		t.Fatalf("completion = %+v, want the diff kept", done)
	}
	lintMeta, _ := done.Meta["hermes"].(map[string]any)["lint"].(map[string]any)
	if lintMeta["status"] != "error" || lintMeta["introduced"] != float64(1) {
		t.Errorf("_meta.hermes.lint = %v", lintMeta)
	}
	diags := publishedFor(h, "file://"+abs)
	if len(diags) != 1 || len(diags[0]) != 1 {
		t.Fatalf("publishDiagnostics for %s = %v, want one publish with one error", abs, diags)
	}
}

// TestLintWithoutOurExtension: a client that did not ask for
// _hermes/publishDiagnostics is sent no _hermes/* notification at all, and
// still sees the lint where every ACP client looks: the permission request's
// text and _meta and the completing update's _meta (the model's result is
// checked end to end, conformance/diagnostics.mjs).
func TestLintWithoutOurExtension(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	fm := writeModel([2]string{"config.json", "{\"a\": 1,}\n"})
	h := newHarness(t, fm, harnessOptions{bound: editTools(), caps: fsCaps, perm: pick("allow")})
	sid := h.newSession(ws)
	if stop := h.prompt(sid, "write config"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %s", stop)
	}
	if ext := h.editor.Extensions(); len(ext) != 0 {
		t.Errorf("a client that did not ask was sent %d extension notifications: %+v", len(ext), ext)
	}
	perms := h.editor.Permissions()
	if len(perms) != 1 {
		t.Fatalf("permission requests = %d, want 1", len(perms))
	}
	var text string
	for _, c := range perms[0].ToolCall.Content {
		if c.Content != nil && c.Content.Text != nil {
			text += c.Content.Text.Text
		}
	}
	if !strings.Contains(text, "this edit introduces 1 syntax error") || perms[0].ToolCall.Meta == nil {
		t.Errorf("permission request text %q, _meta %v: want the lint summary and _meta.hermes.lint", text, perms[0].ToolCall.Meta)
	}
	var done *acp.ToolCallUpdate
	for _, u := range h.editor.Updates(sid) {
		if tu := u.Update.ToolCallUpdate; tu != nil && tu.Status == acp.StatusCompleted {
			done = tu
		}
	}
	if done == nil {
		t.Fatal("the write never completed")
	}
	if lintMeta, _ := done.Meta["hermes"].(map[string]any)["lint"].(map[string]any); lintMeta["status"] != "error" {
		t.Errorf("completing _meta.hermes.lint = %v, want status error", lintMeta)
	}
}

// publishedFor returns the diagnostics lists published for uri, in order.
func publishedFor(h *harness, uri string) [][]map[string]any {
	var out [][]map[string]any
	for _, n := range h.editor.Extensions() {
		if n.Method != "_hermes/publishDiagnostics" {
			continue
		}
		var p struct {
			URI         string           `json:"uri"`
			Diagnostics []map[string]any `json:"diagnostics"`
		}
		if json.Unmarshal(n.Params, &p) == nil && p.URI == uri {
			out = append(out, p.Diagnostics)
		}
	}
	return out
}

func TestEditRejectedWritesNothing(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	fm := writeModel([2]string{"a.txt", "new"})
	h := newHarness(t, fm, harnessOptions{bound: editTools(), perm: pick("reject")})
	sid := h.newSession(ws)
	h.prompt(sid, "write")
	if _, err := os.Stat(filepath.Join(ws, "a.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("rejected edit was written: %v", err)
	}
	res := toolResults(fm)
	if len(res) != 1 || res[0] != `{"error":"edit denied: rejected ; no file was modified"}` {
		t.Errorf("tool result = %v", res)
	}
	var failed bool
	for _, u := range h.editor.Updates(sid) {
		if tu := u.Update.ToolCallUpdate; tu != nil && tu.Status == acp.StatusFailed {
			failed = true
		}
	}
	if !failed {
		t.Error("rejected edit not marked failed")
	}
}

func TestAllowAllEditsSwitchesMode(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	fm := writeModel([2]string{"a.txt", "1"}, [2]string{"b.txt", "2"}, [2]string{".env", "SECRET=1"})
	var asked []string
	h := newHarness(t, fm, harnessOptions{bound: editTools(), perm: func(_ context.Context, r *acp.RequestPermissionRequest) acp.PermissionOutcome {
		asked = append(asked, *r.ToolCall.Title)
		return acp.PermissionOutcome{OptionID: "allow_session"}
	}})
	sid := h.newSession(ws)
	h.prompt(sid, "write three files")
	for _, f := range []string{"a.txt", "b.txt", ".env"} {
		if _, err := os.Stat(filepath.Join(ws, f)); err != nil {
			t.Errorf("%s not written: %v", f, err)
		}
	}
	// a.txt asked (default mode), b.txt auto-approved (accept_edits), .env asked (sensitive).
	if len(asked) != 2 || !strings.HasSuffix(asked[0], "a.txt") || !strings.HasSuffix(asked[1], ".env") {
		t.Errorf("asked for %v, want a.txt and .env only", asked)
	}
	if _, err := h.editor.WaitUpdate(h.ctx(), sid, func(u acp.SessionUpdate) bool {
		return u.CurrentModeUpdate != nil && u.CurrentModeUpdate.CurrentModeID == agent.ModeAcceptEdits
	}); err != nil {
		t.Errorf("no current_mode_update to accept_edits: %v", err)
	}
}

func TestEditApprovalTimeoutAndCancel(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	fm := writeModel([2]string{"slow.txt", "x"})
	never := func(ctx context.Context, _ *acp.RequestPermissionRequest) acp.PermissionOutcome {
		<-ctx.Done()
		return acp.PermissionOutcome{Cancelled: true}
	}
	h := newHarness(t, fm, harnessOptions{bound: editTools(), perm: never, opts: agent.Options{ApprovalTimeout: 50 * time.Millisecond}})
	sid := h.newSession(ws)
	h.prompt(sid, "write")
	if res := toolResults(fm); len(res) != 1 || !strings.Contains(res[0], "edit denied: timeout ") {
		t.Errorf("timeout result = %v", res)
	}
	if _, err := os.Stat(filepath.Join(ws, "slow.txt")); err == nil {
		t.Error("timed-out edit was written")
	}

	// Cancelling the turn while the permission request is open.
	fm2 := writeModel([2]string{"c.txt", "x"})
	asked := make(chan struct{}, 1)
	wait := func(ctx context.Context, _ *acp.RequestPermissionRequest) acp.PermissionOutcome {
		asked <- struct{}{}
		<-ctx.Done()
		return acp.PermissionOutcome{Cancelled: true}
	}
	h2 := newHarness(t, fm2, harnessOptions{bound: editTools(), perm: wait})
	sid2 := h2.newSession(ws)
	result := make(chan acp.StopReason, 1)
	go func() { result <- h2.prompt(sid2, "write") }()
	<-asked
	if err := h2.editor.Cancel(sid2); err != nil {
		t.Fatal(err)
	}
	if stop := <-result; stop != acp.StopCancelled {
		t.Errorf("stop = %s, want cancelled", stop)
	}
	if _, err := os.Stat(filepath.Join(ws, "c.txt")); err == nil {
		t.Error("edit written after the turn was cancelled")
	}
}

func TestDiagnosticsClearedWhenFixed(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	fm := writeModel([2]string{"c.json", "{\"a\": 1,}"}, [2]string{"c.json", "{\"a\": 1}"})
	h := newHarness(t, fm, harnessOptions{bound: editTools(), caps: acp.ClientCapabilities{Meta: wantsDiagnostics}, opts: agent.Options{ApprovalsOff: true}})
	sid := h.newSession(ws)
	h.prompt(sid, "write twice")
	uri := "file://" + filepath.Join(ws, "c.json")
	got := publishedFor(h, uri)
	if len(got) < 2 || len(got[0]) != 1 || len(got[1]) != 0 {
		t.Fatalf("publishes for %s = %v, want [1 error] then []", uri, got)
	}
	if len(h.editor.Permissions()) != 0 {
		t.Error("approvals.mode off still asked")
	}
}

// TestExternalFixIsRelinted: the user fixes a broken file on disk; the
// watcher re-lints it and clears the editor's diagnostics.
func TestExternalFixIsRelinted(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	fm := writeModel([2]string{"bad.json", "[1,]"})
	h := newHarness(t, fm, harnessOptions{bound: editTools(), caps: acp.ClientCapabilities{Meta: wantsDiagnostics}, opts: agent.Options{ApprovalsOff: true}})
	sid := h.newSession(ws)
	h.prompt(sid, "write")
	uri := "file://" + filepath.Join(ws, "bad.json")
	if got := publishedFor(h, uri); len(got) != 1 || len(got[0]) != 1 {
		t.Fatalf("first publish = %v", got)
	}
	// Give the lazily started watcher a moment to be in place, retrying the
	// fix until it is seen (no fixed sleep decides the outcome).
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	for i := 0; ; i++ {
		content := "[1]"
		if i%2 == 1 {
			content = "[1] "
		}
		if err := os.WriteFile(filepath.Join(ws, "bad.json"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		wctx, wcancel := context.WithTimeout(ctx, 500*time.Millisecond)
		err := h.editor.WaitFor(wctx, func() bool {
			got := publishedFor(h, uri)
			return len(got) >= 2 && len(got[len(got)-1]) == 0
		})
		wcancel()
		if err == nil {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("the fix on disk was never re-linted: %v", publishedFor(h, uri))
		}
	}
}
