package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// This file tests the built-in tools' contract with the rest of the agent:
// the declared entries and their facts, binding to a session, descriptions
// and hints that name only the session's tools, typed arguments, the
// editor's rendering of typed results, and the messages of denied edits.

// contractDisabled are the tools the restricted session of these tests does
// not enable.
var contractDisabled = []string{"terminal", "vision_analyze", "execute_code", "search_files", "write_file"}

// contractRestricted is Deps.Enabled of the restricted session.
func contractRestricted(tool string) bool { return !slices.Contains(contractDisabled, tool) }

// contractMentions returns the disabled tools text names.
func contractMentions(text string) []string {
	var out []string
	for _, name := range contractDisabled {
		if strings.Contains(text, name) {
			out = append(out, name)
		}
	}
	return out
}

// withoutOwnActions removes from text the values of e's own "action"
// argument (skill_manage's action write_file is not the write_file tool).
func withoutOwnActions(e registry.Entry, text string) string {
	props, _ := e.Schema["properties"].(map[string]any)
	action, _ := props["action"].(map[string]any)
	values, _ := action["enum"].([]any)
	for _, v := range values {
		if s, ok := v.(string); ok {
			text = regexp.MustCompile(`\b`+regexp.QuoteMeta(s)+`\b`).ReplaceAllString(text, "<action>")
		}
	}
	return text
}

// contractEntry returns the declared entry of the built-in tool name.
func contractEntry(t testing.TB, name string) registry.Entry {
	t.Helper()
	for _, e := range Entries() {
		if e.Name == name {
			return e
		}
	}
	t.Fatalf("Entries() has no %q", name)
	return registry.Entry{}
}

