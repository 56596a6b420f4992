package mcp

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestRenderResult: what the model reads of each kind of MCP result, and
// whether it is an error, come from the result itself (isError), never
// from its text.
func TestRenderResult(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		res       *mcpsdk.CallToolResult
		want      any
		wantError bool
		wantJSON  string
	}{
		{
			name:     "text",
			res:      &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: "hello world"}}},
			want:     "hello world",
			wantJSON: `{"result":"hello world"}`,
		},
		{
			name: "text blocks joined by newlines",
			res: &mcpsdk.CallToolResult{Content: []mcpsdk.Content{
				&mcpsdk.TextContent{Text: "first"}, &mcpsdk.TextContent{Text: "second"},
			}},
			want:     "first\nsecond",
			wantJSON: `{"result":"first\nsecond"}`,
		},
		{
			name: "image and audio are described, not shown",
			res: &mcpsdk.CallToolResult{Content: []mcpsdk.Content{
				&mcpsdk.TextContent{Text: "a red dot"},
				&mcpsdk.ImageContent{MIMEType: "image/png", Data: []byte{1, 2, 3, 4}},
				&mcpsdk.AudioContent{MIMEType: "audio/wav", Data: make([]byte, 10)},
			}},
			want:     "a red dot\n[image: image/png, 4 bytes, not shown]\n[audio: audio/wav, 10 bytes, not shown]",
			wantJSON: `{"result":"a red dot\n[image: image/png, 4 bytes, not shown]\n[audio: audio/wav, 10 bytes, not shown]"}`,
		},
		{
			name: "resources: a link, text inline, a blob described, an empty one skipped",
			res: &mcpsdk.CallToolResult{Content: []mcpsdk.Content{
				&mcpsdk.ResourceLink{Name: "readme", URI: "file:///r/README.md"},
				&mcpsdk.EmbeddedResource{Resource: &mcpsdk.ResourceContents{URI: "file:///r/a.txt", Text: "inline text"}},
				&mcpsdk.EmbeddedResource{Resource: &mcpsdk.ResourceContents{URI: "file:///r/b.bin", MIMEType: "application/octet-stream", Blob: make([]byte, 7)}},
				&mcpsdk.EmbeddedResource{},
			}},
			want: "[resource link: readme <file:///r/README.md>]\ninline text\n[resource: file:///r/b.bin, application/octet-stream, 7 bytes, not shown]",
		},
		{
			name:     "structured content when the blocks render nothing",
			res:      &mcpsdk.CallToolResult{StructuredContent: map[string]any{"x": 1, "y": 2}},
			want:     map[string]any{"x": 1, "y": 2},
			wantJSON: `{"result":{"x":1,"y":2}}`,
		},
		{
			name: "text wins over structured content",
			res: &mcpsdk.CallToolResult{
				Content:           []mcpsdk.Content{&mcpsdk.TextContent{Text: `{"x":1}`}},
				StructuredContent: map[string]any{"x": 1},
			},
			want:     `{"x":1}`,
			wantJSON: `{"result":"{\"x\":1}"}`,
		},
		{
			name:      "error",
			res:       &mcpsdk.CallToolResult{IsError: true, Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: "file not found"}}},
			want:      "file not found",
			wantError: true,
			wantJSON:  `{"error":"file not found"}`,
		},
		{
			name:      "error without text",
			res:       &mcpsdk.CallToolResult{IsError: true, StructuredContent: map[string]any{"code": 3}},
			want:      "MCP tool returned an error",
			wantError: true,
			wantJSON:  `{"error":"MCP tool returned an error"}`,
		},
		{
			// A successful result that talks about errors is not one.
			name:     "text saying error",
			res:      &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: `{"error": "none"}`}}},
			want:     `{"error": "none"}`,
			wantJSON: `{"result":"{\"error\": \"none\"}"}`,
		},
		{
			name:     "empty",
			res:      &mcpsdk.CallToolResult{},
			want:     "",
			wantJSON: `{"result":""}`,
		},
		{
			name:     "no HTML escaping",
			res:      &mcpsdk.CallToolResult{Content: []mcpsdk.Content{&mcpsdk.TextContent{Text: "<a> & b"}}},
			want:     "<a> & b",
			wantJSON: `{"result":"<a> & b"}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, isError := renderResult(tc.res)
			if diff := cmp.Diff(tc.want, got); diff != "" || isError != tc.wantError {
				t.Errorf("renderResult = %#v, %v; want %#v, %v (-want +got):\n%s", got, isError, tc.want, tc.wantError, diff)
			}
			if tc.wantJSON == "" {
				return
			}
			r := toResult(renderResult(tc.res))
			if got := r.Encode(); got != tc.wantJSON || r.IsError != tc.wantError {
				t.Errorf("toResult = %s (IsError %v), want %s (IsError %v)", got, r.IsError, tc.wantJSON, tc.wantError)
			}
		})
	}
}

func TestToResultUnencodable(t *testing.T) {
	t.Parallel()
	// The registry's encoder turns what JSON cannot hold into an error the
	// model reads; the pipeline then counts the call as failed.
	got := toResult(map[string]any{"f": func() {}}, false).Encode()
	if want := `{"error":"encode result: encode json: json: unsupported type: func()"}`; got != want {
		t.Errorf("toResult(...).Encode() = %s, want %s", got, want)
	}
}
