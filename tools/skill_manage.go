package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/hermes-acp/hermes-acp/internal/pyfmt"
	"github.com/hermes-acp/hermes-acp/lint"
	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/skills"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// skill_manage is hermes-agent's skill manager: create, patch, edit and
// delete skills and write or remove their supporting files. Every write is
// confined to the skills folders (names and paths are validated, and the
// I/O goes through an os.Root on the skills folder), shown to the user as a
// diff and approved like a file edit, and written atomically. New skills go
// to $HERMES_HOME/skills; existing ones are changed where they live.
var _ = declare(registry.Tool[skillManageDeps]{
	Spec: registry.Spec{Entry: registry.Entry{
		Name:         skillManageName,
		Toolset:      "skills",
		Emoji:        "📝",
		Description:  skillManageDescription,
		Kind:         registry.KindEdit,
		ChangesFiles: true, // checkpointed first (issue 29)
		Title:        skillManageTitle,
		Preview:      skillManagePreview,
		Render:       skillManageRender,
	}, Params: skillManageParams{}},
	New: func(d skillManageDeps) registry.Handler {
		return registry.Typed(func(ctx context.Context, call *registry.Call, p *skillManageParams) (registry.Result, error) {
			return skillManage(ctx, d, call, p)
		})
	},
})

const skillManageName = "skill_manage"

//go:embed skill_manage.md
var skillManageDescription string

type skillManageParams struct {
	Action       string  `json:"action" schema:"required" enum:"create,patch,edit,delete,write_file,remove_file" desc:"The action to perform."`
	Name         string  `json:"name" schema:"required" desc:"Skill name (lowercase, hyphens/underscores, max 64 chars). Must match an existing skill for patch/edit/delete/write_file/remove_file."`
	Content      *string `json:"content" desc:"Full SKILL.md content (YAML frontmatter + markdown body). Required for 'create' and 'edit'. For 'edit', read the skill first and provide the complete updated text."`
	OldString    *string `json:"old_string" desc:"Text to find in the file (required for 'patch'). Must be unique unless replace_all=true. Include enough surrounding context to ensure uniqueness."`
	NewString    *string `json:"new_string" desc:"Replacement text (required for 'patch'). Can be empty string to delete the matched text."`
	ReplaceAll   bool    `json:"replace_all" desc:"For 'patch': replace all occurrences instead of requiring a unique match (default: false)."`
	Category     *string `json:"category" desc:"Optional category/domain for organizing the skill (e.g., 'devops', 'data-science', 'mlops'). Creates a subdirectory grouping. Only used with 'create'."`
	FilePath     *string `json:"file_path" desc:"Path to a supporting file within the skill directory. For 'write_file'/'remove_file': required, must be under references/, templates/, scripts/, or assets/. For 'patch': optional, defaults to SKILL.md if omitted."`
	FileContent  *string `json:"file_content" desc:"Content for the file. Required for 'write_file'."`
	AbsorbedInto *string `json:"absorbed_into" desc:"For 'delete' only: the skill this one's content was merged into (it must already exist), or an empty string when the skill is pruned with no forwarding target."`
}

// skillManageDeps is what skill_manage uses of its session: the skill
// tools' library and hints, the user's approval of every change (shown as
// a diff), and the record of what it wrote inside the workspace.
type skillManageDeps interface {
	skillsDeps
	EditApprover
	// RecordWrite tells the session that the tool wrote content at abs
	// (a project skill's file): when abs is in the workspace, the file
	// state records the write (so it is not taken for an outside change)
	// and read_file forgets what it read there.
	RecordWrite(abs string, content []byte)
}

// skillManageResult is hermes's successful result.
type skillManageResult struct {
	Success  bool   `json:"success"`
	Message  string `json:"message"`
	Path     string `json:"path,omitempty"`
	SkillMD  string `json:"skill_md,omitempty"`
	Category string `json:"category,omitempty"`
	Hint     string `json:"hint,omitempty"`
}

// skillManageMaxDeleteFiles bounds the files a delete shows for approval;
// a skill with more is refused (delete it by hand).
const skillManageMaxDeleteFiles = 200

// skillManageShowBytes is the largest file whose text a delete shows in its
// diff; larger and binary files show a one-line placeholder.
const skillManageShowBytes = 256 << 10

