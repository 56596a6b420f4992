package skills

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/internal/atomicfile"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// writeSkill writes files below dir (slash paths) for a test.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func skillMD(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\n\n# " + name + "\n\nStep 1.\n"
}

func newTestLibrary(t *testing.T) (*Library, string, string) {
	t.Helper()
	home := t.TempDir()
	user := filepath.Join(home, ".hermes", "skills")
	project := filepath.Join(t.TempDir(), ".hermes", "skills")
	l := New(Options{UserDir: user, ProjectDirs: []string{project},
		Workspace: workspace.Options{Home: home, HermesHome: filepath.Join(home, ".hermes")}})
	return l, user, project
}

func TestParse(t *testing.T) {
	cases := []struct {
		name, in       string
		wantName, body string
		wantErr        string
	}{
		{"plain", "---\nname: a\ndescription: d\n---\nbody\n", "a", "body\n", ""},
		{"bom", "\ufeff---\nname: a\n---\nbody", "a", "body", ""},
		{"no front matter", "# Title\ntext", "", "# Title\ntext", ""},
		{"not closed", "---\nname: a\nbody", "", "---\nname: a\nbody", "front matter is not closed"},
		{"bad yaml", "---\nname: a\ndescription: [unclosed\n---\nbody", "a", "body", "not valid YAML"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := Parse(c.in)
			if c.wantErr == "" && err != nil || c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)) {
				t.Fatalf("Parse error = %v, want %q", err, c.wantErr)
			}
			if got := d.String("name"); got != c.wantName {
				t.Errorf("name = %q, want %q", got, c.wantName)
			}
			if d.Body != c.body {
				t.Errorf("body = %q, want %q", d.Body, c.body)
			}
		})
	}
}