// contractHermesDescriptions are the tools' descriptions in a session that
// enables every tool: hermes's wording, with hermes-acp's additions.
var contractHermesDescriptions = map[string]string{
	// execute_code lists only the tools a script can run: web_search needs a
	// search backend, which these sessions lack.
	"execute_code": "Run Python that calls hermes-acp tools programmatically. Use when you need 3+ tool calls with logic between them: filtering/reducing large outputs before they enter context, branching, or loops (N pages/files, retry on failure). Use normal tool calls for single calls, results you must reason over in full, or anything needing user interaction.\n\nEach call runs a fresh script: nothing survives between execute_code calls.\n\nAvailable via `from hermes_tools import ...`:\n\n  web_extract(urls: list[str], char_limit: int = None) -> dict\n    Returns {\"results\": [{\"url\", \"title\", \"content\", \"error\"}, ...]} where content is markdown.\n    No LLM summarization. Pages over char_limit (default 15000) are head+tail truncated; full text stored on disk (path in the content footer).\n  read_file(path: str, offset: int = 1, limit: int = 2000) -> dict\n    Lines are 1-indexed. Returns {\"content\": \"...\", \"total_lines\": N}\n  write_file(path: str, content: str) -> dict\n    Always overwrites the entire file.\n  search_files(pattern: str, target=\"content\", path=\".\", file_glob=None, limit=50, order=\"discovery\") -> dict\n    target: \"content\" (search inside files) or \"files\" (find files by name). Returns {\"matches\": [...]}\n  patch(path: str, old_string: str, new_string: str, replace_all: bool = False) -> dict\n    Replaces old_string with new_string in the file.\n  terminal(command: str, timeout=None, workdir=None) -> dict\n    Foreground only (no background/pty). Returns {\"output\": \"...\", \"exit_code\": N}\n\nThese calls go through the same checks as your own tool calls: paths stay inside the workspace, edits are shown to the user as diffs for approval, and commands need the same approval.\n\nLimits: 5-minute timeout, max 50 tool calls per script. Stdout over 50KB shows head/tail; stderr is kept to 10KB.\n\nScripts run in the workspace (code_execution.mode project, with the workspace's .venv or venv python when it has one) or in their own temp dir (mode strict: pass paths relative to the workspace to the tools, or absolute paths). The script can write only inside the workspace and the temp dir; the environment has no API keys or tokens.\n\nHelpers require imports: `from hermes_tools import json_parse, shell_quote, retry`. json_parse(text) — tolerant json.loads for command output; shell_quote(s) — shlex.quote for dynamic shell args; retry(fn, max_attempts=3, delay=2) — exponential backoff.",
	"process":      "Manage background processes started with terminal(background=true): list, poll, log, wait, kill, write, submit, close.\npoll: status + new output (the last 1000 characters). log: full output, paged by lines (default: the last 200). wait: block until the process exits or the timeout passes (partial output on timeout). write vs submit: submit appends Enter — use it to answer prompts; write sends raw bytes, no newline. close: EOF on stdin. kill: terminate the process and everything it started.\nsession_id: from the background start's output; any unique prefix works ('4dae' for proc_4dae56ca81f6). Required except for 'list'.",
	"terminal":     "Execute shell commands on a Linux environment. Each command runs in a fresh shell (bash) whose working directory is the workspace root, or `workdir`; `cd` and exported variables do not carry over to the next call.\n\nDo NOT use cat/head/tail to read files — use read_file instead.\nDo NOT use grep/rg/find to search — use search_files instead.\nDo NOT use ls to list directories — use search_files(target='files') instead.\nDo NOT use sed/awk to edit files — use patch instead.\nDo NOT use echo/cat heredoc to create files — use write_file instead.\nReserve terminal for: builds, installs, git, processes, scripts, network, package managers, and anything that needs a shell.\n\nForeground (default): Commands return INSTANTLY when done, even if the timeout is high. Set timeout=300 for long builds/scripts — you'll still get the result in seconds if it's fast. Prefer foreground for short commands.\nBackground: Set background=true to get a session_id. Use it for long-lived processes that never exit (servers, watchers, daemons) and for long-running bounded tasks (tests, builds, deploys); you are told when it exits by itself.\nFor servers/watchers, do NOT use shell-level background wrappers (nohup/disown/setsid/trailing '&') in foreground mode. Use background=true so Hermes can track lifecycle and output.\nAfter starting a server, verify readiness with a health check or log signal, then run tests in a separate terminal() call. Avoid blind sleep loops.\nUse process(action=\"poll\") for progress checks, process(action=\"wait\") to block until done.\nWorking directory: Use 'workdir' for per-command cwd (inside the workspace).\nPTY mode: Set pty=true for interactive CLI tools (Codex, Claude Code, Python REPL).\nSandbox: when the sandbox is on, commands can write only inside the workspace, the temporary directory and the toolchains' caches; they have no network and do not see the user's credential folders (~/.ssh, ~/.aws …). Set network=true for installs, downloads, git fetch/push and the like, and credentials=true when the command signs in (git push over SSH, gh, cloud CLIs); the user is asked. Commands of this session without network meet each other on their own loopback (a background server and a curl to localhost); a command with network uses the machine's instead.\n\nDo NOT use vim/nano/interactive tools without pty=true — they hang without a pseudo-terminal. Pipe git output to cat if it might page.",
	"read_file": "Read a text file with line numbers and pagination. Use this instead of cat/head/tail in terminal. " +
		"Output format: 'LINE_NUM|CONTENT'. Suggests similar filenames if not found. Use offset and limit for " +
		"large files. A read returns at most ~100K characters: a longer window is cut at a line boundary with " +
		"truncated=true and next_offset telling where to continue. Shows the editor's unsaved changes when the " +
		"file is open there. Jupyter notebooks (.ipynb) are auto-extracted to readable text. NOTE: Cannot read " +
		"images or other binary files — use vision_analyze for images.",
	"search_files": "Search file contents or find files by name. Use this instead of grep/rg/find/ls in terminal. " +
		"Respects .gitignore; skips hidden directories, node_modules and binary files.\n\n" +
		"Content search (target='content'): Regex search inside files (line by line). Output modes: full matches " +
		"with line numbers, file paths only, or match counts.\n\n" +
		"File search (target='files'): Find files by glob pattern (e.g., '*.py', '*config*'). Also use this " +
		"instead of ls — results sorted by modification time.",
	"write_file": "Write content to a file, completely replacing existing content. Use this instead of " +
		"echo/cat heredoc in terminal. Creates parent directories automatically. OVERWRITES the entire " +
		"file — use 'patch' for targeted edits. The file must be inside the workspace. The change is shown " +
		"to the user as a diff for approval before anything is written. The existing file's encoding " +
		"(UTF-8, UTF-16, Latin-1), BOM and line endings are kept; binary files are refused. Auto-runs syntax " +
		"checks on .json/.yaml/.yml/.toml/.go and go.mod files; only " +
		"NEW errors introduced by this write are surfaced (pre-existing errors are filtered out).",
	// skills (issue #14)
	"skills_list": "List available skills (name + description). Use skill_view(name) to load full content.",
	"skill_view": "Skills allow for loading information about specific tasks and workflows, as well as scripts and " +
		"templates. Load a skill's full content or access its linked files (references, templates, scripts). First " +
		"call returns SKILL.md content plus a 'linked_files' dict showing available references/templates/scripts. " +
		"To access those, call again with file_path parameter.",
	"skill_manage": "Manage skills (create, update, delete). Skills are your procedural knowledge — reusable approaches " +
		"for recurring task types. New skills go to the user's skills folder ($HERMES_HOME/skills); existing skills (also " +
		"the project's, in .hermes/skills) can be modified wherever they live. Every change is shown to the user as a diff " +
		"for approval before anything is written.\n\n" +
		"Actions: create (full SKILL.md + optional category), patch (old_string/new_string — preferred for fixes), edit " +
		"(full SKILL.md rewrite — major overhauls only), delete, write_file, remove_file.\n\n" +
		"On delete, pass `absorbed_into=<umbrella>` when you're merging this skill's content into another one, or " +
		"`absorbed_into=\"\"` when you're pruning it with no forwarding target. The target you name in `absorbed_into` " +
		"must already exist — create/patch the umbrella first, then delete.\n\n" +
		"Create when: complex task succeeded (5+ calls), errors overcome, user-corrected approach worked, non-trivial " +
		"workflow discovered, or user asks you to remember a procedure.\n" +
		"Update when: instructions stale/wrong, OS-specific failures, missing steps or pitfalls found during use. If you " +
		"used a skill and hit issues not covered by it, patch it immediately.\n\n" +
		"After difficult/iterative tasks, offer to save as a skill. Skip for simple one-offs. Confirm with user before " +
		"creating/deleting.\n\n" +
		"Good skills: trigger conditions, numbered steps with exact commands, pitfalls section, verification steps. Use " +
		"skill_view() to see format examples.\n\n" +
		"SKILL.md starts with YAML frontmatter between '---' lines, with at least name and description (max 1024 " +
		"characters), followed by the instructions in Markdown. Names: lowercase letters, digits, dots, hyphens and " +
		"underscores, max 64 characters.",
	"patch": "Targeted find-and-replace edits in files. Use this instead of sed/awk in terminal. " +
		"Uses fuzzy matching (9 strategies) so minor whitespace/indentation differences won't break it. " +
		"Returns a unified diff. Every edit is shown to the user as a diff for approval before it is " +
		"written, and the edited files are syntax-checked (.json/.yaml/.yml/.toml/.go, go.mod); only NEW " +
		"errors introduced by the edit are reported. Files keep their encoding (UTF-8, UTF-16, Latin-1), BOM " +
		"and line endings; binary files are refused.\n\n" +
		"REPLACE MODE (mode='replace', default): find a unique string and replace it. " +
		"REQUIRED PARAMETERS: mode, path, old_string, new_string.\n" +
		"PATCH MODE (mode='patch'): apply V4A multi-file patches for bulk changes (update, add, delete " +
		"and move files; nothing is written unless every operation validates). " +
		"REQUIRED PARAMETERS: mode, patch. Example:\n" +
		"*** Begin Patch\n*** Update File: src/app.py\n@@ def main(): @@\n     print(\"hello\")\n" +
		"-    return 1\n+    return 0\n*** Add File: NOTES.md\n+# Notes\n*** End Patch",
	// web
	"web_extract": "Extract the content of web pages as Markdown (the main content of the page, without navigation and ads). Also reads PDF URLs (papers, documents) as text and plain-text URLs as they are. Pass up to 5 URLs per call. Pages under 5000 characters come back whole; longer pages come back summarised to about 5000 characters, or cut to `char_limit` characters when no summary is made, with the full text saved to a file you can read with read_file (offset and limit). Private, loopback and cloud-metadata addresses are refused unless web.allow_private_urls is set. If a URL fails or needs JavaScript, try another source or open it with browser_navigate.",
	"web_search":  "Search the web for information on any topic. Returns up to `limit` results (default 5) ranked by relevance, each with a title, URL and short description. Use it to find documentation, error messages, release notes or current information, then read the pages you need with web_extract.",
	"vision_analyze": "Analyze images using AI vision. Provides a comprehensive description and answers a specific " +
		"question about the image content. The image can be a file in the workspace (a PNG, JPEG, GIF or WebP of " +
		"at most 15 MB), an http(s) URL or a data: URL.",
}

