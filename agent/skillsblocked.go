package agent

import (
	"fmt"
	"strings"
)

// skillsBlockedContext is /context's line about the skills the shared
// threat scan left out of the system prompt (issue 25), or "" when none
// is: the user sees what was refused and where, to inspect and fix it.
func skillsBlockedContext(s *Session) string {
	if s.a.opts.SkillsBlocked == nil || s.env == nil {
		return ""
	}
	lines := s.a.opts.SkillsBlocked(s.env)
	if len(lines) == 0 {
		return ""
	}
	return fmt.Sprintf("\nSkills left out (possible prompt injection): %d\n- %s", len(lines), strings.Join(lines, "\n- "))
}
