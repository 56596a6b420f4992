package tools

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/skills"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// skillEnv is a fake session with a skills library: the user's skills in
// <home>/.hermes/skills, the project's in <root>/.hermes/skills.
type skillEnv struct {
	*fakeEnv
	user, project string
}

func newSkillEnv(t *testing.T, o fakeEnvOptions) *skillEnv {
	t.Helper()
	e := newFakeEnv(t, o)
	s := &skillEnv{fakeEnv: e, user: filepath.Join(e.Home, ".hermes", "skills"), project: filepath.Join(e.Root, ".hermes", "skills")}
	e.session.Skills = skills.New(skills.Options{UserDir: s.user, ProjectDirs: []string{s.project},
		Workspace: workspace.Options{Home: e.Home, HermesHome: filepath.Join(e.Home, ".hermes")}})
	return s
}

func (s *skillEnv) put(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		fakeWriteFile(t, filepath.Join(dir, filepath.FromSlash(rel)), content)
	}
}

// tree returns every file below dir with its content ("" when dir is
// missing).
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			out[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return out
}

func skillDoc(name, desc, body string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\n\n" + body
}

func rejectAll(string, []workspace.Change) workspace.Decision {
	return workspace.Decision{Denial: workspace.DenyRejected}
}

func TestSkillsListEmptyAndFiltered(t *testing.T) {
	e := newSkillEnv(t, fakeEnvOptions{})
	r := e.Run(t, "skills_list", nil)
	if got := resultObject(t, r); got["message"] != "No skills found in skills/ directory." || got["success"] != true || r.IsError {
		t.Errorf("empty skills_list = %s", r.Encode())
	}
	e.put(t, e.user, map[string]string{
		"research/arxiv/SKILL.md": skillDoc("arxiv", "Search papers", "Steps.\n"),
		"tdd/SKILL.md":            skillDoc("tdd", "Test first", "Steps.\n"),
		"shared/SKILL.md":         skillDoc("shared", "user copy", "x\n"),
	})
	e.put(t, e.project, map[string]string{"shared/SKILL.md": skillDoc("shared", "project copy", "x\n")})
	r = e.Run(t, "skills_list", nil)
	want := `{"success":true,"skills":[{"name":"shared","description":"project copy","category":null},` +
		`{"name":"tdd","description":"Test first","category":null},{"name":"arxiv","description":"Search papers","category":"research"}],` +
		`"categories":["research"],"count":3,"hint":"Use skill_view(name) to see full content, tags, and linked files"}`
	if got := r.Encode(); got != want {
		t.Errorf("skills_list =\n%s\nwant\n%s", got, want)
	}
	r = e.Run(t, "skills_list", map[string]any{"category": "research"})
	if got := resultObject(t, r); got["count"] != float64(1) {
		t.Errorf("skills_list(research) = %s", r.Encode())
	}
	if !strings.Contains(skillsListRender(nil, r), "**arxiv** (research): Search papers") {
		t.Errorf("render = %q", skillsListRender(nil, r))
	}
	// Without skill_view the hint is left out.
	e.session.Deps.Enabled = func(n string) bool { return n != "skill_view" }
	if strings.Contains(e.Run(t, "skills_list", nil).Encode(), "skill_view") {
		t.Error("skills_list names skill_view when it is not enabled")
	}
}

