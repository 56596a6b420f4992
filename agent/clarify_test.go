package agent_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/model"
)

// formCaps advertise form elicitation.
var formCaps = acp.ClientCapabilities{Elicitation: &acp.ElicitationCapabilities{Form: &acp.Marker{}}}

// toolNamesOf lists the tools a model request offered.
func toolNamesOf(req model.Request) []string {
	var out []string
	for _, d := range req.Tools {
		out = append(out, d.Name)
	}
	return out
}

// clarifyModel asks one clarify question (args), then ends the turn.
func clarifyModel(args string) *fakeModel {
	return &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		if n == 0 {
			return toolReply(model.ToolCall{ID: "c1", Name: "clarify", Arguments: args}), nil
		}
		return textReply("thanks", emit), nil
	}}
}

// TestClarifyThroughForm: the clarify tool asks through a form-mode
// elicitation/create tied to the tool call (hermes's form: the choices,
// the first recommended and selected, then "Other" with a text field), and
// what the user does — pick a choice, type their own, decline, cancel —
// reaches the model as hermes's result. No permission request is made.
func TestClarifyThroughForm(t *testing.T) {
	t.Parallel()
	args := `{"question":"Which approach?","choices":["Strict",{"label":"Fallback"}]}`
	cases := []struct {
		name   string
		answer acp.CreateElicitationResponse
		want   string
	}{
		{"choice", acp.CreateElicitationResponse{Action: "accept", Content: map[string]any{"answer": "Strict (Recommended)"}}, "Strict"},
		{"other", acp.CreateElicitationResponse{Action: "accept", Content: map[string]any{"answer": "Other (type your answer)", "other_answer": " Use raw JSON-RPC "}}, "Use raw JSON-RPC"},
		{"decline", acp.CreateElicitationResponse{Action: "decline"}, "[user declined the clarification]"},
		{"cancel", acp.CreateElicitationResponse{Action: "cancel"}, "[user cancelled the clarification]"},
		{"accept without content", acp.CreateElicitationResponse{Action: "accept"}, "[clarify prompt could not be delivered]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			fm := clarifyModel(args)
			h := newHarness(t, fm, harnessOptions{
				caps: formCaps, reg: agentToolsRegistry(t), opts: agent.Options{Toolsets: []string{"todo"}},
				elicit: func(context.Context, *acp.CreateElicitationRequest) (*acp.CreateElicitationResponse, error) {
					answer := c.answer
					return &answer, nil
				},
			})
			sid := h.newSession("")
			if stop := h.prompt(sid, "ask me"); stop != acp.StopEndTurn {
				t.Fatalf("stop = %s, want end_turn", stop)
			}
			reqs := fm.requests()
			if !slices.Contains(toolNamesOf(reqs[0]), "clarify") {
				t.Errorf("tools offered %v, want clarify among them", toolNamesOf(reqs[0]))
			}
			els := h.editor.Elicitations()
			if len(els) != 1 {
				t.Fatalf("elicitations = %d, want 1", len(els))
			}
			want := acp.CreateElicitationRequest{
				SessionID: sid, ToolCallID: "c1", Message: "Which approach?", Mode: "form",
				RequestedSchema: acp.ElicitationSchema{Type: "object", Required: []string{"answer"}, Properties: map[string]acp.ElicitationProperty{
					"answer": {Type: "string", Title: "Which approach?", Enum: []string{"Strict (Recommended)", "Fallback", "Other (type your answer)"},
						Default: "Strict (Recommended)"},
					"other_answer": {Type: "string", Title: "Other answer", Description: "Fill this only if you selected Other."},
				}},
			}
			if diff := cmp.Diff(want, els[0]); diff != "" {
				t.Errorf("elicitation/create (-want +got):\n%s", diff)
			}
			var got map[string]any
			if err := json.Unmarshal([]byte(lastMessage(reqs[1]).Content), &got); err != nil {
				t.Fatalf("tool result %q: %v", lastMessage(reqs[1]).Content, err)
			}
			wantResult := map[string]any{"question": "Which approach?", "choices_offered": []any{"Strict", "Fallback"}, "user_response": c.want}
			if diff := cmp.Diff(wantResult, got); diff != "" {
				t.Errorf("the model read (-want +got):\n%s", diff)
			}
			if n := len(h.editor.Permissions()); n != 0 {
				t.Errorf("permission requests = %d, want none: clarify is not an approval", n)
			}
		})
	}
}