func skillManage(ctx context.Context, env skillManageDeps, call *registry.Call, p *skillManageParams) (registry.Result, error) {
	fail := func(msg string) (registry.Result, error) { return skillFailed(skillFailure{Error: msg}), nil }
	name := strings.TrimSpace(p.Name)
	str := func(s *string) string {
		if s == nil {
			return ""
		}
		return *s
	}
	switch p.Action {
	case "create":
		if str(p.Content) == "" {
			return fail("content is required for 'create'. Provide the full SKILL.md text (frontmatter + body).")
		}
	case "edit":
		if str(p.Content) == "" {
			return fail("content is required for 'edit'. Provide the full updated SKILL.md text.")
		}
	case "patch":
		if str(p.OldString) == "" {
			return fail("old_string is required for 'patch'. Provide the text to find.")
		}
		if p.NewString == nil {
			return fail("new_string is required for 'patch'. Use empty string to delete matched text.")
		}
	case "delete":
	case "write_file":
		if str(p.FilePath) == "" {
			return fail("file_path is required for 'write_file'. Example: 'references/api-guide.md'")
		}
		if p.FileContent == nil {
			return fail("file_content is required for 'write_file'.")
		}
	case "remove_file":
		if str(p.FilePath) == "" {
			return fail("file_path is required for 'remove_file'.")
		}
	default:
		return fail(fmt.Sprintf("Unknown action '%s'. Use: create, edit, patch, delete, write_file, remove_file", p.Action))
	}
	if name == "" {
		return fail("Skill name is required.")
	}
	m := skillManager{env: env, lib: env.SkillLibrary(), callID: call.ID, name: name}
	switch p.Action {
	case "create":
		return m.create(ctx, *p.Content, strings.TrimSpace(str(p.Category)))
	case "edit":
		return m.edit(ctx, *p.Content)
	case "patch":
		return m.patch(ctx, *p.OldString, *p.NewString, str(p.FilePath), p.ReplaceAll)
	case "delete":
		return m.delete(ctx, p.AbsorbedInto)
	case "write_file":
		return m.writeFile(ctx, *p.FilePath, *p.FileContent)
	default:
		return m.removeFile(ctx, *p.FilePath)
	}
}

// skillManager runs one skill_manage call.
type skillManager struct {
	env    skillManageDeps
	lib    *skills.Library
	callID string
	name   string
}

// find looks the skill up; the failure says how to see the skills.
func (m skillManager) find(suffix string) (skills.Skill, *registry.Result) {
	sk, fail := skillFind(m.env, m.name, "")
	if fail == nil {
		return sk, nil
	}
	if f, ok := fail.Value.(skillFailure); ok && strings.HasSuffix(f.Error, " not found.") {
		if m.env.Enabled(skillsListName) {
			f.Error += " Use skills_list() to see available skills."
		}
		f.Error += suffix
		f.Hint, f.AvailableSkills = "", nil
		r := skillFailed(f)
		return sk, &r
	}
	return sk, fail
}

// change is one proposed change: where, and the old and new text.
type skillChange struct {
	target skills.Target
	kind   workspace.ChangeKind
	old    *string
	new    string
}

// approve shows the changes for approval. It returns nil when they may be
// made; otherwise the result the model reads (or a Go error when the turn
// was cancelled).
func (m skillManager) approve(ctx context.Context, changes ...skillChange) (*registry.Result, error) {
	var wc []workspace.Change
	for _, c := range changes {
		p, err := m.lib.Path(c.target)
		if err != nil {
			r := skillFailed(skillFailure{Error: fmt.Sprintf("Cannot prepare %s: %v", c.target.Abs(), err)})
			return &r, nil
		}
		wc = append(wc, workspace.Change{Kind: c.kind, Path: p, Old: c.old, New: c.new})
	}
	d := m.env.ApproveEdit(ctx, m.callID, wc, make([]lint.Result, len(wc)))
	if d.Approved {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("skill_manage %s: %w", m.name, err)
	}
	msg := denialMessage(d)
	r := skillFailed(skillFailure{Error: msg})
	return &r, nil
}

// written tells the session's file state about a write below the
// workspace (a project skill), so its own write is not taken for an
// outside change.
func (m skillManager) written(t skills.Target, content []byte) {
	if t.Root.Source == skills.SourceProject {
		m.env.RecordWrite(t.Abs(), content)
	}
}