// TestEntries checks the declared built-in entries: every fact the
// registry, the planner, the guardrails and the editor read, no handler
// (a session binds it), and the descriptions of a session that enables
// every tool.
func TestEntries(t *testing.T) {
	t.Parallel()
	type facts struct {
		Toolset           string
		Kind              registry.Kind
		ReadOnly          bool
		Idempotent        bool
		ParallelSafe      bool
		PathArg           string
		LineArgs          []string
		ReadsSavedResults bool
		MaxResultChars    int
	}
	want := map[string]facts{
		"patch": {Toolset: "file", Kind: registry.KindEdit, PathArg: "path", MaxResultChars: 100_000},
		"read_file": {Toolset: "file", Kind: registry.KindRead, ReadOnly: true, Idempotent: true, ParallelSafe: true,
			PathArg: "path", LineArgs: []string{"offset"}, ReadsSavedResults: true, MaxResultChars: registry.Unlimited},
		"search_files": {Toolset: "file", Kind: registry.KindSearch, ReadOnly: true, Idempotent: true, ParallelSafe: true,
			MaxResultChars: 100_000},
		"vision_analyze": {Toolset: "vision", Kind: registry.KindRead, ReadOnly: true, Idempotent: true, ParallelSafe: true},
		"write_file":     {Toolset: "file", Kind: registry.KindEdit, PathArg: "path", MaxResultChars: 100_000},
		"terminal":       {Toolset: "terminal", Kind: registry.KindExecute, MaxResultChars: 100_000},
		"process":        {Toolset: "terminal", Kind: registry.KindExecute},
		// execute_code (issue #16)
		"execute_code": {Toolset: "code_execution", Kind: registry.KindExecute, MaxResultChars: 100_000},
		// web
		"web_extract": {Toolset: "web", Kind: registry.KindFetch, ReadOnly: true, Idempotent: true, ParallelSafe: true, MaxResultChars: 100_000},
		"web_search":  {Toolset: "web", Kind: registry.KindFetch, ReadOnly: true, Idempotent: true, ParallelSafe: true, MaxResultChars: 100_000},
		// skills (issue #14)
		"skills_list":  {Toolset: "skills", Kind: registry.KindRead, ReadOnly: true, Idempotent: true, ParallelSafe: true},
		"skill_view":   {Toolset: "skills", Kind: registry.KindRead, ReadOnly: true, Idempotent: true, ParallelSafe: true},
		"skill_manage": {Toolset: "skills", Kind: registry.KindEdit},

		// browser
		"browser_back":       {Toolset: "browser", Kind: registry.KindExecute},
		"browser_cdp":        {Toolset: "browser", Kind: registry.KindExecute},
		"browser_click":      {Toolset: "browser", Kind: registry.KindExecute},
		"browser_console":    {Toolset: "browser", Kind: registry.KindExecute},
		"browser_dialog":     {Toolset: "browser", Kind: registry.KindExecute},
		"browser_get_images": {Toolset: "browser", Kind: registry.KindRead, ReadOnly: true},
		"browser_navigate":   {Toolset: "browser", Kind: registry.KindFetch},
		"browser_press":      {Toolset: "browser", Kind: registry.KindExecute},
		"browser_scroll":     {Toolset: "browser", Kind: registry.KindExecute},
		"browser_snapshot":   {Toolset: "browser", Kind: registry.KindRead, ReadOnly: true},
		"browser_type":       {Toolset: "browser", Kind: registry.KindExecute},
		"browser_vision":     {Toolset: "browser", Kind: registry.KindRead, ReadOnly: true},
	}
	got := map[string]facts{}
	var names []string
	for _, e := range Entries() {
		names = append(names, e.Name)
		got[e.Name] = facts{e.Toolset, e.Kind, e.ReadOnly, e.Idempotent, e.ParallelSafe, e.PathArg, e.LineArgs,
			e.ReadsSavedResults, e.MaxResultChars}
		if e.Handler != nil {
			t.Errorf("declared entry %s has a handler; a session binds it", e.Name)
		}
		if e.Title == nil || e.Preview == nil || e.Render == nil {
			t.Errorf("entry %s lacks its title, preview or render function", e.Name)
		}
		if d := cmp.Diff(contractHermesDescriptions[e.Name], e.Description); d != "" {
			t.Errorf("%s description with every tool enabled mismatch (-want +got):\n%s", e.Name, d)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("Entries() = %v, want them sorted by name", names)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("entry facts mismatch (-want +got):\n%s", d)
	}
}

// TestBindEnabledToolsOnly checks that Bind returns only the tools the
// session enables, each with a handler and a description for that session,
// and that a registry holding the declared entries with the bound ones
// over them runs the enabled tools and refuses the others.
func TestBindEnabledToolsOnly(t *testing.T) {
	t.Parallel()
	env := newFakeEnv(t, fakeEnvOptions{Files: map[string]string{"a.txt": "alpha\n"}})
	d := env.Deps
	d.Enabled = func(tool string) bool {
		return tool != "patch" && tool != "search_files" && !strings.HasPrefix(tool, "browser_")
	}
	entries, hooks := Bind(d)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name)
		if e.Handler == nil {
			t.Errorf("bound entry %s has no handler", e.Name)
		}
	}
	if d := cmp.Diff([]string{"execute_code", "process", "read_file", "skill_manage", "skill_view", "skills_list", "terminal", "vision_analyze", "web_extract", "web_search", "write_file"}, names); d != "" {
		t.Errorf("Bind entries mismatch (-want +got):\n%s", d)
	}
	if len(hooks) != 1 {
		t.Fatalf("Bind returned %d hooks, want the read tracker's one", len(hooks))
	}
	for _, e := range entries {
		if e.Name == "write_file" && strings.Contains(e.Description, "patch") {
			t.Errorf("write_file description names patch, which the session does not enable:\n%s", e.Description)
		}
	}

	reg := registry.New(nil)
	if err := reg.RegisterAll(Entries()...); err != nil {
		t.Fatal(err)
	}
	if err := reg.RegisterAll(entries...); err != nil {
		t.Fatal(err)
	}
	r := reg.Dispatch(t.Context(), &registry.Call{ID: "c1", Name: "read_file", Args: map[string]any{"path": "a.txt"}})
	if got := resultObject(t, r); r.IsError || got["content"] != "1|alpha" {
		t.Errorf("read_file through the session's registry = %s (IsError %v), want the content", r.Encode(), r.IsError)
	}
	r = reg.Dispatch(t.Context(), &registry.Call{ID: "c2", Name: "patch",
		Args: map[string]any{"path": "a.txt", "old_string": "alpha", "new_string": "beta"}})
	if want := `{"error":"patch is not enabled in this session; nothing was run"}`; r.Encode() != want || !r.IsError {
		t.Errorf("patch through the session's registry = %s (IsError %v), want %s", r.Encode(), r.IsError, want)
	}
	if got := env.ReadFile(t, "a.txt"); got != "alpha\n" {
		t.Errorf("a.txt = %q, want it unchanged", got)
	}

	all, _ := Bind(env.Deps) // Enabled nil: every tool
	if len(all) != len(Entries()) {
		t.Errorf("Bind with every tool enabled = %d entries, want %d", len(all), len(Entries()))
	}
	for _, e := range all {
		if e.Check.Err() != nil {
			continue // not offered in this session (the browser tools without a browser set)
		}
		// This session has no browser: descriptions leave the browser out.
		want := strings.ReplaceAll(contractHermesDescriptions[e.Name], " or open it with browser_navigate", "")
		if d := cmp.Diff(want, e.Description); d != "" {
			t.Errorf("bound %s description mismatch (-want +got):\n%s", e.Name, d)
		}
	}
}