func TestSkillViewProgressiveDisclosure(t *testing.T) {
	e := newSkillEnv(t, fakeEnvOptions{})
	body := "# GitHub pitfalls\n\n## Rate limits\nSleep.\n\n```sh\n# not a heading\n```\n## Auth\nUse a token.\n"
	e.put(t, e.user, map[string]string{
		"devops/github-pitfalls/SKILL.md":           "---\nname: github-pitfalls\ndescription: Avoid API traps\ntags: [github, api]\nmetadata:\n  hermes:\n    related_skills: [gh-cli]\n---\n" + body,
		"devops/github-pitfalls/references/api.md":  "# API\nGET /repos\n",
		"devops/github-pitfalls/assets/logo.png":    "\x89PNG\x00\x01",
		"devops/github-pitfalls/scripts/check.sh":   "echo ok\n",
		"devops/github-pitfalls/templates/issue.md": "Title:\n",
	})
	r := e.Run(t, "skill_view", map[string]any{"name": "github-pitfalls"})
	got := resultObject(t, r)
	if got["content"] != "---\nname: github-pitfalls\ndescription: Avoid API traps\ntags: [github, api]\nmetadata:\n  hermes:\n    related_skills: [gh-cli]\n---\n"+body {
		t.Errorf("content = %q", got["content"])
	}
	if d := cmp.Diff(map[string]any{
		"references": []any{"references/api.md"}, "templates": []any{"templates/issue.md"},
		"assets": []any{"assets/logo.png"}, "scripts": []any{"scripts/check.sh"},
	}, got["linked_files"]); d != "" {
		t.Errorf("linked_files (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]any{"github", "api"}, got["tags"]); d != "" {
		t.Errorf("tags: %s", d)
	}
	if d := cmp.Diff([]any{"gh-cli"}, got["related_skills"]); d != "" {
		t.Errorf("related_skills: %s", d)
	}
	if got["path"] != "devops/github-pitfalls/SKILL.md" || got["source"] != "user" || got["description"] != "Avoid API traps" {
		t.Errorf("skill_view = %s", r.Encode())
	}
	// hermes §9: the completion never echoes the body, only headings.
	rendered := skillViewRender(nil, r)
	if strings.Contains(rendered, "Sleep.") || strings.Contains(rendered, "Use a token.") || strings.Contains(rendered, "not a heading") {
		t.Errorf("skill_view render echoes the body:\n%s", rendered)
	}
	for _, want := range []string{"Loaded skill **github-pitfalls**: Avoid API traps", "- Rate limits", "- Auth", "references: references/api.md"} {
		if !strings.Contains(rendered, want) {
			t.Errorf("render lacks %q:\n%s", want, rendered)
		}
	}

	r = e.Run(t, "skill_view", map[string]any{"name": "github-pitfalls", "file_path": "references/api.md"})
	if want := `{"success":true,"name":"github-pitfalls","file":"references/api.md","content":"# API\nGET /repos\n","file_type":".md"}`; r.Encode() != want {
		t.Errorf("file view = %s", r.Encode())
	}
	if rendered := skillViewRender(nil, r); strings.Contains(rendered, "GET /repos") {
		t.Errorf("file view render echoes the file: %q", rendered)
	}
	r = e.Run(t, "skill_view", map[string]any{"name": "github-pitfalls", "file_path": "assets/logo.png"})
	if got := resultObject(t, r); got["is_binary"] != true || got["content"] != "[Binary file: logo.png, size: 6 bytes]" {
		t.Errorf("binary view = %s", r.Encode())
	}
	r = e.Run(t, "skill_view", map[string]any{"name": "github-pitfalls", "file_path": "references/missing.md"})
	if got := resultObject(t, r); got["error"] != "File 'references/missing.md' not found in skill 'github-pitfalls'." || got["available_files"] == nil || !r.IsError {
		t.Errorf("missing file view = %s", r.Encode())
	}
	// By category path too.
	if r := e.Run(t, "skill_view", map[string]any{"name": "devops/github-pitfalls"}); r.IsError {
		t.Errorf("view by path = %s", r.Encode())
	}
}

func TestSkillViewRefusesEscapes(t *testing.T) {
	e := newSkillEnv(t, fakeEnvOptions{})
	e.put(t, e.user, map[string]string{"demo/SKILL.md": skillDoc("demo", "d", "x\n")})
	secret := filepath.Join(e.Home, "secret.txt")
	fakeWriteFile(t, secret, "top secret")
	if err := os.Symlink(secret, filepath.Join(e.user, "demo", "references")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"name": "../../secret"}, "Skill name cannot contain '..' path traversal components."},
		{map[string]any{"name": "/etc/passwd"}, "Skill name must be a relative path within the skills directory."},
		{map[string]any{"name": "demo", "file_path": "../../../secret.txt"}, "Path traversal ('..') is not allowed."},
		{map[string]any{"name": "demo", "file_path": "/etc/passwd"}, "Path '/etc/passwd' is outside the skill directory."},
		{map[string]any{"name": "nope"}, "Skill 'nope' not found."},
	} {
		r := e.Run(t, "skill_view", tc.args)
		if got := resultObject(t, r); got["error"] != tc.want || got["success"] != false {
			t.Errorf("skill_view(%v) = %s, want error %q", tc.args, r.Encode(), tc.want)
		}
	}
	// A symbolic link to outside the skills folder is not followed.
	r := e.Run(t, "skill_view", map[string]any{"name": "demo", "file_path": "references"})
	if strings.Contains(r.Encode(), "top secret") || !r.IsError {
		t.Errorf("skill_view through a symlink = %s", r.Encode())
	}
}

