package agent

import (
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/acp"
)

// TestDisplayOfHugeEditKeepsTheCard: a card whose diff is too big to keep
// (an edit of a large file) is stored without the diff and the raw
// output, but still replays with its title, kind, status and text.
func TestDisplayOfHugeEditKeepsTheCard(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", maxDisplay)
	old := big + "a"
	updates := []acp.SessionUpdate{
		{ToolCall: &acp.ToolCall{ToolCallID: "c1", Title: "Edit big.txt", Kind: acp.KindEdit, Status: acp.StatusPending,
			Content: []acp.ToolCallContent{{Diff: &acp.Diff{Path: "/ws/big.txt", OldText: &old, NewText: big + "b"}}}}},
		{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: "c1", Status: acp.StatusCompleted, RawOutput: big,
			Content: []acp.ToolCallContent{{Diff: &acp.Diff{Path: "/ws/big.txt", OldText: &old, NewText: big + "b"}}, acp.TextContentItem("Edited big.txt")}}},
	}
	raw := encodeDisplay(updates)
	if raw == nil || len(raw) > maxDisplay {
		t.Fatalf("encodeDisplay = %d bytes, want a card under %d", len(raw), maxDisplay)
	}
	got, ok := decodeDisplay(raw)
	if !ok || len(got) != 2 || got[0].ToolCall == nil || got[1].ToolCallUpdate == nil {
		t.Fatalf("decodeDisplay = %+v, %v; want the tool_call and its completion", got, ok)
	}
	if tc := got[0].ToolCall; tc.Title != "Edit big.txt" || tc.Kind != acp.KindEdit {
		t.Errorf("replayed tool_call = %+v, want its title and kind", tc)
	}
	end := got[1].ToolCallUpdate
	if end.Status != acp.StatusCompleted || end.RawOutput != nil || len(end.Content) != 2 {
		t.Fatalf("replayed completion = %+v, want completed, no raw output, two items", end)
	}
	if d := end.Content[0]; d.Diff != nil || d.Content == nil || !strings.Contains(d.Content.Text.Text, "too large") {
		t.Errorf("the diff was kept or not explained: %+v", d)
	}
	if txt := end.Content[1].Content.Text.Text; txt != "Edited big.txt" {
		t.Errorf("the card's text = %q, want it kept", txt)
	}
	if _, ok := decodeDisplay(nil); ok {
		t.Error("decodeDisplay(nil) reports a display")
	}
}
