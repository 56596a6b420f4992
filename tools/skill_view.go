package tools

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/skills"
)

// skill_view is hermes-agent's progressive disclosure of a skill: its
// SKILL.md (front matter fields and body) with the list of its supporting
// files, or, with file_path, one of those files.
var _ = declare(registry.Tool[skillsDeps]{
	Spec: registry.Spec{Entry: registry.Entry{
		Name:         skillViewName,
		Toolset:      "skills",
		Emoji:        "📚",
		Description:  skillViewDescription,
		Kind:         registry.KindRead,
		ReadOnly:     true,
		Idempotent:   true,
		ParallelSafe: true,
		Title:        skillViewTitle,
		Preview:      func(map[string]any) string { return "" },
		Render:       skillViewRender,
	}, Params: skillViewParams{}},
	New: func(d skillsDeps) registry.Handler {
		return registry.Typed(func(_ context.Context, _ *registry.Call, p *skillViewParams) (registry.Result, error) {
			return skillView(d, p), nil
		})
	},
})

const skillViewName = "skill_view"

//go:embed skill_view.md
var skillViewDescription string

type skillViewParams struct {
	Name     string `json:"name" schema:"required" desc:"The skill name (as the system prompt or the skill listing shows it). A skill in a category folder can also be named by its path, e.g. 'devops/deploy'."`
	FilePath string `json:"file_path" desc:"OPTIONAL: Path to a linked file within the skill (e.g., 'references/api.md', 'templates/config.yaml', 'scripts/validate.py'). Omit to get the main SKILL.md content."`
}

// skillViewResult is hermes's result for SKILL.md.
type skillViewResult struct {
	Success       bool                `json:"success"`
	Name          string              `json:"name"`
	Description   string              `json:"description"`
	Tags          []string            `json:"tags"`
	RelatedSkills []string            `json:"related_skills"`
	Content       string              `json:"content"`
	Path          string              `json:"path"`
	SkillDir      string              `json:"skill_dir"`
	Source        skills.Source       `json:"source"`
	LinkedFiles   map[string][]string `json:"linked_files"`
	UsageHint     *string             `json:"usage_hint"`
	Compatibility any                 `json:"compatibility,omitempty"`
	Metadata      map[string]any      `json:"metadata,omitempty"`
	Warning       string              `json:"_warning,omitempty"`
}

// skillFileResult is hermes's result for a linked file.
type skillFileResult struct {
	Success  bool   `json:"success"`
	Name     string `json:"name"`
	File     string `json:"file"`
	Content  string `json:"content"`
	FileType string `json:"file_type,omitempty"`
	IsBinary bool   `json:"is_binary,omitempty"`
}

// skillFailure is hermes's {"success": false, "error": …} with its extras.
type skillFailure struct {
	Success         bool                `json:"success"`
	Error           string              `json:"error"`
	Hint            string              `json:"hint,omitempty"`
	Matches         []string            `json:"matches,omitempty"`
	AvailableSkills []string            `json:"available_skills,omitempty"`
	AvailableFiles  map[string][]string `json:"available_files,omitempty"`
	FilePreview     string              `json:"file_preview,omitempty"`
}

// skillFailed is a failed skill tool result.
func skillFailed(f skillFailure) registry.Result { return registry.Failed(f) }

// skillLookupHint follows a name that cannot be looked up.
const skillLookupHint = "Use a skill name or relative path within the skills directory."

// skillFind looks up name for a skill tool, returning the failure the model
// reads when there is no such skill (hermes's messages).
func skillFind(d skillsDeps, name, notFoundSuffix string) (skills.Skill, *registry.Result) {
	lib := d.SkillLibrary()
	sk, err := lib.Find(name)
	if err == nil {
		return sk, nil
	}
	var le *skills.LookupError
	var amb *skills.AmbiguousError
	var r registry.Result
	switch {
	case errors.As(err, &le):
		r = skillFailed(skillFailure{Error: le.Msg, Hint: skillLookupHint})
	case errors.As(err, &amb):
		r = skillFailed(skillFailure{Error: amb.Error(), Matches: amb.Paths,
			Hint: "Pass the full relative path instead of the bare name (e.g., 'category/skill-name'), or rename one of the colliding skills so each name is unique."})
	case errors.Is(err, skills.ErrNotFound):
		f := skillFailure{Error: fmt.Sprintf("Skill '%s' not found.", name)}
		if notFoundSuffix != "" {
			f.Error += notFoundSuffix
		}
		all, _ := lib.List()
		for _, sk := range all[:min(len(all), 20)] {
			f.AvailableSkills = append(f.AvailableSkills, sk.Name)
		}
		if d.Enabled(skillsListName) {
			f.Hint = "Use skills_list to see all available skills"
		}
		r = skillFailed(f)
	default:
		r = skillFailed(skillFailure{Error: err.Error()})
	}
	return skills.Skill{}, &r
}

