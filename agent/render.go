package agent

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/hermes-acp/hermes-acp/acp"
)

// maxRendered caps the text of a tool call's completion content.
const maxRendered = 5000

// polishedTools have their own completion formatter (hermes's "polished"
// tools); their failures are detected from an "error" without "content".
var polishedTools = map[string]bool{
	"read_file": true, "write_file": true, "patch": true, "search_files": true,
	"terminal": true, "process": true, "todo": true, "memory": true, "session_search": true,
	"delegate_task": true, "skill_view": true, "skills_list": true, "web_search": true,
	"web_extract": true, "execute_code": true, "vision_analyze": true,
}

func polished(name string) bool {
	return polishedTools[name] || strings.HasPrefix(name, "browser_")
}

// firstJSON parses a result that is JSON, or JSON followed by a trailer
// (search_files appends a "[Hint: …]" after the object).
func firstJSON(result string) (map[string]any, bool) {
	dec := json.NewDecoder(strings.NewReader(result))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, false
	}
	return m, true
}

func looksJSON(s string) bool {
	_, ok := firstJSON(s)
	return ok
}

// toolFailed applies hermes's failure rules to a result.
func toolFailed(name, result string) bool {
	if strings.HasPrefix(result, "Error executing tool '") {
		return true
	}
	m, ok := firstJSON(result)
	if !ok {
		return false
	}
	if v, ok := m["success"].(bool); ok && !v {
		return true
	}
	if v, ok := m["ok"].(bool); ok && !v {
		return true
	}
	for _, k := range []string{"exit_code", "returncode"} {
		if n, ok := m[k].(json.Number); ok {
			if i, err := n.Int64(); err == nil && i != 0 {
				return true
			}
		}
	}
	if polished(name) {
		_, hasErr := m["error"]
		_, hasContent := m["content"]
		return hasErr && !hasContent
	}
	return false
}

// completionContent renders a tool result for the editor.
func completionContent(name string, args map[string]any, result string) []acp.ToolCallContent {
	text := renderResult(name, args, result)
	if text == "" {
		return nil
	}
	if len(text) > maxRendered {
		text = text[:maxRendered] + fmt.Sprintf("\n\n... (%d chars total, truncated)", len(text))
	}
	return []acp.ToolCallContent{acp.TextContentItem(text)}
}

func renderResult(name string, args map[string]any, result string) string {
	m, isJSON := firstJSON(result)
	if isJSON {
		if e, ok := m["error"].(string); ok && m["content"] == nil {
			return "❌ " + e
		}
	}
	switch name {
	case "read_file":
		if isJSON {
			return renderRead(args, m)
		}
	case "search_files":
		if isJSON {
			return renderSearch(m)
		}
	case "write_file", "patch":
		if isJSON {
			return renderWrite(name, args, m)
		}
	case "todo":
		if isJSON {
			return renderTodos(m)
		}
	case "memory":
		if isJSON {
			return renderBullets(m, map[string]bool{"entries": true, "content": true})
		}
	case "skill_view":
		if isJSON {
			return renderSkill(m)
		}
	case "web_extract":
		return ""
	case "terminal":
		if isJSON {
			return renderTerminal(m)
		}
	}
	if isJSON {
		return renderBullets(m, nil)
	}
	return result
}