// writeFailed is the result of a write that failed after approval.
func writeFailed(t skills.Target, err error) (registry.Result, error) {
	return skillFailed(skillFailure{Error: fmt.Sprintf("Failed to write %s: %v", t.Abs(), err)}), nil
}

func (m skillManager) create(ctx context.Context, content, category string) (registry.Result, error) {
	fail := func(msg string) (registry.Result, error) { return skillFailed(skillFailure{Error: msg}), nil }
	for _, msg := range []string{skills.ValidateName(m.name), skills.ValidateCategory(category), skills.Validate(content), skills.ValidateSize(content, skills.FileName)} {
		if msg != "" {
			return fail(msg)
		}
	}
	if sk, err := m.lib.Find(m.name); err == nil {
		return fail(fmt.Sprintf("A skill named '%s' already exists at %s.", m.name, sk.Dir()))
	} else if !errors.Is(err, skills.ErrNotFound) {
		var amb *skills.AmbiguousError
		if errors.As(err, &amb) {
			return fail(fmt.Sprintf("A skill named '%s' already exists at %s.", m.name, path.Dir(amb.Paths[0])))
		}
		return fail(err.Error())
	}
	t, err := m.lib.NewSkillTarget(m.name, category)
	if err != nil {
		return fail("Cannot create skill '" + m.name + "': " + err.Error())
	}
	if _, exists, err := m.lib.Read(t); err != nil || exists {
		return fail(fmt.Sprintf("A skill named '%s' already exists at %s.", m.name, path.Dir(t.Abs())))
	}
	if r, err := m.approve(ctx, skillChange{target: t, kind: workspace.ChangeCreate, new: content}); r != nil || err != nil {
		return deref(r), err
	}
	if err := m.lib.Write(t, []byte(content)); err != nil {
		return writeFailed(t, err)
	}
	m.written(t, []byte(content))
	res := skillManageResult{Success: true, Message: fmt.Sprintf("Skill '%s' created.", m.name),
		Path: path.Dir(t.Rel), SkillMD: t.Abs(), Category: category}
	if m.env.Enabled(skillManageName) {
		res.Hint = fmt.Sprintf("To add reference files, templates, or scripts, use skill_manage(action='write_file', name='%s', file_path='references/example.md', file_content='...')", m.name)
	}
	return registry.OK(res), nil
}

func deref(r *registry.Result) registry.Result {
	if r == nil {
		return registry.Result{}
	}
	return *r
}

func (m skillManager) edit(ctx context.Context, content string) (registry.Result, error) {
	fail := func(msg string) (registry.Result, error) { return skillFailed(skillFailure{Error: msg}), nil }
	if msg := skills.Validate(content); msg != "" {
		return fail(msg)
	}
	if msg := skills.ValidateSize(content, skills.FileName); msg != "" {
		return fail(msg)
	}
	sk, r := m.find("")
	if r != nil {
		return *r, nil
	}
	t := sk.In(skills.FileName)
	old, exists, err := m.lib.Read(t)
	if err != nil {
		return fail(err.Error())
	}
	c := skillChange{target: t, kind: workspace.ChangeCreate, new: content}
	if exists {
		o := string(old)
		c.kind, c.old = workspace.ChangeEdit, &o
	}
	if r, err := m.approve(ctx, c); r != nil || err != nil {
		return deref(r), err
	}
	if err := m.lib.Write(t, []byte(content)); err != nil {
		return writeFailed(t, err)
	}
	m.written(t, []byte(content))
	return registry.OK(skillManageResult{Success: true, Message: fmt.Sprintf("Skill '%s' updated (full rewrite).", m.name), Path: sk.Dir()}), nil
}