func skillView(d skillsDeps, p *skillViewParams) registry.Result {
	name := strings.TrimSpace(p.Name)
	if name == "" {
		return skillFailed(skillFailure{Error: "Skill name is required.", Hint: skillLookupHint})
	}
	sk, fail := skillFind(d, name, "")
	if fail != nil {
		return *fail
	}
	lib := d.SkillLibrary()
	if lib.Disabled(sk.Name) {
		return skillFailed(skillFailure{Error: fmt.Sprintf("Skill '%s' is disabled. Enable it by removing it from skills.disabled in config.yaml, or inspect the files directly on disk.", sk.Name)})
	}
	if p.FilePath != "" {
		return skillViewFile(lib, sk, name, p.FilePath)
	}
	raw, err := lib.ReadFile(sk, skills.FileName, skills.MaxFileBytes)
	if err != nil {
		return skillFailed(skillFailure{Error: fmt.Sprintf("Failed to read skill '%s': %v", name, err)})
	}
	content := strings.ToValidUTF8(strings.TrimPrefix(string(raw), "\ufeff"), "\uFFFD")
	doc, perr := skills.Parse(content)
	res := skillViewResult{
		Success:       true,
		Name:          sk.Name,
		Description:   doc.String("description"),
		Tags:          skillList(doc, "tags"),
		RelatedSkills: skillList(doc, "related_skills"),
		Content:       content,
		Path:          path.Join(sk.Path, skills.FileName),
		SkillDir:      sk.Dir(),
		Source:        sk.Root.Source,
		LinkedFiles:   lib.Files(sk),
	}
	if len(res.LinkedFiles) == 0 {
		res.LinkedFiles = nil
	} else if d.Enabled(skillViewName) {
		h := "To view linked files, call skill_view(name, file_path) where file_path is e.g. 'references/api.md' or 'assets/config.yaml'"
		res.UsageHint = &h
	}
	if v, ok := doc.Front["compatibility"]; ok && v != nil && v != "" {
		res.Compatibility = v
	}
	if m, ok := doc.Front["metadata"].(map[string]any); ok {
		res.Metadata = m
	}
	if perr != nil {
		res.Warning = "SKILL.md " + perr.Error()
	}
	return registry.OK(res)
}

// skillList reads tags or related_skills: metadata.hermes.<key> first, then
// the top-level key; a YAML list, "[a, b]" or "a, b" (hermes's _parse_tags).
func skillList(doc skills.Doc, key string) []string {
	var v any
	if m, ok := doc.Front["metadata"].(map[string]any); ok {
		if h, ok := m["hermes"].(map[string]any); ok {
			v = h[key]
		}
	}
	if v == nil || v == "" {
		v = doc.Front[key]
	}
	out := []string{}
	switch t := v.(type) {
	case []any:
		for _, e := range t {
			if e != nil && e != "" {
				out = append(out, strings.TrimSpace(fmt.Sprint(e)))
			}
		}
	case nil:
	default:
		s := strings.TrimSpace(fmt.Sprint(t))
		if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
			s = s[1 : len(s)-1]
		}
		for _, e := range strings.Split(s, ",") {
			if e = strings.Trim(strings.TrimSpace(e), `"'`); e != "" {
				out = append(out, e)
			}
		}
	}
	return out
}