// contractHandler returns the handler of tool name among bound entries.
func contractHandler(t testing.TB, entries []registry.Entry, name string) registry.Handler {
	t.Helper()
	for _, e := range entries {
		if e.Name == name {
			return e.Handler
		}
	}
	t.Fatalf("no bound %s", name)
	return nil
}

// TestBindSessionsHaveOwnState checks that two sessions bound over the same
// workspace keep their own read dedup, loop guard and patch failure counts,
// and that each session's hook resets only its own read guard.
func TestBindSessionsHaveOwnState(t *testing.T) {
	t.Parallel()
	env := newFakeEnv(t, fakeEnvOptions{Files: map[string]string{"a.txt": "alpha\n"}})
	e1, hooks1 := Bind(env.Deps)
	e2, hooks2 := Bind(env.Deps)
	read1, read2 := contractHandler(t, e1, "read_file"), contractHandler(t, e2, "read_file")
	read := func(h registry.Handler) (map[string]any, registry.Result) {
		t.Helper()
		r, err := h(t.Context(), &registry.Call{ID: "r", Name: "read_file", Args: map[string]any{"path": "a.txt"}})
		if err != nil {
			t.Fatal(err)
		}
		checkIsError(t, "read_file", r)
		return resultObject(t, r), r
	}
	note := func(hooks []registry.Hook, tool string) {
		t.Helper()
		if block, msg := hooks[0].Pre(t.Context(), &registry.Call{Name: tool}); block || msg != "" {
			t.Errorf("hook Pre(%s) = %v, %q; want it never to block", tool, block, msg)
		}
	}

	if got, _ := read(read1); got["content"] != "1|alpha" {
		t.Fatalf("session 1 first read = %v, want the content", got)
	}
	if got, _ := read(read1); got["status"] != "unchanged" {
		t.Fatalf("session 1 second read = %v, want the unchanged stub", got)
	}
	if got, r := read(read1); !r.IsError || got["already_read"] != 3.0 {
		t.Fatalf("session 1 third read = %v (IsError %v), want BLOCKED", got, r.IsError)
	}
	if got, r := read(read2); r.IsError || got["content"] != "1|alpha" {
		t.Errorf("session 2 first read = %v, want the content: session 1's dedup is not session 2's", got)
	}
	note(hooks2, "terminal") // another tool in session 2 only
	if got, r := read(read1); !r.IsError || got["already_read"] != 4.0 {
		t.Errorf("session 1 after another tool in session 2 = %v, want still BLOCKED", got)
	}
	note(hooks1, "read_file") // read and search do not reset
	note(hooks1, "search_files")
	if got, r := read(read1); !r.IsError || got["already_read"] != 5.0 {
		t.Errorf("session 1 after read_file and search_files calls = %v, want still BLOCKED", got)
	}
	note(hooks1, "terminal")
	if got, r := read(read1); r.IsError || got["status"] != "unchanged" {
		t.Errorf("session 1 after another tool = %v, want the stub again", got)
	}

	// Patch failure counters are the session's too.
	miss := map[string]any{"path": "a.txt", "old_string": "zzzz qqqq", "new_string": "x"}
	patch1, patch2 := contractHandler(t, e1, "patch"), contractHandler(t, e2, "patch")
	var hint1 string
	for range 3 {
		r, err := patch1(t.Context(), &registry.Call{ID: "p", Name: "patch", Args: miss})
		if err != nil {
			t.Fatal(err)
		}
		checkIsError(t, "patch", r)
		hint1, _ = resultObject(t, r)["_hint"].(string)
	}
	if !strings.HasPrefix(hint1, "This is failure #3 patching 'a.txt'.") {
		t.Errorf("session 1 third failure hint = %q, want the escalated hint", hint1)
	}
	r, err := patch2(t.Context(), &registry.Call{ID: "p", Name: "patch", Args: miss})
	if err != nil {
		t.Fatal(err)
	}
	if hint, _ := resultObject(t, r)["_hint"].(string); hint != patchHintNotFoundText || !r.IsError {
		t.Errorf("session 2 first failure hint = %q (IsError %v), want the plain hint %q", hint, r.IsError, patchHintNotFoundText)
	}
}

// TestDescriptionsNameOnlyEnabledTools checks that no description a session
// sees names a tool the session does not enable, and that the sentences
// naming a tool come back when it is enabled.
func TestDescriptionsNameOnlyEnabledTools(t *testing.T) {
	t.Parallel()
	env := newFakeEnv(t, fakeEnvOptions{})
	d := env.Deps
	d.Enabled = contractRestricted
	entries, _ := Bind(d)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name)
		schema, err := json.Marshal(e.Schema)
		if err != nil {
			t.Fatal(err)
		}
		if m := contractMentions(withoutOwnActions(e, e.Description+string(schema))); len(m) > 0 {
			t.Errorf("%s description or schema names %v, which the session does not enable:\n%s", e.Name, m, e.Description)
		}
	}
	if d := cmp.Diff([]string{"browser_back", "browser_cdp", "browser_click", "browser_console", "browser_dialog",
		"browser_get_images", "browser_navigate", "browser_press", "browser_scroll", "browser_snapshot", "browser_type",
		"browser_vision", "patch", "process", "read_file", "skill_manage", "skill_view", "skills_list", "web_extract", "web_search"}, names); d != "" {
		t.Errorf("bound tools mismatch (-want +got):\n%s", d)
	}

	restricted := newSession(Deps{Enabled: contractRestricted})
	noPatch := newSession(Deps{Enabled: func(tool string) bool { return tool != "patch" }})
	for _, tc := range []struct {
		tool string
		s    *session
		want string
	}{
		{"read_file", restricted, "Read a text file with line numbers and pagination. Output format: 'LINE_NUM|CONTENT'. " +
			"Suggests similar filenames if not found. Use offset and limit for large files. A read returns at most ~100K " +
			"characters: a longer window is cut at a line boundary with truncated=true and next_offset telling where to " +
			"continue. Shows the editor's unsaved changes when the file is open there. Jupyter notebooks (.ipynb) are " +
			"auto-extracted to readable text. NOTE: Cannot read images or other binary files."},
		{"search_files", restricted, strings.Replace(contractHermesDescriptions["search_files"],
			"Use this instead of grep/rg/find/ls in terminal. ", "", 1)},
		{"write_file", restricted, strings.Replace(contractHermesDescriptions["write_file"],
			"Use this instead of echo/cat heredoc in terminal. ", "", 1)},
		{"patch", restricted, strings.Replace(contractHermesDescriptions["patch"],
			"Use this instead of sed/awk in terminal. ", "", 1)},
		{"write_file", noPatch, strings.Replace(contractHermesDescriptions["write_file"],
			"OVERWRITES the entire file — use 'patch' for targeted edits.", "OVERWRITES the entire file.", 1)},
	} {
		var desc string
		for _, b := range builtins {
			if b.entry.Name == tc.tool {
				desc = b.description(tc.s)
			}
		}
		if d := cmp.Diff(tc.want, desc); d != "" {
			t.Errorf("%s description mismatch (-want +got):\n%s", tc.tool, d)
		}
		if tc.s == restricted {
			if m := contractMentions(desc); len(m) > 0 {
				t.Errorf("%s description names %v", tc.tool, m)
			}
		}
	}
}

