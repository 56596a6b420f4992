package agent

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/registry"
)

// maxRendered caps the text of a tool call's completion content.
const maxRendered = 5000

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

// completion renders a finished call for the editor: a failure as "❌"
// and its message, a result the tool renders itself as it does, anything
// else generically (an object as a bullet list, text as it is).
func (t *toolCallTracker) completion(args map[string]any, out registry.Outcome) []acp.ToolCallContent {
	text := ""
	m, isJSON := firstJSON(out.Content)
	switch {
	case out.Failed:
		if e, ok := m["error"].(string); ok {
			text = "❌ " + e
		} else {
			text = "❌ " + out.Content
		}
	case t.entry.Render != nil:
		text = t.safeText("render", func() string { return t.entry.Render(args, out.Result) })
		if text == registry.NoRender {
			return nil
		}
	}
	if text == "" && !out.Failed {
		if isJSON {
			text = renderBullets(m, nil)
		} else {
			text = out.Content
		}
	}
	if text == "" {
		return withImage(nil, out.Result)
	}
	if len(text) > maxRendered {
		text = text[:maxRendered] + fmt.Sprintf("\n\n... (%d chars total, truncated)", len(text))
	}
	return withImage([]acp.ToolCallContent{acp.TextContentItem(text)}, out.Result)
}

// toolCallImage is a result's image for the editor (browser_vision's
// screenshot), carried in the result's Data.
type toolCallImage interface {
	ToolCallImage() (mime string, data []byte)
}

// withImage appends the result's image, if any, as image content.
func withImage(content []acp.ToolCallContent, r registry.Result) []acp.ToolCallContent {
	img, ok := r.Data.(toolCallImage)
	if !ok {
		return content
	}
	mime, data := img.ToolCallImage()
	if len(data) == 0 {
		return content
	}
	block := acp.ContentBlock{Image: &acp.ImageContent{Data: base64.StdEncoding.EncodeToString(data), MimeType: mime}}
	return append(content, acp.ToolCallContent{Content: &block})
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

// clip cuts s to n characters, marking the cut with "...".
func clip(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "..."
		}
		i++
	}
	return s
}

// safeText runs one of the tool's editor functions (title, preview,
// render); a panic is logged and gives "", so the call is still shown and
// completed, generically.
func (t *toolCallTracker) safeText(which string, f func() string) (text string) {
	defer func() {
		if p := recover(); p != nil {
			t.s.a.log.Error("tool editor function panicked", "tool", t.name, "function", which, "panic", fmt.Sprint(p))
			text = ""
		}
	}()
	return f()
}