func (m skillManager) patch(ctx context.Context, oldString, newString, filePath string, replaceAll bool) (registry.Result, error) {
	fail := func(msg string) (registry.Result, error) { return skillFailed(skillFailure{Error: msg}), nil }
	sk, r := m.find("")
	if r != nil {
		return *r, nil
	}
	rel, label := skills.FileName, skills.FileName
	if filePath != "" {
		if msg := skills.ValidateFilePath(filePath); msg != "" {
			return fail(msg)
		}
		rel, label = skills.CleanFilePath(filePath), filePath
	}
	t := sk.In(rel)
	raw, exists, err := m.lib.Read(t)
	if err != nil {
		return fail(err.Error())
	}
	if !exists {
		return fail("File not found: " + rel)
	}
	if !utf8.Valid(raw) {
		return fail(fmt.Sprintf("Cannot patch '%s': it is not UTF-8 text.", rel))
	}
	content := string(raw)
	fr, err := FuzzyReplace(ctx, content, oldString, newString, replaceAll)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return registry.Result{}, fmt.Errorf("skill_manage %s: %w", m.name, cerr)
		}
		preview := content
		if utf8.RuneCountInString(preview) > 500 {
			preview = string([]rune(preview)[:500]) + "..."
		}
		return skillFailed(skillFailure{Error: err.Error(), FilePreview: preview}), nil
	}
	if msg := skills.ValidateSize(fr.Content, label); msg != "" {
		return fail(msg)
	}
	if rel == skills.FileName {
		if msg := skills.Validate(fr.Content); msg != "" {
			return fail("Patch would break SKILL.md structure: " + msg)
		}
	}
	if r, err := m.approve(ctx, skillChange{target: t, kind: workspace.ChangeEdit, old: &content, new: fr.Content}); r != nil || err != nil {
		return deref(r), err
	}
	if err := m.lib.Write(t, []byte(fr.Content)); err != nil {
		return writeFailed(t, err)
	}
	m.written(t, []byte(fr.Content))
	plural := ""
	if fr.Count > 1 {
		plural = "s"
	}
	return registry.OK(skillManageResult{Success: true,
		Message: fmt.Sprintf("Patched %s in skill '%s' (%d replacement%s).", label, m.name, fr.Count, plural)}), nil
}

func (m skillManager) delete(ctx context.Context, absorbedInto *string) (registry.Result, error) {
	fail := func(msg string) (registry.Result, error) { return skillFailed(skillFailure{Error: msg}), nil }
	sk, r := m.find("")
	if r != nil {
		return *r, nil
	}
	absorbed := ""
	if absorbedInto != nil {
		absorbed = strings.TrimSpace(*absorbedInto)
	}
	if absorbed != "" {
		if absorbed == m.name {
			return fail(fmt.Sprintf("absorbed_into='%s' cannot equal the skill being deleted.", absorbed))
		}
		if _, err := m.lib.Find(absorbed); err != nil {
			return fail(fmt.Sprintf("absorbed_into='%s' does not exist. Create or patch the umbrella skill first, then retry the delete.", absorbed))
		}
	}
	files, err := m.lib.AllFiles(sk, skillManageMaxDeleteFiles+1)
	if err != nil {
		return fail(err.Error())
	}
	if len(files) > skillManageMaxDeleteFiles {
		return fail(fmt.Sprintf("Refusing to delete '%s': it holds more than %d files, too many to show for approval. Delete the folder %s by hand if intended.", m.name, skillManageMaxDeleteFiles, sk.Dir()))
	}
	var changes []skillChange
	for _, f := range files {
		t := sk.In(f)
		old := m.shownText(t)
		changes = append(changes, skillChange{target: t, kind: workspace.ChangeDelete, old: &old})
	}
	if r, err := m.approve(ctx, changes...); r != nil || err != nil {
		return deref(r), err
	}
	if err := m.lib.RemoveSkill(sk); err != nil {
		return fail(err.Error())
	}
	msg := fmt.Sprintf("Skill '%s' deleted.", m.name)
	if absorbed != "" {
		msg += fmt.Sprintf(" Content absorbed into '%s'.", absorbed)
	}
	return registry.OK(skillManageResult{Success: true, Message: msg}), nil
}

// shownText is the text of t as a deletion shows it: the file's text, or a
// placeholder for a binary or large file.
func (m skillManager) shownText(t skills.Target) string {
	b, _, err := m.lib.Read(t)
	switch {
	case err != nil:
		return fmt.Sprintf("[%s: %v]", path.Base(t.Rel), err)
	case len(b) > skillManageShowBytes || !utf8.Valid(b) || strings.IndexByte(string(b), 0) >= 0:
		return fmt.Sprintf("[%s: %d bytes, not shown]\n", path.Base(t.Rel), len(b))
	}
	return string(b)
}