// TestResultHintsNameOnlyEnabledTools checks the hints of read_file, patch
// and write_file results: in a session without terminal, vision_analyze,
// execute_code, search_files and write_file they name none of them, and
// with every tool enabled they keep hermes's wording.
func TestResultHintsNameOnlyEnabledTools(t *testing.T) {
	t.Parallel()
	files := map[string]string{"archive.zip": "PK", "report.docx": "PK", "dir/inner.txt": "x\n", "a.txt": "alpha\n", ".env": "K=v\n"}
	escalated := "This is failure #3 patching 'a.txt'. Stop retrying with variations of the same old_string. Either: " +
		"(1) re-read the file fresh to verify current content, (2) use a longer / more unique old_string with surrounding " +
		"context lines"
	noContent := "write_file: missing required field 'content'. The tool call included a path but no content argument — " +
		"this is almost always a dropped-arg bug under context pressure. Re-emit the tool call with the full content payload"
	type step struct {
		tool string
		args map[string]any
		key  string // the result's key holding the text
		want string
	}
	miss := map[string]any{"path": "a.txt", "old_string": "zzzz qqqq", "new_string": "x"}
	for _, tc := range []struct {
		name    string
		enabled func(string) bool
		steps   []step
	}{
		{"restricted", contractRestricted, []step{
			{"read_file", map[string]any{"path": "archive.zip"}, "error", "Cannot read binary file 'archive.zip' (.zip)."},
			{"read_file", map[string]any{"path": "pic.png"}, "hint", "Image file detected. read_file cannot show images."},
			{"read_file", map[string]any{"path": "dir"}, "error", "Cannot read 'dir': it is a directory, not a regular file."},
			{"read_file", map[string]any{"path": "report.docx"}, "error",
				"Cannot read 'report.docx': extracting text from .docx files is not supported yet."},
			{"patch", miss, "_hint", "old_string not found. Use read_file to verify the current content."},
			{"patch", miss, "_hint", "old_string not found. Use read_file to verify the current content."},
			{"patch", miss, "_hint", escalated + "."},
			{"write_file", map[string]any{"path": "b.txt"}, "error", noContent + "."},
			{"read_file", map[string]any{"path": ".env"}, "error", "Access denied: {ENV} is a secret-bearing environment " +
				"file and cannot be read to prevent credential leakage. If you need to check the file structure, read .env.example instead."},
		}},
		{"every tool", nil, []step{
			{"read_file", map[string]any{"path": "archive.zip"}, "error",
				"Cannot read binary file 'archive.zip' (.zip). Use vision_analyze for images, or terminal to inspect binary files."},
			{"read_file", map[string]any{"path": "pic.png"}, "hint", readFileMsgImage},
			{"read_file", map[string]any{"path": "dir"}, "error",
				"Cannot read 'dir': it is a directory, not a regular file. Use search_files with target='files' to list its contents."},
			{"read_file", map[string]any{"path": "report.docx"}, "error", "Cannot read 'report.docx': extracting text from " +
				".docx files is not supported yet. Use the terminal to convert it to text (for example with pandoc or a short " +
				"script) and read the result."},
			{"patch", miss, "_hint", patchHintNotFoundText},
			{"patch", miss, "_hint", patchHintNotFoundText},
			{"patch", miss, "_hint", escalated + ", or (3) use write_file to replace the entire file if the targeted region is hard to anchor."},
			{"write_file", map[string]any{"path": "b.txt"}, "error", noContent + ", or use execute_code with hermes_tools.write_file() for very large files."},
			{"read_file", map[string]any{"path": ".env"}, "error", "Access denied: {ENV} is a secret-bearing environment " +
				"file and cannot be read to prevent credential leakage. If you need to check the file structure, read .env.example " +
				"instead. (Defense-in-depth — not a security boundary; the terminal tool can still bypass.)"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := newFakeEnv(t, fakeEnvOptions{Files: files, Enabled: tc.enabled})
			env.WriteFile(t, "pic.png", "\x89PNG\r\n\x1a\n0123456789")
			for i, st := range tc.steps {
				r := env.Run(t, st.tool, st.args)
				got := resultObject(t, r)
				want := strings.ReplaceAll(st.want, "{ENV}", filepath.Join(env.Root, ".env"))
				if got[st.key] != want {
					t.Errorf("step %d: %s(%v) %s = %q, want %q", i+1, st.tool, st.args, st.key, got[st.key], want)
				}
				if wantErr := st.key != "hint"; r.IsError != wantErr {
					t.Errorf("step %d: %s(%v) IsError = %v, want %v", i+1, st.tool, st.args, r.IsError, wantErr)
				}
				if tc.enabled != nil {
					// A tool's own messages may name it.
					m := slices.DeleteFunc(contractMentions(r.Encode()), func(n string) bool { return n == st.tool })
					if len(m) > 0 {
						t.Errorf("step %d: %s(%v) = %s names %v", i+1, st.tool, st.args, r.Encode(), m)
					}
				}
			}
		})
	}
}

// TestPatchNotFoundHint checks the not-found hint for each combination of
// read_file and search_files being enabled.
func TestPatchNotFoundHint(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		read, search bool
		want         string
	}{
		{true, true, patchHintNotFoundText},
		{true, false, "old_string not found. Use read_file to verify the current content."},
		{false, true, "old_string not found. Use search_files to locate the text."},
		{false, false, "old_string not found. Verify the current content of the file."},
	} {
		t.Run(fmt.Sprintf("read %v search %v", tc.read, tc.search), func(t *testing.T) {
			t.Parallel()
			env := newEditEnv(t, editEnvOptions{enabled: func(tool string) bool {
				return tool == "read_file" && tc.read || tool == "search_files" && tc.search || tool == "patch"
			}})
			editWriteTree(t, env.root, map[string]string{"a.txt": "alpha\n"})
			got := env.run(t, "patch", map[string]any{"path": "a.txt", "old_string": "zzzz qqqq", "new_string": "x"})
			want := map[string]any{"success": false, "error": "Could not find a match for old_string in the file", "_hint": tc.want}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("result mismatch (-want +got):\n%s", d)
			}
		})
	}
}