func TestSkillManageCreateApprovedAndRejected(t *testing.T) {
	content := skillDoc("deploy-checklist", "How we deploy", "1. Run tests.\n")
	t.Run("approved", func(t *testing.T) {
		e := newSkillEnv(t, fakeEnvOptions{})
		r := e.Run(t, "skill_manage", map[string]any{"action": "create", "name": "deploy-checklist", "category": "devops", "content": content})
		got := resultObject(t, r)
		if got["success"] != true || got["message"] != "Skill 'deploy-checklist' created." || got["path"] != "devops/deploy-checklist" ||
			got["category"] != "devops" || got["skill_md"] != filepath.Join(e.user, "devops", "deploy-checklist", "SKILL.md") {
			t.Errorf("create = %s", r.Encode())
		}
		if d := cmp.Diff(map[string]string{"devops/deploy-checklist/SKILL.md": content}, tree(t, e.user)); d != "" {
			t.Errorf("skills folder (-want +got):\n%s", d)
		}
		a := e.Approvals()
		if len(a) != 1 || len(a[0].Changes) != 1 {
			t.Fatalf("approvals = %+v", a)
		}
		c := a[0].Changes[0]
		if c.Kind != workspace.ChangeCreate || c.Old != nil || c.New != content || c.Path.Abs() != filepath.Join(e.user, "devops", "deploy-checklist", "SKILL.md") {
			t.Errorf("proposed change = %+v", c)
		}
		if e.Workspace.InRoots(c.Path) {
			t.Error("a user skill's path is reported inside the workspace")
		}
		if !strings.HasPrefix(skillManageRender(nil, r), "✅ Skill 'deploy-checklist' created.") {
			t.Errorf("render = %q", skillManageRender(nil, r))
		}
		// A second create of the same name is refused.
		r = e.Run(t, "skill_manage", map[string]any{"action": "create", "name": "deploy-checklist", "content": content})
		if got := resultObject(t, r); !strings.HasPrefix(got["error"].(string), "A skill named 'deploy-checklist' already exists at ") {
			t.Errorf("second create = %s", r.Encode())
		}
	})
	t.Run("rejected", func(t *testing.T) {
		e := newSkillEnv(t, fakeEnvOptions{Approve: rejectAll})
		r := e.Run(t, "skill_manage", map[string]any{"action": "create", "name": "deploy-checklist", "content": content})
		if got := resultObject(t, r); got["success"] != false || got["error"] != editDenialText {
			t.Errorf("rejected create = %s", r.Encode())
		}
		if files := tree(t, e.user); len(files) != 0 {
			t.Errorf("a rejected create left %v", files)
		}
		if _, err := os.Stat(filepath.Join(e.user, "deploy-checklist")); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("a rejected create left the skill folder: %v", err)
		}
	})
}

// editDenialText is what the model reads when the user rejects an edit.
const editDenialText = "Edit approval denied: the user rejected this edit. No file was modified. Do not retry the same edit; ask the user what they want instead."

