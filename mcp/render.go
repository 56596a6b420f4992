package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// renderResult returns what the model reads of a tool result, as hermes
// renders it, and whether the server flagged the result an error (its
// isError). The value is the text blocks joined by newlines, other blocks
// as a short note each; for a result that is not an error and whose blocks
// render nothing, the structured content when there is some. An error
// without text reads "MCP tool returned an error". [encodeResult] turns
// the pair into the JSON the model reads.
func renderResult(res *mcpsdk.CallToolResult) (value any, isError bool) {
	var parts []string
	for _, b := range res.Content {
		switch b := b.(type) {
		case *mcpsdk.TextContent:
			parts = append(parts, b.Text)
		case *mcpsdk.ImageContent:
			parts = append(parts, fmt.Sprintf("[image: %s, %d bytes, not shown]", b.MIMEType, len(b.Data)))
		case *mcpsdk.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio: %s, %d bytes, not shown]", b.MIMEType, len(b.Data)))
		case *mcpsdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource link: %s <%s>]", b.Name, b.URI))
		case *mcpsdk.EmbeddedResource:
			switch r := b.Resource; {
			case r == nil:
			case r.Text != "":
				parts = append(parts, r.Text)
			default:
				parts = append(parts, fmt.Sprintf("[resource: %s, %s, %d bytes, not shown]", r.URI, r.MIMEType, len(r.Blob)))
			}
		}
	}
	text := strings.Join(parts, "\n")
	if res.IsError {
		if text == "" {
			text = "MCP tool returned an error"
		}
		return text, true
	}
	if text == "" && res.StructuredContent != nil {
		return res.StructuredContent, false
	}
	return text, false
}

// encodeResult is the JSON the model reads: {"error": value} for an error,
// else {"result": value}, without HTML escaping.
func encodeResult(value any, isError bool) string {
	key := "result"
	if isError {
		key = "error"
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(map[string]any{key: value}); err != nil {
		// Structured content the SDK decoded always encodes; say so if not.
		return encodeResult(fmt.Sprintf("the MCP tool's result could not be encoded: %v", err), true)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