// TestValidate ports hermes's _validate_frontmatter cases.
func TestValidate(t *testing.T) {
	cases := []struct{ in, want string }{
		{skillMD("a", "d"), ""},
		{"\ufeff" + skillMD("a", "d"), ""},
		{"   \n", "Content cannot be empty."},
		{"# no front matter\n", "SKILL.md must start with YAML frontmatter (---). See existing skills for format."},
		{"---\nname: a\ndescription: d\n", "SKILL.md frontmatter is not closed. Ensure you have a closing '---' line."},
		{"---\nname: [a\n---\nbody\n", "YAML frontmatter parse error: "},
		{"---\n- a\n- b\n---\nbody\n", "Frontmatter must be a YAML mapping (key: value pairs)."},
		{"---\ndescription: d\n---\nbody\n", "Frontmatter must include 'name' field."},
		{"---\nname: a\n---\nbody\n", "Frontmatter must include 'description' field."},
		{"---\nname: a\ndescription: " + strings.Repeat("x", 1025) + "\n---\nbody\n", "Description exceeds 1024 characters."},
		{"---\nname: a\ndescription: d\n---\n  \n", "SKILL.md must have content after the frontmatter (instructions, procedures, etc.)."},
	}
	for _, c := range cases {
		got := Validate(c.in)
		if c.want == "" && got != "" || c.want != "" && !strings.HasPrefix(got, c.want) {
			t.Errorf("Validate(%.40q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestValidateNameCategoryPath(t *testing.T) {
	for _, n := range []string{"ok", "a.b-c_d", "9lives"} {
		if msg := ValidateName(n); msg != "" {
			t.Errorf("ValidateName(%q) = %q", n, msg)
		}
	}
	for _, n := range []string{"", "Upper", "-dash", "a/b", "../x", strings.Repeat("a", 65), "a b"} {
		if msg := ValidateName(n); msg == "" {
			t.Errorf("ValidateName(%q) accepted", n)
		}
	}
	if msg := ValidateCategory("dev/ops"); !strings.Contains(msg, "single directory name") {
		t.Errorf("ValidateCategory(dev/ops) = %q", msg)
	}
	paths := map[string]string{
		"references/api.md":       "",
		"SKILL.md":                "",
		"my-skill/SKILL.md":       "",
		"assets/img/logo.png":     "",
		"../escape.md":            "Path traversal ('..') is not allowed.",
		"references/../../x":      "Path traversal ('..') is not allowed.",
		"/etc/passwd":             "File must be under one of: assets, references, scripts, templates. Got: '/etc/passwd'",
		"notes.md":                "File must be under one of: assets, references, scripts, templates. Got: 'notes.md'",
		"references":              "Provide a file path, not just a directory. Example: 'references/myfile.md'",
		"a/b/SKILL.md":            "File must be under one of: assets, references, scripts, templates. Got: 'a/b/SKILL.md'",
		`references\..\..\x.md`:   "Path traversal ('..') is not allowed.",
		"C:/Windows/win.ini":      "File must be under one of: assets, references, scripts, templates. Got: 'C:/Windows/win.ini'",
		"":                        "file_path is required.",
		"scripts/./run.sh":        "",
		"templates/config.yaml":   "",
		"references/deep/more.md": "",
	}
	for p, want := range paths {
		if got := ValidateFilePath(p); got != want {
			t.Errorf("ValidateFilePath(%q) = %q, want %q", p, got, want)
		}
	}
	if got := CleanFilePath("my-skill/SKILL.md"); got != "SKILL.md" {
		t.Errorf("CleanFilePath = %q", got)
	}
	if got := CleanFilePath("scripts/./run.sh"); got != "scripts/run.sh" {
		t.Errorf("CleanFilePath = %q", got)
	}
}

func TestListCategoriesPrecedenceAndProblems(t *testing.T) {
	l, user, project := newTestLibrary(t)
	writeFiles(t, user, map[string]string{
		"alpha/SKILL.md":                      skillMD("alpha", "user alpha"),
		"devops/deploy/SKILL.md":              skillMD("deploy", "ship it"),
		"devops/deploy/references/SKILL.md":   skillMD("support", "not a skill"),
		"shared/SKILL.md":                     skillMD("shared", "the user's copy"),
		"nodesc/SKILL.md":                     "---\nname: nodesc\n---\n# Heading\n\nFirst real line.\n",
		"broken/SKILL.md":                     "---\nname: broken\ndescription: half\n",
		".hub/cached/SKILL.md":                skillMD("cached", "hidden cache"),
		"research/arxiv/SKILL.md":             skillMD("arxiv", "papers"),
		"research/arxiv/scripts/fetch.py":     "print(1)\n",
		"research/arxiv/references/api.md":    "# API\n",
		"research/arxiv/references/.secret":   "x",
		"research/arxiv/assets/img/logo.png":  "\x89PNG",
		"research/arxiv/templates/report.md":  "# Report\n",
		"research/arxiv/templates/notes.txt":  "notes\n",
		"research/arxiv/other-file-is-listed": "no\n",
	})
	writeFiles(t, project, map[string]string{
		"shared/SKILL.md": skillMD("shared", "the project's copy"),
	})
	got, problems := l.List()
	var lines []string
	for _, s := range got {
		lines = append(lines, s.Category+"|"+s.Name+"|"+s.Description+"|"+string(s.Root.Source))
	}
	want := []string{
		"|alpha|user alpha|user",
		// An unclosed front matter is all body: the folder names the
		// skill, the first line describes it.
		"|broken|---|user",
		"|nodesc|First real line.|user",
		"|shared|the project's copy|project",
		"devops|deploy|ship it|user",
		"research|arxiv|papers|user",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("List() =\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if len(problems) != 0 {
		t.Errorf("problems = %v", problems)
	}
	for _, s := range got {
		if s.Name == "broken" && !strings.Contains(s.Problem, "not closed") {
			t.Errorf("broken skill's Problem = %q", s.Problem)
		}
	}
	arxiv, err := l.Find("arxiv")
	if err != nil {
		t.Fatal(err)
	}
	files := l.Files(arxiv)
	wantFiles := map[string]string{
		"references": "references/api.md",
		"templates":  "templates/notes.txt,templates/report.md",
		"assets":     "assets/img/logo.png",
		"scripts":    "scripts/fetch.py",
	}
	for k, v := range wantFiles {
		if strings.Join(files[k], ",") != v {
			t.Errorf("Files[%s] = %v, want %s", k, files[k], v)
		}
	}
}

func TestListDisabledAndMissingRoots(t *testing.T) {
	dir := t.TempDir()
	l := New(Options{UserDir: filepath.Join(dir, "none"), ProjectDirs: []string{filepath.Join(dir, "also-none")}})
	if got, problems := l.List(); len(got) != 0 || len(problems) != 0 {
		t.Fatalf("List on missing roots = %v, %v", got, problems)
	}
	writeFiles(t, filepath.Join(dir, "none"), map[string]string{"a/SKILL.md": skillMD("a", "x"), "b/SKILL.md": skillMD("b", "y")})
	l = New(Options{UserDir: filepath.Join(dir, "none"), Disabled: []string{"a"}})
	got, _ := l.List()
	if len(got) != 1 || got[0].Name != "b" {
		t.Errorf("List with a disabled = %v", got)
	}
}

func TestFind(t *testing.T) {
	l, user, project := newTestLibrary(t)
	writeFiles(t, user, map[string]string{
		"devops/deploy/SKILL.md": skillMD("deploy", "user"),
		"ops/deploy/SKILL.md":    skillMD("deploy", "second user copy"),
		"renamed/SKILL.md":       skillMD("fancy-name", "front matter name"),
		"solo/SKILL.md":          skillMD("solo", "user solo"),
	})
	writeFiles(t, project, map[string]string{"solo/SKILL.md": skillMD("solo", "project solo")})

	if s, err := l.Find("solo"); err != nil || s.Root.Source != SourceProject {
		t.Errorf("Find(solo) = %+v, %v; want the project's", s, err)
	}
	if s, err := l.Find("fancy-name"); err != nil || s.Rel != "renamed" {
		t.Errorf("Find(fancy-name) = %+v, %v", s, err)
	}
	var amb *AmbiguousError
	if _, err := l.Find("deploy"); !errors.As(err, &amb) || len(amb.Paths) != 2 {
		t.Errorf("Find(deploy) error = %v, want ambiguous between two", err)
	}
	if s, err := l.Find("ops/deploy"); err != nil || s.Description != "second user copy" {
		t.Errorf("Find(ops/deploy) = %+v, %v", s, err)
	}
	if _, err := l.Find("nope"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Find(nope) error = %v", err)
	}
	for _, bad := range []string{"../etc", "/etc/passwd", `C:\skills\x`, "a/../../b"} {
		var le *LookupError
		if _, err := l.Find(bad); !errors.As(err, &le) {
			t.Errorf("Find(%q) error = %v, want a LookupError", bad, err)
		}
	}
}

func TestWriteIsAtomicAndConfined(t *testing.T) {
	l, user, _ := newTestLibrary(t)
	target, err := l.NewSkillTarget("demo", "devops")
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Write(target, []byte(skillMD("demo", "d"))); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(user, "devops", "demo", "SKILL.md"))
	if err != nil || string(b) != skillMD("demo", "d") {
		t.Fatalf("SKILL.md = %q, %v", b, err)
	}
	// Overwrite keeps permissions and leaves no temporary file.
	p := filepath.Join(user, "devops", "demo", "SKILL.md")
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := l.Write(target, []byte("new")); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode after rewrite = %v", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), atomicfile.Prefix) {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}

	// A symbolic link inside the root pointing outside cannot be written
	// through: os.Root refuses to follow it.
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(user, "devops", "demo", "references")); err != nil {
		t.Fatal(err)
	}
	s, err := l.Find("demo")
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Write(s.In("references/x.md"), []byte("escape")); err == nil {
		t.Error("write through a symlink to outside the root succeeded")
	}
	if _, err := os.Stat(filepath.Join(outside, "x.md")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("file written outside the skills root: %v", err)
	}
	for _, rel := range []string{"../x", "/etc/x", "a/../../x", ".", ""} {
		if err := l.Write(Target{Root: s.Root, Rel: rel}, []byte("x")); err == nil {
			t.Errorf("Write(%q) succeeded", rel)
		}
	}
}

func TestWriteFailureLeavesNothing(t *testing.T) {
	l, user, _ := newTestLibrary(t)
	writeFiles(t, user, map[string]string{"demo/SKILL.md": skillMD("demo", "d")})
	// references is a file, so references/new/x.md cannot be created.
	writeFiles(t, user, map[string]string{"demo/templates": "not a folder"})
	s, err := l.Find("demo")
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Write(s.In("templates/new/x.md"), []byte("x")); err == nil {
		t.Fatal("write below a file succeeded")
	}
	if err := os.MkdirAll(filepath.Join(user, "demo", "references"), 0o555); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		if err := l.Write(s.In("references/sub/x.md"), []byte("x")); err == nil {
			t.Fatal("write into a read-only folder succeeded")
		}
		if entries, _ := os.ReadDir(filepath.Join(user, "demo", "references")); len(entries) != 0 {
			t.Errorf("failed write left %v behind", entries)
		}
	}
}

func TestRemoveFileAndSkill(t *testing.T) {
	l, user, _ := newTestLibrary(t)
	writeFiles(t, user, map[string]string{
		"cat/demo/SKILL.md":          skillMD("demo", "d"),
		"cat/demo/references/api.md": "api",
		"cat/demo/scripts/run.sh":    "echo",
	})
	s, err := l.Find("demo")
	if err != nil {
		t.Fatal(err)
	}
	files, err := l.AllFiles(s, 100)
	if err != nil || strings.Join(files, ",") != "SKILL.md,references/api.md,scripts/run.sh" {
		t.Errorf("AllFiles = %v, %v", files, err)
	}
	if err := l.RemoveFile(s, "references/api.md"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(user, "cat", "demo", "references")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("empty references/ kept: %v", err)
	}
	if err := l.RemoveSkill(s); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(user, "cat")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("empty category kept: %v", err)
	}
	if _, err := os.Stat(user); err != nil {
		t.Errorf("skills root removed: %v", err)
	}

	// A skill folder that is a symbolic link is refused: deleting would
	// reach its target.
	target := t.TempDir()
	writeFiles(t, target, map[string]string{"SKILL.md": skillMD("linked", "x")})
	if err := os.Symlink(target, filepath.Join(user, "linked")); err != nil {
		t.Fatal(err)
	}
	linked := Skill{Name: "linked", Root: s.Root, Rel: "linked"}
	if err := l.RemoveSkill(linked); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("RemoveSkill(symlink) = %v", err)
	}
	if _, err := os.Stat(filepath.Join(target, "SKILL.md")); err != nil {
		t.Errorf("symlink target damaged: %v", err)
	}
	if err := l.RemoveSkill(Skill{Root: s.Root, Rel: "."}); err == nil {
		t.Error("RemoveSkill of the root succeeded")
	}
}