func TestSkillManageValidation(t *testing.T) {
	e := newSkillEnv(t, fakeEnvOptions{})
	e.put(t, e.user, map[string]string{"demo/SKILL.md": skillDoc("demo", "d", "Step one.\n")})
	good := skillDoc("x", "d", "body\n")
	big := skillDoc("x", "d", strings.Repeat("a", skills.MaxContentChars))
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"action": "create", "name": "x"}, "content is required for 'create'. Provide the full SKILL.md text (frontmatter + body)."},
		{map[string]any{"action": "edit", "name": "demo"}, "content is required for 'edit'. Provide the full updated SKILL.md text."},
		{map[string]any{"action": "patch", "name": "demo", "new_string": "x"}, "old_string is required for 'patch'. Provide the text to find."},
		{map[string]any{"action": "patch", "name": "demo", "old_string": "x"}, "new_string is required for 'patch'. Use empty string to delete matched text."},
		{map[string]any{"action": "write_file", "name": "demo", "file_content": "x"}, "file_path is required for 'write_file'. Example: 'references/api-guide.md'"},
		{map[string]any{"action": "write_file", "name": "demo", "file_path": "references/a.md"}, "file_content is required for 'write_file'."},
		{map[string]any{"action": "remove_file", "name": "demo"}, "file_path is required for 'remove_file'."},
		{map[string]any{"action": "rename", "name": "demo"}, "Unknown action 'rename'. Use: create, edit, patch, delete, write_file, remove_file"},
		{map[string]any{"action": "create", "name": "Bad Name", "content": good}, "Invalid skill name 'Bad Name'. Use lowercase letters, numbers, hyphens, dots, and underscores. Must start with a letter or digit."},
		{map[string]any{"action": "create", "name": "../escape", "content": good}, "Invalid skill name '../escape'. Use lowercase letters, numbers, hyphens, dots, and underscores. Must start with a letter or digit."},
		{map[string]any{"action": "create", "name": "x", "category": "../up", "content": good}, "Invalid category '../up'. Use lowercase letters, numbers, hyphens, dots, and underscores. Categories must be a single directory name."},
		{map[string]any{"action": "create", "name": "x", "content": "no front matter"}, "SKILL.md must start with YAML frontmatter (---). See existing skills for format."},
		{map[string]any{"action": "create", "name": "x", "content": big}, "SKILL.md content is 100,032 characters (limit: 100,000). Consider splitting into a smaller SKILL.md with supporting files in references/ or templates/."},
		{map[string]any{"action": "write_file", "name": "demo", "file_path": "../../outside.md", "file_content": "x"}, "Path traversal ('..') is not allowed."},
		{map[string]any{"action": "write_file", "name": "demo", "file_path": "/tmp/abs.md", "file_content": "x"}, "File must be under one of: assets, references, scripts, templates. Got: '/tmp/abs.md'"},
		{map[string]any{"action": "write_file", "name": "demo", "file_path": "notes.md", "file_content": "x"}, "File must be under one of: assets, references, scripts, templates. Got: 'notes.md'"},
		{map[string]any{"action": "write_file", "name": "demo", "file_path": "assets/big.bin", "file_content": strings.Repeat("x", skills.MaxFileBytes+1)}, "File content is 1,048,577 bytes (limit: 1,048,576 bytes / 1 MiB). Consider splitting into smaller files."},
		{map[string]any{"action": "write_file", "name": "ghost", "file_path": "references/a.md", "file_content": "x"}, "Skill 'ghost' not found. Use skills_list() to see available skills. Create it first with action='create'."},
		{map[string]any{"action": "patch", "name": "demo", "old_string": "Step one.", "new_string": "Step one.\n---\n"}, ""},
		{map[string]any{"action": "patch", "name": "demo", "old_string": "name: demo\n", "new_string": ""}, "Patch would break SKILL.md structure: Frontmatter must include 'name' field."},
		{map[string]any{"action": "remove_file", "name": "demo", "file_path": "references/none.md"}, "File 'references/none.md' not found in skill 'demo'."},
		{map[string]any{"action": "remove_file", "name": "demo", "file_path": "SKILL.md"}, "SKILL.md cannot be removed: it is the skill. Use action='delete' to remove the whole skill."},
		{map[string]any{"action": "delete", "name": "demo", "absorbed_into": "demo"}, "absorbed_into='demo' cannot equal the skill being deleted."},
		{map[string]any{"action": "delete", "name": "demo", "absorbed_into": "umbrella"}, "absorbed_into='umbrella' does not exist. Create or patch the umbrella skill first, then retry the delete."},
		{map[string]any{"action": "edit", "name": "", "content": good}, "Skill name is required."},
	} {
		before := tree(t, e.user)
		r := e.Run(t, "skill_manage", tc.args)
		got := resultObject(t, r)
		if tc.want == "" {
			if r.IsError {
				t.Errorf("skill_manage(%v) = %s, want success", tc.args, r.Encode())
			}
			continue
		}
		if got["error"] != tc.want || got["success"] != false {
			t.Errorf("skill_manage(%.120v)\n got %s\nwant error %q", tc.args, r.Encode(), tc.want)
		}
		if d := cmp.Diff(before, tree(t, e.user)); d != "" {
			t.Errorf("skill_manage(%.80v) failed but changed the skills (-before +after):\n%s", tc.args, d)
		}
	}
	if n := len(e.Approvals()); n != 1 {
		t.Errorf("%d approvals asked; only the valid patch should ask", n)
	}
}