func (m skillManager) writeFile(ctx context.Context, filePath, fileContent string) (registry.Result, error) {
	fail := func(msg string) (registry.Result, error) { return skillFailed(skillFailure{Error: msg}), nil }
	if msg := skills.ValidateFilePath(filePath); msg != "" {
		return fail(msg)
	}
	if n := len(fileContent); n > skills.MaxFileBytes {
		return fail(fmt.Sprintf("File content is %s bytes (limit: %s bytes / 1 MiB). Consider splitting into smaller files.",
			pyfmt.Commas(int64(n)), pyfmt.Commas(int64(skills.MaxFileBytes))))
	}
	if msg := skills.ValidateSize(fileContent, filePath); msg != "" {
		return fail(msg)
	}
	rel := skills.CleanFilePath(filePath)
	if rel == skills.FileName {
		if msg := skills.Validate(fileContent); msg != "" {
			return fail(msg)
		}
	}
	suffix := ""
	if m.env.Enabled(skillManageName) {
		suffix = " Create it first with action='create'."
	}
	sk, r := m.find(suffix)
	if r != nil {
		return *r, nil
	}
	t := sk.In(rel)
	old, exists, err := m.lib.Read(t)
	if err != nil {
		return fail(err.Error())
	}
	c := skillChange{target: t, kind: workspace.ChangeCreate, new: fileContent}
	if exists {
		o := m.shownText(t)
		if utf8.Valid(old) {
			o = string(old)
		}
		c.kind, c.old = workspace.ChangeEdit, &o
	}
	if r, err := m.approve(ctx, c); r != nil || err != nil {
		return deref(r), err
	}
	if err := m.lib.Write(t, []byte(fileContent)); err != nil {
		return writeFailed(t, err)
	}
	m.written(t, []byte(fileContent))
	return registry.OK(skillManageResult{Success: true,
		Message: fmt.Sprintf("File '%s' written to skill '%s'.", filePath, m.name), Path: t.Abs()}), nil
}

func (m skillManager) removeFile(ctx context.Context, filePath string) (registry.Result, error) {
	fail := func(msg string) (registry.Result, error) { return skillFailed(skillFailure{Error: msg}), nil }
	if msg := skills.ValidateFilePath(filePath); msg != "" {
		return fail(msg)
	}
	rel := skills.CleanFilePath(filePath)
	if rel == skills.FileName {
		return fail("SKILL.md cannot be removed: it is the skill. Use action='delete' to remove the whole skill.")
	}
	sk, r := m.find("")
	if r != nil {
		return *r, nil
	}
	t := sk.In(rel)
	_, exists, err := m.lib.Read(t)
	if err != nil && !exists {
		return fail(err.Error())
	}
	if !exists {
		f := skillFailure{Error: fmt.Sprintf("File '%s' not found in skill '%s'.", filePath, m.name), AvailableFiles: m.lib.Files(sk)}
		return skillFailed(f), nil
	}
	old := m.shownText(t)
	if r, err := m.approve(ctx, skillChange{target: t, kind: workspace.ChangeDelete, old: &old}); r != nil || err != nil {
		return deref(r), err
	}
	if err := m.lib.RemoveFile(sk, rel); err != nil {
		return fail(err.Error())
	}
	return registry.OK(skillManageResult{Success: true, Message: fmt.Sprintf("File '%s' removed from skill '%s'.", filePath, m.name)}), nil
}

// skillManageTitle is hermes's "skill <action>: <name>[/<file>]".
func skillManageTitle(args map[string]any) string {
	action := strArg(args, "action")
	if action == "" {
		action = "manage"
	}
	name := strArg(args, "name")
	if f := strArg(args, "file_path"); f != "" {
		name += "/" + f
	}
	return "skill " + action + ": " + name
}

// skillManagePreview is what shows until the diff is ready.
func skillManagePreview(args map[string]any) string {
	if n := strArg(args, "name"); n != "" {
		return fmt.Sprintf("Preparing skill %s for `%s`. Approval prompt shows the diff.", strArg(args, "action"), n)
	}
	return "Preparing skill change. Approval prompt shows the diff."
}

// skillManageRender confirms a change that landed; the diff is already on
// the tool call.
func skillManageRender(_ map[string]any, r registry.Result) string {
	res, ok := r.Value.(skillManageResult)
	if !ok {
		return ""
	}
	out := "✅ " + res.Message
	if res.SkillMD != "" {
		out += "\n\n`" + res.SkillMD + "`"
	} else if res.Path != "" {
		out += "\n\n`" + res.Path + "`"
	}
	return out
}