// fence returns a backtick fence longer than any run in s.
func fence(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

func renderRead(args map[string]any, m map[string]any) string {
	content, _ := m["content"].(string)
	var b strings.Builder
	fmt.Fprintf(&b, "Read %s", str(args, "path"))
	offset, hasOff := intArg(args["offset"])
	limit, hasLim := intArg(args["limit"])
	switch {
	case hasOff && hasLim:
		fmt.Fprintf(&b, " (from line %d, limit %d)", offset, limit)
	case hasOff:
		fmt.Fprintf(&b, " (from line %d)", offset)
	case hasLim:
		fmt.Fprintf(&b, " (limit %d)", limit)
	}
	if n, ok := m["total_lines"].(json.Number); ok {
		fmt.Fprintf(&b, " — %s total lines", n)
	}
	if content != "" {
		f := fence(content)
		fmt.Fprintf(&b, "\n\n%s\n%s\n%s", f, content, f)
	}
	if h, ok := m["hint"].(string); ok && h != "" {
		b.WriteString("\n\n" + h)
	}
	return b.String()
}

func renderSearch(m map[string]any) string {
	var b strings.Builder
	total, _ := m["total_count"].(json.Number)
	matches, _ := m["matches"].([]any)
	files, _ := m["files"].([]any)
	switch {
	case len(matches) > 0:
		shown := min(len(matches), 12)
		fmt.Fprintf(&b, "Found %s matches; showing %d", orCount(total, len(matches)), shown)
		for _, x := range matches[:shown] {
			mm, _ := x.(map[string]any)
			fmt.Fprintf(&b, "\n- %v:%v %s", mm["path"], mm["line"], clip(strings.TrimSpace(fmt.Sprint(mm["content"])), 160))
		}
	case m["matches_text"] != nil:
		fmt.Fprintf(&b, "Found %s matches\n\n%s", orCount(total, 0), clip(fmt.Sprint(m["matches_text"]), 3000))
	case len(files) > 0:
		shown := min(len(files), 20)
		fmt.Fprintf(&b, "Found %s files; showing %d", orCount(total, len(files)), shown)
		for _, f := range files[:shown] {
			fmt.Fprintf(&b, "\n- %v", f)
		}
	default:
		fmt.Fprintf(&b, "Found %s matches", orCount(total, 0))
	}
	if t, ok := m["truncated"].(bool); ok && t {
		b.WriteString("\n\n(results truncated: refine the pattern or page with offset)")
	}
	return b.String()
}

func orCount(n json.Number, fallback int) string {
	if n != "" {
		return n.String()
	}
	return fmt.Sprint(fallback)
}

func renderWrite(name string, args map[string]any, m map[string]any) string {
	path := str(args, "path")
	if p, ok := m["resolved_path"].(string); ok && p != "" {
		path = p
	}
	var b strings.Builder
	if path != "" {
		fmt.Fprintf(&b, "✅ %s completed for `%s`", name, path)
	} else {
		fmt.Fprintf(&b, "✅ %s completed", name)
	}
	if n, ok := m["bytes_written"].(json.Number); ok {
		fmt.Fprintf(&b, " (%s bytes)", n)
	}
	if files, ok := m["files_modified"].([]any); ok && len(files) > 1 {
		fmt.Fprintf(&b, "\nFiles: %d", len(files))
	}
	if lint, ok := m["lint"].(map[string]any); ok {
		if st, _ := lint["status"].(string); st == "error" {
			fmt.Fprintf(&b, "\n\n⚠️ Lint: %v", lint["output"])
		}
	}
	if w, ok := m["_warning"].(string); ok && w != "" {
		b.WriteString("\n\n⚠️ " + w)
	}
	return b.String()
}

func renderTerminal(m map[string]any) string {
	out, _ := m["output"].(string)
	code := fmt.Sprint(m["exit_code"])
	f := fence(out)
	s := fmt.Sprintf("Exit code: %s", code)
	if out != "" {
		s += fmt.Sprintf("\n\n%s\n%s\n%s", f, out, f)
	}
	return s
}

func renderSkill(m map[string]any) string {
	content, _ := m["content"].(string)
	var heads []string
	for _, line := range strings.Split(content, "\n") {
		if strings.HasPrefix(line, "#") {
			heads = append(heads, line)
		}
	}
	s := fmt.Sprintf("Skill %v", m["name"])
	if len(heads) > 0 {
		s += "\n\n" + strings.Join(heads, "\n")
	}
	return s
}

// renderBullets renders an object as a bullet list, skipping hidden keys and
// underscore keys.
func renderBullets(m map[string]any, hide map[string]bool) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		if !hide[k] && !strings.HasPrefix(k, "_") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		v := m[k]
		var s string
		switch x := v.(type) {
		case string:
			s = x
		default:
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			if enc.Encode(x) == nil {
				s = strings.TrimSpace(buf.String())
			}
		}
		fmt.Fprintf(&b, "- **%s**: %s\n", k, clip(s, 400))
	}
	return strings.TrimSpace(b.String())
}