func TestSkillManageEditPatchFilesDelete(t *testing.T) {
	e := newSkillEnv(t, fakeEnvOptions{})
	orig := skillDoc("demo", "d", "Step one.\nStep two.\n")
	e.put(t, e.project, map[string]string{"demo/SKILL.md": orig})

	// patch (fuzzy, through the project skill)
	r := e.Run(t, "skill_manage", map[string]any{"action": "patch", "name": "demo", "old_string": "Step two.", "new_string": "Step 2."})
	if got := resultObject(t, r); got["message"] != "Patched SKILL.md in skill 'demo' (1 replacement)." {
		t.Errorf("patch = %s", r.Encode())
	}
	patched := skillDoc("demo", "d", "Step one.\nStep 2.\n")
	if got := tree(t, e.project)["demo/SKILL.md"]; got != patched {
		t.Errorf("SKILL.md after patch = %q", got)
	}
	c := e.Approvals()[0].Changes[0]
	if c.Kind != workspace.ChangeEdit || *c.Old != orig || c.New != patched {
		t.Errorf("patch proposal = %+v", c)
	}
	r = e.Run(t, "skill_manage", map[string]any{"action": "patch", "name": "demo", "old_string": "nowhere to be found", "new_string": "x"})
	if got := resultObject(t, r); !strings.HasPrefix(got["error"].(string), "Could not find a match for old_string") || got["file_preview"] != patched {
		t.Errorf("patch miss = %s", r.Encode())
	}

	// write_file, then patch it, then remove it
	r = e.Run(t, "skill_manage", map[string]any{"action": "write_file", "name": "demo", "file_path": "references/api.md", "file_content": "GET /a\n"})
	if got := resultObject(t, r); got["message"] != "File 'references/api.md' written to skill 'demo'." {
		t.Errorf("write_file = %s", r.Encode())
	}
	r = e.Run(t, "skill_manage", map[string]any{"action": "patch", "name": "demo", "file_path": "references/api.md", "old_string": "GET /a", "new_string": "GET /b"})
	if got := resultObject(t, r); got["message"] != "Patched references/api.md in skill 'demo' (1 replacement)." {
		t.Errorf("patch file = %s", r.Encode())
	}
	if d := cmp.Diff(map[string]string{"demo/SKILL.md": patched, "demo/references/api.md": "GET /b\n"}, tree(t, e.project)); d != "" {
		t.Errorf("project skills (-want +got):\n%s", d)
	}
	r = e.Run(t, "skill_manage", map[string]any{"action": "remove_file", "name": "demo", "file_path": "references/api.md"})
	if got := resultObject(t, r); got["message"] != "File 'references/api.md' removed from skill 'demo'." {
		t.Errorf("remove_file = %s", r.Encode())
	}
	if _, err := os.Stat(filepath.Join(e.project, "demo", "references")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("empty references/ kept: %v", err)
	}

	// edit rejected, then approved
	e.approve = rejectAll
	edited := skillDoc("demo", "new", "Rewritten.\n")
	r = e.Run(t, "skill_manage", map[string]any{"action": "edit", "name": "demo", "content": edited})
	if got := resultObject(t, r); got["error"] != editDenialText {
		t.Errorf("rejected edit = %s", r.Encode())
	}
	if got := tree(t, e.project)["demo/SKILL.md"]; got != patched {
		t.Errorf("a rejected edit changed SKILL.md to %q", got)
	}
	e.approve = nil
	r = e.Run(t, "skill_manage", map[string]any{"action": "edit", "name": "demo", "content": edited})
	if got := resultObject(t, r); got["message"] != "Skill 'demo' updated (full rewrite)." {
		t.Errorf("edit = %s", r.Encode())
	}

	// delete rejected, then approved: every file is shown as a deletion
	e.put(t, e.project, map[string]string{"demo/scripts/run.sh": "echo\n"})
	e.approve = rejectAll
	r = e.Run(t, "skill_manage", map[string]any{"action": "delete", "name": "demo"})
	if !r.IsError || len(tree(t, e.project)) != 2 {
		t.Errorf("rejected delete = %s, files %v", r.Encode(), tree(t, e.project))
	}
	a := e.Approvals()
	last := a[len(a)-1].Changes
	if len(last) != 2 || last[0].Kind != workspace.ChangeDelete || *last[0].Old != edited || last[1].Path.Abs() != filepath.Join(e.project, "demo", "scripts", "run.sh") {
		t.Errorf("delete proposal = %+v", last)
	}
	e.approve = nil
	r = e.Run(t, "skill_manage", map[string]any{"action": "delete", "name": "demo"})
	if got := resultObject(t, r); got["message"] != "Skill 'demo' deleted." {
		t.Errorf("delete = %s", r.Encode())
	}
	if files := tree(t, e.project); len(files) != 0 {
		t.Errorf("delete left %v", files)
	}
}