// skillViewFile serves one linked file of sk.
func skillViewFile(lib *skills.Library, sk skills.Skill, label, filePath string) registry.Result {
	const hint = "Use a relative path within the skill directory"
	if strings.Contains("/"+strings.ReplaceAll(filePath, `\`, "/")+"/", "/../") {
		return skillFailed(skillFailure{Error: "Path traversal ('..') is not allowed.", Hint: hint})
	}
	if msg := skills.CheckLookup(filePath); msg != "" {
		return skillFailed(skillFailure{Error: fmt.Sprintf("Path '%s' is outside the skill directory.", filePath), Hint: hint})
	}
	rel := path.Clean(strings.ReplaceAll(filePath, `\`, "/"))
	b, err := lib.ReadFile(sk, rel, skills.MaxFileBytes)
	var tl *skills.TooLargeError
	switch {
	case errors.As(err, &tl):
		return skillFailed(skillFailure{Error: fmt.Sprintf("File '%s' in skill '%s' is too large to view: %v.", filePath, label, err)})
	case errors.Is(err, fs.ErrNotExist) || rel == "." || err != nil && strings.Contains(err.Error(), "is a directory"):
		return skillFailed(skillFailure{Error: fmt.Sprintf("File '%s' not found in skill '%s'.", filePath, label),
			AvailableFiles: lib.Files(sk), Hint: "Use one of the available file paths listed above"})
	case err != nil:
		return skillFailed(skillFailure{Error: fmt.Sprintf("Failed to read '%s': %v", filePath, err)})
	}
	if bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b) {
		return registry.OK(skillFileResult{Success: true, Name: label, File: filePath, IsBinary: true,
			Content: fmt.Sprintf("[Binary file: %s, size: %d bytes]", path.Base(rel), len(b))})
	}
	return registry.OK(skillFileResult{Success: true, Name: label, File: filePath,
		Content: strings.TrimPrefix(string(b), "\ufeff"), FileType: path.Ext(rel)})
}

// skillViewTitle is hermes's "skill view (<name>[/<file>])".
func skillViewTitle(args map[string]any) string {
	name := strArg(args, "name")
	if f := strArg(args, "file_path"); f != "" {
		name += "/" + f
	}
	return "skill view (" + name + ")"
}

// skillViewRender shows what was loaded — the description, the headings
// and the linked files — never the body (hermes's ACP rendering).
func skillViewRender(_ map[string]any, r registry.Result) string {
	switch v := r.Value.(type) {
	case skillFileResult:
		if v.IsBinary {
			return fmt.Sprintf("Viewed binary file `%s` of skill **%s**", v.File, v.Name)
		}
		return fmt.Sprintf("Viewed `%s` of skill **%s** (%d characters)", v.File, v.Name, utf8.RuneCountInString(v.Content))
	case skillViewResult:
		var b strings.Builder
		fmt.Fprintf(&b, "Loaded skill **%s**", v.Name)
		if v.Description != "" {
			fmt.Fprintf(&b, ": %s", clipRunes(strings.Join(strings.Fields(v.Description), " "), 200))
		}
		var heads []string
		doc, _ := skills.Parse(v.Content)
		inFence := false
		for _, line := range strings.Split(doc.Body, "\n") {
			t := strings.TrimSpace(line)
			if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
				inFence = !inFence
			}
			if !inFence && strings.HasPrefix(t, "#") {
				heads = append(heads, clipRunes(t, 120))
			}
		}
		if len(heads) > 0 {
			b.WriteString("\n\nSections:")
			for _, h := range heads[:min(len(heads), 15)] {
				fmt.Fprintf(&b, "\n- %s", strings.TrimSpace(strings.TrimLeft(h, "#")))
			}
			if len(heads) > 15 {
				fmt.Fprintf(&b, "\n- … and %d more", len(heads)-15)
			}
		}
		if len(v.LinkedFiles) > 0 {
			b.WriteString("\n\nLinked files:")
			for _, k := range []string{"references", "templates", "assets", "scripts"} {
				if fs := v.LinkedFiles[k]; len(fs) > 0 {
					fmt.Fprintf(&b, "\n- %s: %s", k, strings.Join(fs[:min(len(fs), 10)], ", "))
					if len(fs) > 10 {
						fmt.Fprintf(&b, " (+%d)", len(fs)-10)
					}
				}
			}
		}
		return b.String()
	}
	return ""
}
