package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/skills"
)

// skills_list is hermes-agent's tier-1 skill listing: the name, description
// and category of every skill the session can see (the project's
// .hermes/skills first, then $HERMES_HOME/skills), optionally of one
// category. Bodies are loaded with skill_view.
var _ = declare(registry.Tool[skillsDeps]{
	Spec: registry.Spec{Entry: registry.Entry{
		Name:         skillsListName,
		Toolset:      "skills",
		Emoji:        "📚",
		Description:  skillsListDescription,
		Kind:         registry.KindRead,
		ReadOnly:     true,
		Idempotent:   true,
		ParallelSafe: true,
		Title:        skillsListTitle,
		Preview:      func(map[string]any) string { return "" },
		Render:       skillsListRender,
	}, Params: skillsListParams{}},
	New: newSkillsList,
})

const skillsListName = "skills_list"

//go:embed skills_list.md
var skillsListDescription string

type skillsListParams struct {
	Category string `json:"category" desc:"Optional category filter to narrow results"`
}

// skillsDeps is what the skill tools use of their session.
type skillsDeps interface {
	// SkillLibrary is the session's skills library: the user's and the
	// project's skills folders (an empty library when it has none).
	SkillLibrary() *skills.Library
	// Enabled reports whether the session offers tool: hints name only
	// those.
	Enabled(tool string) bool
}

// skillEntry is one skill in the listing; category is null for a skill
// outside any category folder, as in hermes.
type skillEntry struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Category    *string `json:"category"`
}

// skillsListResult is hermes's listing result. Warnings (ours) names the
// SKILL.md files that could not be read, so a user whose skill is missing
// learns why.
type skillsListResult struct {
	Success    bool         `json:"success"`
	Skills     []skillEntry `json:"skills"`
	Categories []string     `json:"categories"`
	Count      *int         `json:"count,omitempty"`
	Message    string       `json:"message,omitempty"`
	Hint       string       `json:"hint,omitempty"`
	Warnings   []string     `json:"_warnings,omitempty"`
}

// newSkillsList makes skills_list's handler for a session.
func newSkillsList(d skillsDeps) registry.Handler {
	return registry.Typed(func(_ context.Context, _ *registry.Call, p *skillsListParams) (registry.Result, error) {
		return skillsList(d, p), nil
	})
}

func skillsList(d skillsDeps, p *skillsListParams) registry.Result {
	all, problems := d.SkillLibrary().List()
	var warnings []string
	for _, pr := range problems {
		warnings = append(warnings, pr.Error())
	}
	if len(all) == 0 {
		return registry.OK(skillsListResult{Success: true, Skills: []skillEntry{}, Categories: []string{},
			Message: "No skills found in skills/ directory.", Warnings: warnings})
	}
	category := strings.TrimSpace(p.Category)
	out := skillsListResult{Success: true, Skills: []skillEntry{}, Categories: []string{}, Warnings: warnings}
	seen := map[string]bool{}
	for _, s := range all {
		if category != "" && s.Category != category {
			continue
		}
		e := skillEntry{Name: s.Name, Description: s.Description}
		if s.Category != "" {
			c := s.Category
			e.Category = &c
			if !seen[c] {
				seen[c] = true
				out.Categories = append(out.Categories, c)
			}
		}
		out.Skills = append(out.Skills, e)
	}
	n := len(out.Skills)
	out.Count = &n
	if d.Enabled(skillViewName) {
		out.Hint = "Use skill_view(name) to see full content, tags, and linked files"
	}
	return registry.OK(out)
}

// skillsListTitle is hermes's "skills list[ (<category>)]".
func skillsListTitle(args map[string]any) string {
	if c := strArg(args, "category"); c != "" {
		return "skills list (" + c + ")"
	}
	return "skills list"
}

// skillsListRender lists the skills found, one line each.
func skillsListRender(_ map[string]any, r registry.Result) string {
	res, ok := r.Value.(skillsListResult)
	if !ok {
		return ""
	}
	if len(res.Skills) == 0 {
		if res.Message != "" {
			return res.Message
		}
		return "No skills in this category."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Found %d skill", len(res.Skills))
	if len(res.Skills) != 1 {
		b.WriteString("s")
	}
	shown := min(len(res.Skills), 50)
	for _, s := range res.Skills[:shown] {
		fmt.Fprintf(&b, "\n- **%s**", s.Name)
		if s.Category != nil {
			fmt.Fprintf(&b, " (%s)", *s.Category)
		}
		if s.Description != "" {
			fmt.Fprintf(&b, ": %s", clipRunes(strings.Join(strings.Fields(s.Description), " "), 160))
		}
	}
	if shown < len(res.Skills) {
		fmt.Fprintf(&b, "\n- … and %d more", len(res.Skills)-shown)
	}
	return b.String()
}