func TestSkillManageWritesStayInSkillsFolder(t *testing.T) {
	e := newSkillEnv(t, fakeEnvOptions{})
	e.put(t, e.user, map[string]string{"demo/SKILL.md": skillDoc("demo", "d", "x\n")})
	outside := t.TempDir()
	// A supporting folder that is a symbolic link to outside the skills
	// folder cannot be written through.
	if err := os.Symlink(outside, filepath.Join(e.user, "demo", "references")); err != nil {
		t.Fatal(err)
	}
	r := e.Run(t, "skill_manage", map[string]any{"action": "write_file", "name": "demo", "file_path": "references/x.md", "file_content": "escape"})
	if !r.IsError {
		t.Errorf("write through a symlink = %s", r.Encode())
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("a file was written outside the skills folder: %v", entries)
	}
}

// TestSkillToolTitles ports hermes's §9 title cases for the skill tools.
func TestSkillToolTitles(t *testing.T) {
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"skill_view", map[string]any{"name": "github-pitfalls", "file_path": "references/api.md"}, "skill view (github-pitfalls/references/api.md)"},
		{"skill_view", map[string]any{"name": "github-pitfalls"}, "skill view (github-pitfalls)"},
		{"skills_list", map[string]any{}, "skills list"},
		{"skills_list", map[string]any{"category": "devops"}, "skills list (devops)"},
		{"skill_manage", map[string]any{"action": "create", "name": "deploy"}, "skill create: deploy"},
		{"skill_manage", map[string]any{"action": "write_file", "name": "deploy", "file_path": "references/a.md"}, "skill write_file: deploy/references/a.md"},
	} {
		e := contractEntry(t, tc.tool)
		if got := e.Title(tc.args); got != tc.want {
			t.Errorf("%s title(%v) = %q, want %q", tc.tool, tc.args, got, tc.want)
		}
	}
	for name, kind := range map[string]registry.Kind{"skill_view": registry.KindRead, "skills_list": registry.KindRead, "skill_manage": registry.KindEdit} {
		if k := contractEntry(t, name).Kind; k != kind {
			t.Errorf("%s kind = %s, want %s", name, k, kind)
		}
	}
	if p := contractEntry(t, "skill_manage").Preview(map[string]any{"action": "create", "name": "deploy"}); !strings.Contains(p, "Approval prompt shows the diff") {
		t.Errorf("skill_manage preview = %q", p)
	}
}