func TestPathForApproval(t *testing.T) {
	l, user, _ := newTestLibrary(t)
	target, _ := l.NewSkillTarget("demo", "")
	p, err := l.Path(target)
	if err != nil {
		t.Fatal(err)
	}
	if p.Abs() != filepath.Join(user, "demo", "SKILL.md") {
		t.Errorf("Path = %s", p.Abs())
	}
	if _, err := os.Stat(filepath.Join(user, "demo")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Path created the skill folder: %v", err)
	}
}

func TestIndex(t *testing.T) {
	if got := Index(nil, "list", "view", "manage"); got != "" {
		t.Errorf("Index(nil) = %q", got)
	}
	skills := []Skill{
		{Name: "code-review", Description: "Structured\ncode review workflow"},
		{Name: "arxiv", Description: "Search papers", Category: "research"},
	}
	got := Index(skills, "list", "view", "manage")
	want := "## Skills (mandatory)\n" +
		"Before replying, scan the skills below. If one clearly matches your task, load it with view(name) and follow its instructions. If a skill has issues, fix it with manage(action='patch').\n\n" +
		"<available_skills>\n  general:\n    - code-review: Structured code review workflow\n  research:\n    - arxiv: Search papers\n</available_skills>\n\n" +
		"If none match, proceed normally without loading a skill."
	if got != want {
		t.Errorf("Index =\n%s\nwant\n%s", got, want)
	}
	var many []Skill
	for i := range MaxIndexSkills + 7 {
		many = append(many, Skill{Name: strings.Repeat("s", 1+i%5) + string(rune('a'+i%26)), Description: strings.Repeat("d", 500)})
	}
	got = Index(many, "list", "view", "")
	if n := strings.Count(got, "\n    - "); n != MaxIndexSkills {
		t.Errorf("Index lists %d skills, want %d", n, MaxIndexSkills)
	}
	if !strings.Contains(got, "7 more skills are not listed here; use list to see them all.") {
		t.Errorf("Index does not say how many are left out:\n%s", got)
	}
	for _, line := range strings.Split(got, "\n") {
		if len([]rune(line)) > MaxIndexDescription+MaxNameLength+10 {
			t.Errorf("line too long (%d): %.80s", len(line), line)
		}
	}
	if strings.Contains(got, "action='patch'") {
		t.Error("Index names the manage tool when there is none")
	}
}

