package skills

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/hermes-acp/hermes-acp/internal/pyfmt"
	"github.com/hermes-acp/hermes-acp/internal/threat"
)

// Limits and rules of hermes-agent's skill manager (tools/skill_manager_tool.py).
const (
	// MaxNameLength caps a skill's and a category's name.
	MaxNameLength = 64
	// MaxDescriptionLength caps the description in the front matter.
	MaxDescriptionLength = 1024
	// MaxContentChars caps SKILL.md and any text file the agent writes.
	MaxContentChars = 100_000
	// MaxFileBytes caps one supporting file.
	MaxFileBytes = 1 << 20
	// FileName is the skill's main file.
	FileName = "SKILL.md"
)

// SupportDirs are the folders of a skill that hold its supporting files;
// write_file and remove_file only touch files below them.
var SupportDirs = []string{"references", "templates", "scripts", "assets"}

// validName is hermes's VALID_NAME_RE: lowercase letters, digits, dots,
// hyphens and underscores, starting with a letter or digit.
var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`) })

// closing finds the line that closes the front matter (hermes's
// r'\n---\s*\n', searched after the opening "---").
var closing = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\n---\s*\n`) })

// Doc is a parsed SKILL.md.
type Doc struct {
	// Front is the front matter as YAML decoded it (empty when the file
	// has none).
	Front map[string]any
	// Body is the Markdown after the front matter (the whole text when
	// there is none).
	Body string
}