// TestClarifyOpenQuestion: without choices the form is one required text
// of at most 4000 characters, and the answer is what the user typed.
func TestClarifyOpenQuestion(t *testing.T) {
	t.Parallel()
	fm := clarifyModel(`{"question":"  What branch?  "}`)
	h := newHarness(t, fm, harnessOptions{
		caps: formCaps, reg: agentToolsRegistry(t), opts: agent.Options{Toolsets: []string{"todo"}},
		elicit: func(context.Context, *acp.CreateElicitationRequest) (*acp.CreateElicitationResponse, error) {
			return &acp.CreateElicitationResponse{Action: "accept", Content: map[string]any{"answer": "release-2"}}, nil
		},
	})
	sid := h.newSession("")
	h.prompt(sid, "ask me")
	els := h.editor.Elicitations()
	if len(els) != 1 {
		t.Fatalf("elicitations = %d, want 1", len(els))
	}
	answer := els[0].RequestedSchema.Properties["answer"]
	if answer.Enum != nil || answer.MinLength == nil || *answer.MinLength != 1 || answer.MaxLength == nil || *answer.MaxLength != 4000 || answer.Title != "What branch?" {
		t.Errorf("answer field = %+v, want a required text of 1 to 4000 characters titled by the question", answer)
	}
	if len(els[0].RequestedSchema.Properties) != 1 {
		t.Errorf("form fields = %v, want only answer", els[0].RequestedSchema.Properties)
	}
	want := `{"question":"What branch?","choices_offered":null,"user_response":"release-2"}`
	if got := lastMessage(fm.requests()[1]).Content; got != want {
		t.Errorf("the model read %s, want %s", got, want)
	}
}

// TestClarifyOnlyWithForms: a client that does not advertise form
// elicitation (none, or URL mode only) is not offered clarify, and a call
// of it anyway sends nothing to the editor.
func TestClarifyOnlyWithForms(t *testing.T) {
	t.Parallel()
	for name, caps := range map[string]acp.ClientCapabilities{
		"none":     {},
		"url only": {Elicitation: &acp.ElicitationCapabilities{URL: &acp.Marker{}}},
		"empty":    {Elicitation: &acp.ElicitationCapabilities{}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fm := clarifyModel(`{"question":"Which?"}`)
			h := newHarness(t, fm, harnessOptions{caps: caps, reg: agentToolsRegistry(t), opts: agent.Options{Toolsets: []string{"todo"}}})
			sid := h.newSession("")
			h.prompt(sid, "ask me")
			reqs := fm.requests()
			if slices.Contains(toolNamesOf(reqs[0]), "clarify") {
				t.Errorf("tools offered %v, want no clarify", toolNamesOf(reqs[0]))
			}
			if n := len(h.editor.Elicitations()); n != 0 {
				t.Errorf("elicitations = %d, want none", n)
			}
			if msg := lastMessage(reqs[1]); !msg.IsError {
				t.Errorf("the model read %s, want an error", msg.Content)
			}
		})
	}
}

// TestClarifyCancelledWithTurn: session/cancel while the form is open
// cancels the elicitation/create request (the editor's handler sees its
// context end: $/cancel_request), the turn ends cancelled, and the next
// turn runs normally.
func TestClarifyCancelledWithTurn(t *testing.T) {
	t.Parallel()
	fm := &fakeModel{reply: func(ctx context.Context, n int, req model.Request, emit func(model.Delta)) (*model.Reply, error) {
		if n == 0 {
			return toolReply(model.ToolCall{ID: "c1", Name: "clarify", Arguments: `{"question":"Which?","choices":["a","b"]}`}), nil
		}
		return textReply("next turn", emit), nil
	}}
	opened, withdrawn := make(chan struct{}), make(chan struct{})
	h := newHarness(t, fm, harnessOptions{
		caps: formCaps, reg: agentToolsRegistry(t), opts: agent.Options{Toolsets: []string{"todo"}},
		elicit: func(ctx context.Context, _ *acp.CreateElicitationRequest) (*acp.CreateElicitationResponse, error) {
			close(opened)
			<-ctx.Done()
			close(withdrawn)
			return nil, ctx.Err()
		},
	})
	sid := h.newSession("")
	result := make(chan acp.StopReason, 1)
	go func() { result <- h.prompt(sid, "ask me") }()
	select {
	case <-opened:
	case <-h.ctx().Done():
		t.Fatal("the form never opened")
	}
	if err := h.editor.Cancel(sid); err != nil {
		t.Fatal(err)
	}
	if stop := <-result; stop != acp.StopCancelled {
		t.Fatalf("stop = %s, want cancelled", stop)
	}
	select {
	case <-withdrawn:
	case <-h.ctx().Done():
		t.Fatal("the editor's form was never withdrawn ($/cancel_request)")
	}
	if len(fm.requests()) != 1 {
		t.Errorf("model requests after the cancel = %d, want none", len(fm.requests())-1)
	}
	if stop := h.prompt(sid, "again"); stop != acp.StopEndTurn {
		t.Errorf("next turn: stop = %s, want end_turn", stop)
	}
}
