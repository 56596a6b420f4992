package tools

import (
	"context"
	_ "embed"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hermes-acp/hermes-acp/internal/pyfmt"
	"github.com/hermes-acp/hermes-acp/lint"
	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/tools/internal/fuzzy"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// write_file replaces (or creates) a whole file, as hermes-agent's tool of
// the same name does: argument checks, the workspace and safety guards, the
// display-text refusal, a staleness warning, the syntax gate, the user's
// approval of the diff, then an atomic write (through the editor when it
// can) with the file's encoding, BOM and line endings kept, and a delta
// lint. An existing binary file is refused as read_file refuses it.
var _ = declare(registry.Tool[editDeps]{
	Spec: registry.Spec{Entry: registry.Entry{
		Name:           "write_file",
		Toolset:        "file",
		Emoji:          "✍️",
		Description:    writeFileDescription,
		MaxResultChars: 100_000,
		Kind:           registry.KindEdit,
		ChangesFiles:   true, // checkpointed first (issue 29)
		PathArg:        "path",
		Title:          func(args map[string]any) string { return titleWithArg("write: ", args, "path", "write_file") },
		Preview:        editPreview("write_file"),
		Render:         editRender("write_file"),
	}, Params: writeFileParams{}},
	New: func(d editDeps) registry.Handler {
		return registry.Typed(func(ctx context.Context, call *registry.Call, p *writeFileParams) (registry.Result, error) {
			return writeFile(ctx, d, call, p)
		})
	},
})

//go:embed write_file.md
var writeFileDescription string

// writeFileParams are write_file's arguments; Content is any so that a
// missing content and a content of the wrong type get hermes's distinct
// messages.
type writeFileParams struct {
	Path    string `json:"path" schema:"required" desc:"Path to the file to write (will be created if it doesn't exist, overwritten if it does)"`
	Content any    `json:"content" schema:"required,type=string" desc:"Complete content to write to the file"`
}

// Messages the model reads verbatim; the wording is hermes-agent's.
const (
	writeFileMsgNoPath = "write_file: missing required field 'path'. Re-emit the tool call with " +
		"both 'path' and 'content' set."
	writeFileMsgNoContent = "write_file: missing required field 'content'. The tool call included a " +
		"path but no content argument — this is almost always a dropped-arg bug under context " +
		"pressure. Re-emit the tool call with the full content payload"
	writeFileMsgNoContentCode = ", or use execute_code with hermes_tools.write_file() for very large files"
	writeFileMsgDisplayText   = "Refusing to write internal read_file display text as file content. " +
		"Strip read_file line-number prefixes or reconstruct the intended file contents before writing."
)

// writeFileResult is write_file's successful result, with hermes's keys.
type writeFileResult struct {
	BytesWritten  int            `json:"bytes_written"`
	DirsCreated   bool           `json:"dirs_created"`
	Lint          lint.ModelLint `json:"lint"`
	ResolvedPath  string         `json:"resolved_path"`
	FilesModified []string       `json:"files_modified"`
	Warning       string         `json:"_warning,omitempty"`
}

// writeFile is write_file's handler.
func writeFile(ctx context.Context, env editDeps, call *registry.Call, params *writeFileParams) (registry.Result, error) {
	rawPath := params.Path
	if rawPath == "" {
		return registry.Error(writeFileMsgNoPath), nil
	}
	rawContent, present := call.Args["content"]
	if !present {
		msg := writeFileMsgNoContent
		if env.Enabled("execute_code") {
			msg += writeFileMsgNoContentCode
		}
		return registry.Error(msg + "."), nil
	}
	content, ok := rawContent.(string)
	if !ok {
		return registry.Error("write_file: 'content' must be a string, got " + pyfmt.TypeName(rawContent) + "."), nil
	}

	p, msg := editTarget(env, rawPath, "Write")
	if msg != "" {
		return registry.Error(msg), nil
	}
	if writeFileIsDisplayText(content) {
		return registry.Error(writeFileMsgDisplayText), nil
	}
	warning := env.State().CheckStale(p)

	old, exists, err := editRead(ctx, env, p)
	if err != nil {
		if cerr := editCancelled(ctx, "write_file", p); cerr != nil {
			return registry.Result{}, cerr
		}
		return registry.Error("Failed to read file: " + err.Error()), nil
	}
	var oldText string
	if exists {
		if _, msg := editDecode(ctx, env, rawPath, p, old); msg != "" {
			return registry.Error(msg), nil
		}
		oldText = editText(p, old)
	}
	plan, msg := editPlanFor(rawPath, p, old, exists, content)
	if msg != "" {
		return registry.Error(msg), nil
	}
	res := editLint(ctx, env, p, []byte(oldText), exists, []byte(plan.text))
	if cerr := editCancelled(ctx, "write_file", p); cerr != nil {
		return registry.Result{}, cerr
	}
	if msg := editGate(env, p, res); msg != "" {
		return registry.Error(msg), nil
	}
	change := editChange(p, oldText, exists, plan.text)
	types := editTypes(env, call.ID, []workspace.Change{change}, []lint.Result{res})
	defer types.Done()
	if d := env.ApproveEdit(ctx, call.ID, []workspace.Change{change}, []lint.Result{res}); !d.Approved {
		if cerr := editCancelled(ctx, "write_file", p); cerr != nil {
			return registry.Result{}, cerr
		}
		return registry.Error(denialMessage(d)), nil
	}

	info, err := env.Files().Write(ctx, p, []byte(content))
	if err != nil {
		if cerr := editCancelled(ctx, "write_file", p); cerr != nil {
			return registry.Result{}, cerr
		}
		return registry.Error(editWriteMessage("Failed to write file: ", err)), nil
	}
	res = editWritten(env, call.ID, p, info, plan.planned, res, types)
	return registry.OK(writeFileResult{
		BytesWritten:  info.Bytes,
		DirsCreated:   len(info.DirsCreated) > 0,
		Lint:          res.ModelLint(),
		ResolvedPath:  p.Abs(),
		FilesModified: []string{p.Abs()},
		Warning:       warning,
	}), nil
}

// writeFileIsDisplayText reports whether content is file-tool display text
// rather than the bytes the model meant to write (hermes
// _is_internal_file_tool_content): read_file's dedup status, or
// read_file's line-numbered rendering.
func writeFileIsDisplayText(content string) bool {
	return writeFileIsStatusText(content) || writeFileIsLineNumbered(content)
}

// writeFileIsStatusText reports content that is read_file's dedup status
// message, alone or with a little framing: it contains the message and is
// at most twice as long (in characters, after trimming).
func writeFileIsStatusText(content string) bool {
	s := fuzzy.Strip(content)
	if s == "" {
		return false
	}
	if s == readFileMsgUnchanged {
		return true
	}
	return strings.Contains(s, readFileMsgUnchanged) &&
		utf8.RuneCountInString(s) <= 2*utf8.RuneCountInString(readFileMsgUnchanged)
}

// writeFileIsLineNumbered reports content dominated by read_file's
// "<n>|<line>" rendering: at least two non-blank lines, at least 60% of them
// numbered, and the numbers consecutive. A single literal "1|value" line
// passes.
func writeFileIsLineNumbered(content string) bool {
	var lines []string
	for _, l := range fuzzy.SplitLines(content) {
		if fuzzy.Strip(l) != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) < 2 {
		return false
	}
	// numbered holds each numbered line's number, or -1 when it is too
	// large to parse (it can then never be consecutive).
	var numbered []int
	for _, l := range lines {
		prefix, _, ok := strings.Cut(fuzzy.LStrip(l), "|")
		if !ok || !writeFileAllDigits(prefix) {
			continue
		}
		n, err := strconv.Atoi(prefix)
		if err != nil {
			n = -1
		}
		numbered = append(numbered, n)
	}
	if len(numbered) < 2 || float64(len(numbered))/float64(len(lines)) < 0.6 {
		return false
	}
	pairs := 0
	for i := 1; i < len(numbered); i++ {
		if numbered[i-1] >= 0 && numbered[i] == numbered[i-1]+1 {
			pairs++
		}
	}
	return pairs >= len(numbered)-1
}

// writeFileAllDigits reports a non-empty string of ASCII digits.
func writeFileAllDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