// String returns the front matter value key as text, or "".
func (d Doc) String(key string) string {
	v, ok := d.Front[key]
	if !ok || v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// Parse parses a SKILL.md leniently, as hermes's parse_frontmatter does for
// discovery: a leading byte order mark is dropped; text that does not start
// with "---" or whose front matter is never closed is all body; front matter
// that is not valid YAML is read as "key: value" lines. The error, when not
// nil, says what was wrong with the front matter; Doc is usable either way.
func Parse(content string) (Doc, error) {
	content = strings.TrimPrefix(content, "\ufeff")
	if !strings.HasPrefix(content, "---") {
		return Doc{Front: map[string]any{}, Body: content}, nil
	}
	loc := closing().FindStringIndex(content[3:])
	if loc == nil {
		return Doc{Front: map[string]any{}, Body: content}, fmt.Errorf("front matter is not closed: add a line '---' after it")
	}
	raw := content[3 : loc[0]+3]
	body := content[loc[1]+3:]
	var front map[string]any
	if err := yaml.Unmarshal([]byte(raw), &front); err != nil {
		front = map[string]any{}
		for _, line := range strings.Split(strings.TrimSpace(raw), "\n") {
			k, v, ok := strings.Cut(line, ":")
			if ok {
				front[strings.TrimSpace(k)] = strings.TrimSpace(v)
			}
		}
		return Doc{Front: front, Body: body}, fmt.Errorf("front matter is not valid YAML (%s); read as key: value lines", yamlMessage(err))
	}
	if front == nil {
		front = map[string]any{}
	}
	return Doc{Front: front, Body: body}, nil
}

// yamlMessage shortens a yaml.v3 error to its message.
func yamlMessage(err error) string {
	return strings.TrimPrefix(err.Error(), "yaml: ")
}

// Validate checks a SKILL.md the agent is about to write, as hermes's
// _validate_frontmatter does, and returns hermes's message for the first
// problem, or "" when it is fine: not empty, front matter opened and closed,
// a YAML mapping with name and description, a description of at most
// MaxDescriptionLength characters, a body after it, and nothing the shared
// threat scan finds (hermes's refusal naming the pattern).
func Validate(content string) string {
	if strings.TrimSpace(content) == "" {
		return "Content cannot be empty."
	}
	content = strings.TrimLeft(content, "\ufeff")
	if !strings.HasPrefix(content, "---") {
		return "SKILL.md must start with YAML frontmatter (---). See existing skills for format."
	}
	loc := closing().FindStringIndex(content[3:])
	if loc == nil {
		return "SKILL.md frontmatter is not closed. Ensure you have a closing '---' line."
	}
	var parsed any
	if err := yaml.Unmarshal([]byte(content[3:loc[0]+3]), &parsed); err != nil {
		return "YAML frontmatter parse error: " + yamlMessage(err)
	}
	front, ok := parsed.(map[string]any)
	if !ok {
		return "Frontmatter must be a YAML mapping (key: value pairs)."
	}
	if _, ok := front["name"]; !ok {
		return "Frontmatter must include 'name' field."
	}
	desc, ok := front["description"]
	if !ok {
		return "Frontmatter must include 'description' field."
	}
	if utf8.RuneCountInString(pyStr(desc)) > MaxDescriptionLength {
		return fmt.Sprintf("Description exceeds %d characters.", MaxDescriptionLength)
	}
	if strings.TrimSpace(content[loc[1]+3:]) == "" {
		return "SKILL.md must have content after the frontmatter (instructions, procedures, etc.)."
	}
	// Its name and description reach every later session's system prompt
	// and its body the model: the same threat scan as AGENTS.md.
	return threat.Check(content, threat.Context)
}

// pyStr renders a YAML value as Python's str() would for the common cases.
func pyStr(v any) string {
	switch v := v.(type) {
	case nil:
		return "None"
	case string:
		return v
	}
	return fmt.Sprint(v)
}

// ValidateSize returns hermes's message when content, the text of label,
// is over MaxContentChars characters, else "".
func ValidateSize(content, label string) string {
	n := utf8.RuneCountInString(content)
	if n <= MaxContentChars {
		return ""
	}
	return fmt.Sprintf("%s content is %s characters (limit: %s). Consider splitting into a smaller SKILL.md with supporting files in references/ or templates/.",
		label, pyfmt.Commas(int64(n)), pyfmt.Commas(int64(MaxContentChars)))
}

// ValidateName returns hermes's message when name is not a valid skill name,
// else "".
func ValidateName(name string) string {
	switch {
	case name == "":
		return "Skill name is required."
	case len(name) > MaxNameLength:
		return fmt.Sprintf("Skill name exceeds %d characters.", MaxNameLength)
	case !validName().MatchString(name):
		return fmt.Sprintf("Invalid skill name '%s'. Use lowercase letters, numbers, hyphens, dots, and underscores. Must start with a letter or digit.", name)
	}
	return ""
}

// ValidateCategory returns hermes's message when category (already trimmed;
// "" means none) is not a single valid folder name, else "".
func ValidateCategory(category string) string {
	if category == "" {
		return ""
	}
	bad := fmt.Sprintf("Invalid category '%s'. Use lowercase letters, numbers, hyphens, dots, and underscores. Categories must be a single directory name.", category)
	switch {
	case strings.ContainsAny(category, `/\`):
		return bad
	case len(category) > MaxNameLength:
		return fmt.Sprintf("Category exceeds %d characters.", MaxNameLength)
	case !validName().MatchString(category):
		return bad
	}
	return ""
}

// ValidateFilePath checks the file_path of write_file, remove_file and
// patch, as hermes's _validate_file_path does: no ".." component, no
// absolute path, and either SKILL.md ("SKILL.md" or "<name>/SKILL.md") or a
// file below one of SupportDirs. It returns hermes's message, or "".
func ValidateFilePath(filePath string) string {
	if filePath == "" {
		return "file_path is required."
	}
	if hasTraversal(filePath) {
		return "Path traversal ('..') is not allowed."
	}
	if isAbsolute(filePath) {
		return fmt.Sprintf("File must be under one of: %s. Got: '%s'", strings.Join(sortedSupport(), ", "), filePath)
	}
	parts := splitPath(filePath)
	if len(parts) > 0 && parts[len(parts)-1] == FileName && len(parts) <= 2 {
		return ""
	}
	if len(parts) == 0 || !isSupportDir(parts[0]) {
		return fmt.Sprintf("File must be under one of: %s. Got: '%s'", strings.Join(sortedSupport(), ", "), filePath)
	}
	if len(parts) < 2 {
		return fmt.Sprintf("Provide a file path, not just a directory. Example: '%s/myfile.md'", parts[0])
	}
	return ""
}

// CleanFilePath returns the slash path, relative to the skill folder, that
// a valid file_path names: "SKILL.md" for both spellings of the main file.
func CleanFilePath(filePath string) string {
	parts := splitPath(filePath)
	if len(parts) > 0 && parts[len(parts)-1] == FileName && len(parts) <= 2 {
		return FileName
	}
	return strings.Join(parts, "/")
}

// hasTraversal reports a ".." component in either separator's spelling.
func hasTraversal(p string) bool {
	for _, c := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if c == ".." {
			return true
		}
	}
	return false
}

// isAbsolute reports a POSIX or Windows absolute path or a drive letter.
func isAbsolute(p string) bool {
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) {
		return true
	}
	return len(p) >= 2 && p[1] == ':' && (p[0] >= 'a' && p[0] <= 'z' || p[0] >= 'A' && p[0] <= 'Z')
}

// splitPath splits a relative path into its components, dropping empty and
// "." ones (Python's Path does the same).
func splitPath(p string) []string {
	var out []string
	for _, c := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == '\\' }) {
		if c != "." {
			out = append(out, c)
		}
	}
	return out
}

func isSupportDir(s string) bool {
	for _, d := range SupportDirs {
		if d == s {
			return true
		}
	}
	return false
}

// sortedSupport is SupportDirs in hermes's message order (sorted).
func sortedSupport() []string {
	return []string{"assets", "references", "scripts", "templates"}
}
