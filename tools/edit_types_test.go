package tools

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"

	"github.com/hermes-acp/hermes-acp/lint"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// typesLog is a fake TypeChecker (lint.go_types) that records, with the
// approvals, what the edit tools tell it, in order, as lines relative to
// the workspace root. Each written Go file gets one type error from it,
// as the agent's check would add to the file's lint.
type typesLog struct {
	root string
	mu   sync.Mutex
	log  []string
}

func (l *typesLog) add(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.log = append(l.log, fmt.Sprintf(format, args...))
}

func (l *typesLog) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.log...)
}

func (l *typesLog) rel(p workspace.Path) string {
	r, err := filepath.Rel(l.root, p.Abs())
	if err != nil {
		return p.Abs()
	}
	return filepath.ToSlash(r)
}

func (l *typesLog) CheckTypes(callID string, changes []workspace.Change, lints []lint.Result) TypeCheck {
	var cs []string
	for _, c := range changes {
		s := fmt.Sprintf("%s %s", c.Kind, l.rel(c.Path))
		if c.Kind == workspace.ChangeMove {
			s += " -> " + l.rel(c.MoveTo)
		}
		cs = append(cs, s)
	}
	l.add("check %s [%s] (%d lints)", callID, strings.Join(cs, ", "), len(lints))
	return typesCall{l}
}

type typesCall struct{ l *typesLog }

func (c typesCall) Wrote(p workspace.Path, text []byte, res lint.Result) lint.Result {
	c.l.add("wrote %s %q", c.l.rel(p), text)
	if !strings.HasSuffix(p.Abs(), ".go") {
		return res
	}
	return res.WithTypes([]protocol.Diagnostic{{
		Range:    protocol.Range{Start: protocol.Position{Line: 2}, End: protocol.Position{Line: 2, Character: 6}},
		Severity: protocol.DiagnosticSeverityError, Source: lint.Source, Code: lint.CodeGoTypes,
		Message: "undefined: helper",
	}}, nil)
}

func (c typesCall) Removed(p workspace.Path) { c.l.add("removed %s", c.l.rel(p)) }
func (c typesCall) Done()                    { c.l.add("done") }

// TestEditToolsTypeCheck: write_file, patch and a V4A patch start the Go
// type check of their changes before the approval, tell it each file they
// write or remove, end it once, and return (and report to the editor) the
// lint the check adds its errors to; a rejected edit writes nothing and
// still ends its check.
func TestEditToolsTypeCheck(t *testing.T) {
	t.Parallel()
	const typeErr = "GoTypeError: undefined: helper (line 3, column 1)"
	for _, tc := range []struct {
		name     string
		tool     string
		args     map[string]any
		reject   bool
		wantLog  []string
		wantLint bool // the result's lint carries the type error
	}{
		{"write_file", "write_file", map[string]any{"path": "a.go", "content": "package m\n\nfunc A() { helper() }\n"}, false, []string{
			"check call-write_file [create a.go] (1 lints)",
			"approve",
			`wrote a.go "package m\n\nfunc A() { helper() }\n"`,
			"done",
		}, true},
		{"write_file rejected", "write_file", map[string]any{"path": "a.go", "content": "package m\n"}, true, []string{
			"check call-write_file [create a.go] (1 lints)",
			"approve",
			"done",
		}, false},
		{"patch", "patch", map[string]any{"path": "b.go", "old_string": "B() {}", "new_string": "B() { helper() }"}, false, []string{
			"check call-patch [edit b.go] (1 lints)",
			"approve",
			`wrote b.go "package m\n\nfunc B() { helper() }\n"`,
			"done",
		}, true},
		{"v4a", "patch", map[string]any{"mode": "patch", "patch": "*** Begin Patch\n" +
			"*** Update File: b.go\n-func B() {}\n+func B() { helper() }\n" +
			"*** Delete File: c.go\n" +
			"*** Move File: d.go -> sub/d.go\n" +
			"*** End Patch\n"}, false, []string{
			"check call-patch [edit b.go, delete c.go, move d.go -> sub/d.go] (3 lints)",
			"approve",
			`wrote b.go "package m\n\nfunc B() { helper() }\n"`,
			"removed c.go",
			"removed d.go",
			`wrote sub/d.go "package m\n"`,
			"done",
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			types := &typesLog{}
			env := newFakeEnv(t, fakeEnvOptions{
				Files: map[string]string{"b.go": "package m\n\nfunc B() {}\n", "c.go": "package m\n", "d.go": "package m\n"},
				Types: types,
				Approve: func(string, []workspace.Change) workspace.Decision {
					types.add("approve")
					return workspace.Decision{Approved: !tc.reject}
				},
			})
			types.root = env.Root
			r := env.Run(t, tc.tool, tc.args)
			if d := cmp.Diff(tc.wantLog, types.lines()); d != "" {
				t.Errorf("type check calls (-want +got):\n%s", d)
			}
			out, err := json.Marshal(r.Value)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(string(out), typeErr); got != tc.wantLint {
				t.Errorf("result %s: has %q = %v, want %v", out, typeErr, got, tc.wantLint)
			}
			if !tc.wantLint {
				return
			}
			var reported bool
			for _, rep := range env.LintReports() {
				for _, d := range rep.Result.Introduced {
					reported = reported || d.Code == lint.CodeGoTypes
				}
			}
			if !reported {
				t.Errorf("no lint report to the editor carries the go-types error: %+v", env.LintReports())
			}
		})
	}
}
