package mcp

import (
	"fmt"
	"strings"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hermes-acp/hermes-acp/registry"
)

// renderResult returns what the model reads of a tool result, as hermes
// renders it, and whether the server flagged the result an error (its
// isError). The value is the text blocks joined by newlines, other blocks
// as a short note each; for a result that is not an error and whose blocks
// render nothing, the structured content when there is some. An error
// without text reads "MCP tool returned an error". [toResult] turns the
// pair into the result the model reads.
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

// toResult is the result the model reads: {"error": text} for an error (the
// server's own verdict, in IsError), else {"result": value}.
func toResult(value any, isError bool) registry.Result {
	if isError {
		if text, ok := value.(string); ok {
			return registry.Error(text)
		}
		return registry.Failed(map[string]any{"error": value})
	}
	return registry.OK(map[string]any{"result": value})
}
