package skills

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Index bounds: the system prompt lists at most MaxIndexSkills skills, each
// description cut to MaxIndexDescription characters; the model finds the
// rest with the listing tool.
const (
	MaxIndexSkills      = 50
	MaxIndexDescription = 200
)

// Index returns the system prompt's skill index for skills (as List sorts
// them), hermes's "## Skills (mandatory)" section: one line per skill,
// "- name: description", under its category ("general" for none). It is ""
// when there are no skills. listTool, viewTool and manageTool name the
// session's skill tools; "" leaves out the sentence about that tool.
func Index(skills []Skill, listTool, viewTool, manageTool string) string {
	if len(skills) == 0 || viewTool == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString("## Skills (mandatory)\n")
	fmt.Fprintf(&b, "Before replying, scan the skills below. If one clearly matches your task, load it with %s(name) and follow its instructions. ", viewTool)
	if manageTool != "" {
		fmt.Fprintf(&b, "If a skill has issues, fix it with %s(action='patch').", manageTool)
	}
	b.WriteString("\n\n<available_skills>\n")
	shown := skills
	if len(shown) > MaxIndexSkills {
		shown = shown[:MaxIndexSkills]
	}
	category := "\x00"
	for _, s := range shown {
		c := s.Category
		if c == "" {
			c = "general"
		}
		if c != category {
			category = c
			fmt.Fprintf(&b, "  %s:\n", oneLine(c, MaxNameLength))
		}
		if d := oneLine(s.Description, MaxIndexDescription); d != "" {
			fmt.Fprintf(&b, "    - %s: %s\n", oneLine(s.Name, MaxNameLength), d)
		} else {
			fmt.Fprintf(&b, "    - %s\n", oneLine(s.Name, MaxNameLength))
		}
	}
	b.WriteString("</available_skills>\n")
	if more := len(skills) - len(shown); more > 0 {
		if listTool != "" {
			fmt.Fprintf(&b, "%d more skills are not listed here; use %s to see them all.\n", more, listTool)
		} else {
			fmt.Fprintf(&b, "%d more skills are not listed here.\n", more)
		}
	}
	b.WriteString("\nIf none match, proceed normally without loading a skill.")
	return b.String()
}

// oneLine flattens s to one line of at most n characters ("..." marks a
// cut).
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-3]) + "..."
}