// TestSkillManageHermesCases ports the rest of hermes's
// tests/tools/test_skill_manager_tool.py: absorbed_into on delete,
// ambiguous and replace_all patches, and writes, patches and removals
// through symbolic links that escape the skill (refused, "escapes").
func TestSkillManageHermesCases(t *testing.T) {
	e := newSkillEnv(t, fakeEnvOptions{})
	doc := skillDoc("s", "A test skill.", "# Test\n\nword word\n")
	for _, n := range []string{"umbrella", "narrow", "stale-skill", "repeat"} {
		e.put(t, e.user, map[string]string{n + "/SKILL.md": strings.Replace(doc, "name: s", "name: "+n, 1)})
	}
	run := func(args map[string]any) map[string]any {
		t.Helper()
		return resultObject(t, e.Run(t, "skill_manage", args))
	}
	if got := run(map[string]any{"action": "delete", "name": "narrow", "absorbed_into": "umbrella"}); got["message"] != "Skill 'narrow' deleted. Content absorbed into 'umbrella'." {
		t.Errorf("delete absorbed = %v", got)
	}
	if got := run(map[string]any{"action": "delete", "name": "stale-skill", "absorbed_into": "   "}); got["message"] != "Skill 'stale-skill' deleted." {
		t.Errorf("delete pruned = %v", got)
	}
	if got := run(map[string]any{"action": "patch", "name": "repeat", "old_string": "word", "new_string": "replaced"}); got["success"] != false || !strings.Contains(strings.ToLower(got["error"].(string)), "match") {
		t.Errorf("ambiguous patch = %v", got)
	}
	if got := run(map[string]any{"action": "patch", "name": "repeat", "old_string": "word", "new_string": "replaced", "replace_all": true}); got["message"] != "Patched SKILL.md in skill 'repeat' (2 replacements)." {
		t.Errorf("replace_all patch = %v", got)
	}

	outside := t.TempDir()
	fakeWriteFile(t, filepath.Join(outside, "keep.txt"), "old text here")
	refs := filepath.Join(e.user, "umbrella", "references")
	if err := os.MkdirAll(refs, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(refs, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "keep.txt"), filepath.Join(refs, "evil.md")); err != nil {
		t.Fatal(err)
	}
	for _, args := range []map[string]any{
		{"action": "write_file", "name": "umbrella", "file_path": "references/escape/owned.md", "file_content": "malicious"},
		{"action": "remove_file", "name": "umbrella", "file_path": "references/escape/keep.txt"},
		{"action": "patch", "name": "umbrella", "file_path": "references/evil.md", "old_string": "old text", "new_string": "new text"},
	} {
		got := run(args)
		if got["success"] != false || !strings.Contains(strings.ToLower(fmt.Sprint(got["error"])), "escapes") {
			t.Errorf("skill_manage(%v) = %v, want a refusal saying the path escapes", args, got)
		}
	}
	if b, err := os.ReadFile(filepath.Join(outside, "keep.txt")); err != nil || string(b) != "old text here" {
		t.Errorf("the file outside was changed: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(outside, "owned.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file was written outside: %v", err)
	}
}