// TestWrongArgumentTypes checks that an argument of the wrong type is an
// error result naming it in hermes's words, and that nothing is done.
func TestWrongArgumentTypes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"read_file", map[string]any{"path": 3}, "read_file: 'path' must be a string, got int."},
		{"read_file", map[string]any{"path": []any{"a.txt"}}, "read_file: 'path' must be a string, got list."},
		{"search_files", map[string]any{"pattern": true}, "search_files: 'pattern' must be a string, got bool."},
		{"search_files", map[string]any{"pattern": "a", "output_mode": map[string]any{"x": 1}}, "search_files: 'output_mode' must be a string, got dict."},
		{"write_file", map[string]any{"path": 1.5, "content": "x"}, "write_file: 'path' must be a string, got float."},
		{"patch", map[string]any{"path": "a.txt", "old_string": 5, "new_string": "x"}, "patch: 'old_string' must be a string, got int."},
		{"patch", map[string]any{"path": "a.txt", "old_string": "alpha", "new_string": "x", "replace_all": "yes"},
			"patch: 'replace_all' must be a boolean, got str."},
		{"patch", map[string]any{"mode": "patch", "patch": 7}, "patch: 'patch' must be a string, got int."},
	} {
		t.Run(tc.want, func(t *testing.T) {
			t.Parallel()
			env := newEditEnv(t, editEnvOptions{})
			editWriteTree(t, env.root, map[string]string{"a.txt": "alpha\n"})
			r := env.result(t, tc.tool, tc.args)
			want, _ := json.Marshal(map[string]string{"error": tc.want})
			if r.Encode() != string(want) || !r.IsError {
				t.Errorf("%s(%v) = %s (IsError %v), want %s as an error", tc.tool, tc.args, r.Encode(), r.IsError, want)
			}
			if approvals, _ := env.recorded(); len(approvals) != 0 {
				t.Errorf("ApproveEdit called %d times, want 0", len(approvals))
			}
			if d := cmp.Diff(map[string]string{"a.txt": "alpha\n"}, editTree(t, env.root)); d != "" {
				t.Errorf("files changed (-want +got):\n%s", d)
			}
		})
	}
}

// TestDenialMessages checks what the model reads for each reason the
// approver can deny an edit, from write_file, patch replace and a V4A
// patch alike, and that nothing is written or reported.
func TestDenialMessages(t *testing.T) {
	t.Parallel()
	const notModified = " No file was modified."
	for _, tc := range []struct {
		name string
		d    workspace.Decision
		want string
	}{
		{"no change", workspace.Decision{Denial: workspace.DenyNoChange},
			"Edit approval denied: the edit changes no file; nothing was written."},
		{"rejected", workspace.Decision{Denial: workspace.DenyRejected}, editDenial},
		{"timeout", workspace.Decision{Denial: workspace.DenyTimeout, Detail: "5m0s"},
			"Edit approval denied: the user did not answer within 5m0s (approvals.timeout)." + notModified},
		{"turn cancelled", workspace.Decision{Denial: workspace.DenyTurnCancelled},
			"Edit approval denied: the user cancelled the turn before answering." + notModified},
		{"editor cancelled", workspace.Decision{Denial: workspace.DenyEditorCancelled},
			"Edit approval denied: the request was cancelled by the editor." + notModified},
		{"request failed", workspace.Decision{Denial: workspace.DenyRequestFailed, Detail: "connection closed"},
			"Edit approval denied: the permission request failed (connection closed)." + notModified},
		{"unknown option", workspace.Decision{Denial: workspace.DenyUnknownOption, Detail: "allow_forever"},
			`Edit approval denied: the editor answered with an unknown option "allow_forever".` + notModified},
		{"unknown reason", workspace.Decision{Denial: workspace.Denial(99)}, "Edit approval denied." + notModified},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := denialMessage(tc.d); got != tc.want {
				t.Errorf("denialMessage(%+v) = %q, want %q", tc.d, got, tc.want)
			}
			for _, call := range []struct {
				tool string
				args map[string]any
			}{
				{"write_file", map[string]any{"path": "a.txt", "content": "new\n"}},
				{"patch", map[string]any{"path": "a.txt", "old_string": "old", "new_string": "new"}},
				{"patch", map[string]any{"mode": "patch", "patch": "*** Update File: a.txt\n-old\n+new\n*** Add File: b.txt\n+b\n"}},
			} {
				env := newEditEnv(t, editEnvOptions{deny: true, denial: tc.d})
				editWriteTree(t, env.root, map[string]string{"a.txt": "old\n"})
				r := env.result(t, call.tool, call.args)
				want, _ := json.Marshal(map[string]string{"error": tc.want})
				if r.Encode() != string(want) || !r.IsError {
					t.Errorf("%s(%v) denied = %s (IsError %v), want %s as an error", call.tool, call.args, r.Encode(), r.IsError, want)
				}
				approvals, reports := env.recorded()
				if len(approvals) != 1 || len(reports) != 0 {
					t.Errorf("%s: %d approvals asked and %d lint reports, want 1 and 0", call.tool, len(approvals), len(reports))
				}
				if d := cmp.Diff(map[string]string{"a.txt": "old\n"}, editTree(t, env.root)); d != "" {
					t.Errorf("%s: files changed after a denial (-want +got):\n%s", call.tool, d)
				}
			}
		})
	}
}