// TestSymlinkedFolders ports hermes's regression tests for skills under a
// symbolically linked folder (#35184): they are found and read, writes to
// them land in the linked folder and cannot leave it, and a link loop
// ends.
func TestSymlinkedFolders(t *testing.T) {
	l, user, _ := newTestLibrary(t)
	elsewhere := t.TempDir()
	writeFiles(t, elsewhere, map[string]string{
		"real_category/my-skill/SKILL.md":          skillMD("my-skill", "linked category"),
		"real_category/my-skill/references/api.md": "api",
		"outside/nested/deep-skill/SKILL.md":       skillMD("deep-skill", "nested"),
		"solo/SKILL.md":                            skillMD("solo", "linked skill folder"),
	})
	if err := os.MkdirAll(user, 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"real_category": filepath.Join(elsewhere, "real_category"),
		"outside":       filepath.Join(elsewhere, "outside"),
		"solo":          filepath.Join(elsewhere, "solo"),
		"loop":          user,
	} {
		if err := os.Symlink(target, filepath.Join(user, link)); err != nil {
			t.Fatal(err)
		}
	}
	got, problems := l.List()
	var lines []string
	for _, s := range got {
		lines = append(lines, s.Category+"|"+s.Name+"|"+s.Path)
	}
	want := "|solo|solo\noutside|deep-skill|outside/nested/deep-skill\nreal_category|my-skill|real_category/my-skill"
	if strings.Join(lines, "\n") != want || len(problems) != 0 {
		t.Errorf("List() =\n%s\nwant\n%s\nproblems %v", strings.Join(lines, "\n"), want, problems)
	}
	s, err := l.Find("real_category/my-skill")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := l.ReadFile(s, "references/api.md", 100); err != nil || string(b) != "api" {
		t.Errorf("ReadFile through the link = %q, %v", b, err)
	}
	if err := l.Write(s.In("references/new.md"), []byte("new")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(elsewhere, "real_category", "my-skill", "references", "new.md")); err != nil || string(b) != "new" {
		t.Errorf("write through the linked category = %q, %v", b, err)
	}
	solo, err := l.Find("solo")
	if err != nil || solo.Rel != "." {
		t.Fatalf("Find(solo) = %+v, %v", solo, err)
	}
	if err := l.RemoveSkill(solo); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("RemoveSkill of a linked skill folder = %v", err)
	}
	if err := l.Write(Target{Root: solo.Root, Rel: "../escape.md"}, []byte("x")); err == nil {
		t.Error("write out of a linked skill folder succeeded")
	}
}
