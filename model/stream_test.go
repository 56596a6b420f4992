package model

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// toolDelta is one tool-call delta as a server sends it.
type toolDelta struct {
	index    int64
	hasIndex bool
	id, name string
	args     string
}

func TestAssemblerToolCalls(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		deltas []toolDelta
		finish string
		want   []ToolCall
	}{
		{
			name: "OpenAI: id and name first, then argument pieces",
			deltas: []toolDelta{
				{0, true, "call_1", "read_file", ""},
				{0, true, "", "", `{"pa`},
				{0, true, "", "", `th":"a"}`},
				{1, true, "call_2", "echo", ""},
				{1, true, "", "", `{"text":"b"}`},
			},
			finish: "tool_calls",
			want:   []ToolCall{{"call_1", "read_file", `{"path":"a"}`}, {"call_2", "echo", `{"text":"b"}`}},
		},
		{
			name: "interleaved indexes",
			deltas: []toolDelta{
				{0, true, "a", "x", ""}, {1, true, "b", "y", ""},
				{0, true, "", "", "{"}, {1, true, "", "", "["},
				{0, true, "", "", "}"}, {1, true, "", "", "]"},
			},
			want: []ToolCall{{"a", "x", "{}"}, {"b", "y", "[]"}},
		},
		{
			name: "id and name repeated in every delta",
			deltas: []toolDelta{
				{0, true, "a", "echo", `{"t`}, {0, true, "a", "echo", `":1}`},
			},
			want: []ToolCall{{"a", "echo", `{"t":1}`}},
		},
		{
			name: "no index",
			deltas: []toolDelta{
				{0, false, "a", "echo", `{"t`}, {0, false, "", "", `":1}`},
				{0, false, "b", "list", `{}`},
			},
			want: []ToolCall{{"a", "echo", `{"t":1}`}, {"b", "list", `{}`}},
		},
		{
			name: "whole calls reusing index 0",
			deltas: []toolDelta{
				{0, true, "a", "echo", `{"t":1}`}, {0, true, "b", "echo", `{"t":2}`},
			},
			want: []ToolCall{{"a", "echo", `{"t":1}`}, {"b", "echo", `{"t":2}`}},
		},
		{
			name:   "name streamed in pieces",
			deltas: []toolDelta{{0, true, "a", "read_", ""}, {0, true, "", "file", "{}"}},
			want:   []ToolCall{{"a", "read_file", "{}"}},
		},
		{
			name:   "sparse indexes",
			deltas: []toolDelta{{3, true, "a", "x", "{}"}, {7, true, "b", "y", "{}"}},
			want:   []ToolCall{{"a", "x", "{}"}, {"b", "y", "{}"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var a assembler
			for _, d := range tc.deltas {
				a.toolCall(d.index, d.hasIndex, d.id, d.name, d.args)
			}
			a.finish = tc.finish
			got := a.reply()
			if diff := cmp.Diff(tc.want, got.ToolCalls); diff != "" {
				t.Errorf("tool calls (-want +got):\n%s", diff)
			}
			if got.FinishReason != ToolCalls {
				t.Errorf("FinishReason = %q, want %q", got.FinishReason, ToolCalls)
			}
		})
	}
}

func TestAssemblerGeneratesMissingIDs(t *testing.T) {
	t.Parallel()
	var a assembler
	a.toolCall(0, true, "", "x", "{}")
	a.toolCall(1, true, "", "y", "{}")
	calls := a.reply().ToolCalls
	if len(calls) != 2 || !strings.HasPrefix(calls[0].ID, "call_") || calls[0].ID == calls[1].ID {
		t.Errorf("generated ids = %+v, want two distinct call_ ids", calls)
	}
}

func TestMapFinish(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		reason   string
		hasCalls bool
		want     FinishReason
	}{
		{"stop", false, Stop},
		{"", false, Stop},
		{"stop", true, ToolCalls},
		{"", true, ToolCalls},
		{"tool_calls", true, ToolCalls},
		{"function_call", true, ToolCalls},
		{"length", false, Length},
		{"length", true, Length},
		{"max_tokens", false, Length},
		{"content_filter", false, ContentFilter},
		{"eos", false, Stop},
	} {
		if got := mapFinish(tc.reason, tc.hasCalls); got != tc.want {
			t.Errorf("mapFinish(%q, %v) = %q, want %q", tc.reason, tc.hasCalls, got, tc.want)
		}
	}
}

func TestSplitWords(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"one", []string{"one"}},
		{"Hello! I am hermes-acp.", []string{"Hello! ", "I ", "am ", "hermes-acp."}},
		{"  lead\n\nnext  ", []string{"  ", "lead\n\n", "next  "}},
		{"héllo wörld", []string{"héllo ", "wörld"}},
	} {
		got := splitWords(tc.in)
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("splitWords(%q) (-want +got):\n%s", tc.in, diff)
		}
		if strings.Join(got, "") != tc.in {
			t.Errorf("splitWords(%q) joins to %q", tc.in, strings.Join(got, ""))
		}
	}
}

func TestExcerpt(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"short", "short"},
		{"\n\n  second line first  \nthird", "second line first"},
		{"Say hello to me, please, in a friendly way that is long", "Say hello to me, please, in a friendly"},
		{strings.Repeat("x", 60), strings.Repeat("x", 40)},
		{strings.Repeat("é", 60), strings.Repeat("é", 40)},
	} {
		if got := excerpt(tc.in); got != tc.want {
			t.Errorf("excerpt(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestTruncate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 5, "abc"},
		{"a\n  b", 5, "a b"},
		{"abcdef", 3, "abc…"},
		{"ééééé", 2, "éé…"},
	} {
		if got := truncate(tc.in, tc.n); got != tc.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