// TestTitlesAndPreviews checks what the editor shows for a call before it
// ends: its title and the text shown while it runs.
func TestTitlesAndPreviews(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		tool           string
		args           map[string]any
		title, preview string
	}{
		{"read_file", map[string]any{"path": "src/main.go", "offset": 20}, "read: src/main.go", ""},
		{"read_file", map[string]any{}, "read_file", ""},
		{"search_files", map[string]any{"pattern": "func main"}, "search: func main", "Searching for 'func main' (content) in ."},
		{"search_files", map[string]any{"pattern": "*.go", "target": "files", "path": "src"}, "search: *.go", "Searching for '*.go' (files) in src"},
		{"search_files", map[string]any{}, "search_files", "Searching for '' (content) in ."},
		{"write_file", map[string]any{"path": "notes.txt", "content": "x"}, "write: notes.txt",
			"Preparing write_file for `notes.txt`. Approval prompt shows the diff."},
		{"write_file", map[string]any{}, "write_file", "Preparing write_file. Approval prompt shows the diff."},
		{"patch", map[string]any{"path": "a.go", "old_string": "a", "new_string": "b"}, "patch (replace): a.go",
			"Preparing patch for `a.go`. Approval prompt shows the diff."},
		{"patch", map[string]any{"mode": "patch", "patch": "*** Add File: x\n+x\n"}, "patch (patch)",
			"Preparing patch. Approval prompt shows the diff."},
		{"patch", map[string]any{"mode": "replace", "path": "b.go"}, "patch (replace): b.go",
			"Preparing patch for `b.go`. Approval prompt shows the diff."},
	} {
		e := contractEntry(t, tc.tool)
		if got := e.Title(tc.args); got != tc.title {
			t.Errorf("%s title(%v) = %q, want %q", tc.tool, tc.args, got, tc.title)
		}
		if got := e.Preview(tc.args); got != tc.preview {
			t.Errorf("%s preview(%v) = %q, want %q", tc.tool, tc.args, got, tc.preview)
		}
	}
}

// TestRenderToolResults checks the editor's text for the typed results of
// real calls: read_file's window in a fence, search_files's findings, and
// the summary of an edit that landed.
func TestRenderToolResults(t *testing.T) {
	t.Parallel()
	env := newFakeEnv(t, fakeEnvOptions{Files: map[string]string{
		"ten.txt":   readFileLines(10),
		"tick.md":   "```go\nx\n```\n",
		"empty.txt": "",
		"a.txt":     "hello a\n",
		"b/b.txt":   "x\nhello b\n",
		"c.go":      "hello\nhello\nhello\nhello\nhello\n",
	}})
	render := func(tool string, args map[string]any) string {
		t.Helper()
		r := env.Run(t, tool, args)
		if r.IsError {
			t.Fatalf("%s(%v) failed: %s", tool, args, r.Encode())
		}
		return contractEntry(t, tool).Render(args, r)
	}
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
		want       string
	}{
		{"read window", "read_file", map[string]any{"path": "ten.txt", "offset": 3, "limit": 2},
			"Read ten.txt (from line 3, limit 2) — 10 total lines\n\n```\n3|line 3\n4|line 4\n```\n\n" +
				"Use offset=5 to continue reading (showing 3-4 of 10 lines)"},
		{"read from a line", "read_file", map[string]any{"path": "ten.txt", "offset": 9},
			"Read ten.txt (from line 9) — 10 total lines\n\n```\n9|line 9\n10|line 10\n```"},
		{"read with a limit", "read_file", map[string]any{"path": "ten.txt", "limit": 1},
			"Read ten.txt (limit 1) — 10 total lines\n\n```\n1|line 1\n```\n\nUse offset=2 to continue reading (showing 1-1 of 10 lines)"},
		{"read backticks", "read_file", map[string]any{"path": "tick.md"},
			"Read tick.md — 3 total lines\n\n````\n1|```go\n2|x\n3|```\n````"},
		{"read empty", "read_file", map[string]any{"path": "empty.txt"}, "Read empty.txt — 0 total lines\n\nFile is empty (0 bytes)."},
		{"read unchanged stub", "read_file", map[string]any{"path": "empty.txt"}, ""},
		{"search matches", "search_files", map[string]any{"pattern": "hello [ab]"},
			"Found 2 matches; showing 2\n- a.txt:1 hello a\n- b/b.txt:2 hello b"},
		{"search grouped matches", "search_files", map[string]any{"pattern": "hello", "file_glob": "*.go"},
			"Found 5 matches\n\nc.go\n  1: hello\n  2: hello\n  3: hello\n  4: hello\n  5: hello"},
		{"search files", "search_files", map[string]any{"pattern": "*.txt", "target": "files", "path": "b"},
			"Found 1 files; showing 1\n- b/b.txt"},
		{"search counts", "search_files", map[string]any{"pattern": "hello", "output_mode": "count"},
			"Found 7 matches in 3 files"},
		{"search nothing", "search_files", map[string]any{"pattern": "zebra"}, "Found 0 matches"},
		{"search truncated", "search_files", map[string]any{"pattern": "hello [ab]", "limit": 1},
			"Found 2 matches; showing 1\n- a.txt:1 hello a\n\n(results truncated: refine the pattern or page with offset)"},
	} {
		if got := render(tc.tool, tc.args); got != tc.want {
			t.Errorf("%s: %s render(%v) =\n%s\nwant\n%s", tc.name, tc.tool, tc.args, got, tc.want)
		}
	}
}

// TestRenderEdits checks the editor's summary of write_file and patch
// results that landed: the file, its size, how many files a patch changed,
// new lint errors and the staleness warning.
func TestRenderEdits(t *testing.T) {
	t.Parallel()
	env := newEditEnv(t, editEnvOptions{})
	editWriteTree(t, env.root, map[string]string{"a.txt": "one\ntwo\n", "m.json": "{\"a\": 1}\n", "n.json": "{\"b\": 2}\n"})
	render := func(tool string, args map[string]any) string {
		t.Helper()
		r := env.result(t, tool, args)
		if r.IsError {
			t.Fatalf("%s(%v) failed: %s", tool, args, r.Encode())
		}
		return contractEntry(t, tool).Render(args, r)
	}
	lintOut := func(rel string) string {
		t.Helper()
		_, reports := env.recorded()
		for i := len(reports) - 1; i >= 0; i-- {
			if reports[i].path == env.abs(rel) {
				return reports[i].res.ModelLint().Output
			}
		}
		t.Fatalf("no lint report for %s", rel)
		return ""
	}

	if got, want := render("write_file", map[string]any{"path": "new.txt", "content": "new\n"}),
		"✅ write_file completed for `"+env.abs("new.txt")+"` (4 bytes)"; got != want {
		t.Errorf("write_file render = %q, want %q", got, want)
	}
	got := render("write_file", map[string]any{"path": "bad.json", "content": "{\"a\": 1,}\n"})
	if want := "✅ write_file completed for `" + env.abs("bad.json") + "` (10 bytes)\n\n⚠️ Lint: " + lintOut("bad.json"); got != want || lintOut("bad.json") == "" {
		t.Errorf("write_file with a lint error render = %q, want %q", got, want)
	}
	if got, want := render("patch", map[string]any{"path": "a.txt", "old_string": "two", "new_string": "2"}),
		"✅ patch completed for `"+env.abs("a.txt")+"`"; got != want {
		t.Errorf("patch replace render = %q, want %q", got, want)
	}
	if got, want := render("patch", map[string]any{"mode": "patch", "patch": "*** Update File: a.txt\n-one\n+1\n"}),
		"✅ patch completed for `"+env.abs("a.txt")+"`"; got != want {
		t.Errorf("patch V4A of one file render = %q, want %q", got, want)
	}
	got = render("patch", map[string]any{"mode": "patch", "patch": "*** Update File: m.json\n-{\"a\": 1}\n+{\"a\": 1,}\n*** Update File: a.txt\n-1\n+one\n"})
	if want := "✅ patch completed\nFiles: 2\n\n⚠️ Lint: m.json: " + lintOut("m.json"); got != want {
		t.Errorf("patch V4A of two files render = %q, want %q", got, want)
	}

	// A write over a file changed since it was read carries the warning.
	p := env.target(t, "n.json")
	env.State.RecordRead(p, []byte("{\"b\": 2}\n"), true)
	got = render("write_file", map[string]any{"path": "n.json", "content": "{\"b\": 3}\n"})
	if want := "✅ write_file completed for `" + env.abs("n.json") + "` (9 bytes)\n\n⚠️ " + env.abs("n.json") +
		" was last read with offset/limit pagination (partial view). Re-read the whole file before overwriting it."; got != want {
		t.Errorf("write_file with a warning render = %q, want %q", got, want)
	}
}

// TestRenderTypedValues checks the render functions on typed values alone:
// what no real call here produces (more rows than shown, long lines), and
// that a value of another type has no special form.
func TestRenderTypedValues(t *testing.T) {
	t.Parallel()
	var matches []searchMatchOut
	for i := range 13 {
		matches = append(matches, searchMatchOut{Path: "f.go", Line: i + 1, Content: "  " + strings.Repeat("é", 170) + "  "})
	}
	clipped := strings.Repeat("é", 160) + "..."
	var wantMatches strings.Builder
	wantMatches.WriteString("Found 40 matches; showing 12")
	for i := range 12 {
		fmt.Fprintf(&wantMatches, "\n- f.go:%d %s", i+1, clipped)
	}
	files := make([]string, 25)
	for i := range files {
		files[i] = fmt.Sprintf("f%02d.go", i)
	}
	wantFiles := "Found 25 files; showing 20"
	for _, f := range files[:20] {
		wantFiles += "\n- " + f
	}
	for _, tc := range []struct {
		name   string
		render func(map[string]any, registry.Result) string
		args   map[string]any
		value  any
		want   string
	}{
		{"search rows clipped", searchFilesRender, nil, &searchResult{TotalCount: 40, Matches: matches}, wantMatches.String()},
		{"search files shown", searchFilesRender, nil, &searchResult{TotalCount: 25, Files: files}, wantFiles},
		{"search grouped text clipped", searchFilesRender, nil, &searchResult{TotalCount: 9, MatchesText: strings.Repeat("x", 3005)},
			"Found 9 matches\n\n" + strings.Repeat("x", 3000) + "..."},
		{"search nil", searchFilesRender, nil, (*searchResult)(nil), ""},
		{"search other value", searchFilesRender, nil, map[string]any{"total_count": 1}, ""},
		{"read other value", readFileRender, map[string]any{"path": "a"}, map[string]any{"content": "1|a"}, ""},
		{"read window", readFileRender, map[string]any{"path": "a.go", "offset": "3", "limit": 5000},
			readFileResult{Content: "3|x", TotalLines: 3}, "Read a.go (from line 3, limit 2000) — 3 total lines\n\n```\n3|x\n```"},
		{"edit other value", editRender("patch"), nil, patchFailureResult{Error: "x"}, ""},
	} {
		if got := tc.render(tc.args, registry.OK(tc.value)); got != tc.want {
			t.Errorf("%s: render =\n%q\nwant\n%q", tc.name, got, tc.want)
		}
	}
}

// TestEditToolsResultIsErrorFollowsSuccess checks IsError on results whose
// success is a field of their own shape: a V4A patch that failed in its
// apply phase is a failure, a patch that succeeded is not.
func TestEditToolsResultIsErrorFollowsSuccess(t *testing.T) {
	t.Parallel()
	env := newEditEnv(t, editEnvOptions{})
	editWriteTree(t, env.root, map[string]string{"a.txt": "a\n"})
	env.onApprove = func([]workspace.Change) {
		if err := os.WriteFile(env.abs("a.txt"), []byte("meanwhile\n"), 0o644); err != nil {
			t.Error(err)
		}
	}
	r := env.result(t, "patch", map[string]any{"mode": "patch", "patch": "*** Update File: a.txt\n-a\n+A\n"})
	if !r.IsError || resultObject(t, r)["success"] != false {
		t.Errorf("apply-phase failure = %s (IsError %v), want a failure", r.Encode(), r.IsError)
	}
	env.onApprove = nil
	r = env.result(t, "patch", map[string]any{"mode": "patch", "patch": "*** Update File: a.txt\n-meanwhile\n+A\n"})
	if r.IsError || resultObject(t, r)["success"] != true {
		t.Errorf("patch = %s (IsError %v), want a success", r.Encode(), r.IsError)
	}
}

// TestHandlerErrorsStayGoErrors checks that a cancelled call is a Go error
// (the pipeline reports it as cancelled), not a result the model reads.
func TestHandlerErrorsStayGoErrors(t *testing.T) {
	t.Parallel()
	env := newEditEnv(t, editEnvOptions{})
	editWriteTree(t, env.root, map[string]string{"a.txt": "old\n"})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for _, tool := range []string{"write_file", "patch"} {
		args := map[string]any{"path": "a.txt", "content": "new\n", "old_string": "old", "new_string": "new"}
		if tool == "write_file" {
			delete(args, "old_string")
			delete(args, "new_string")
		}
		if r, err := runBuiltin(ctx, env.session, "c", tool, args); err == nil {
			t.Errorf("%s with a cancelled context = %s, want a Go error", tool, r.Encode())
		}
	}
	if got := editTree(t, env.root); got["a.txt"] != "old\n" {
		t.Errorf("a.txt = %q after cancelled calls, want it unchanged", got["a.txt"])
	}
}
