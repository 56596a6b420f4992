package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/registry"
)

// clarify is hermes-agent's clarify tool (tools/clarify_tool.py) asked
// through the editor's form, as hermes's ACP adapter does it
// (acp_adapter/elicitation.py): a question, optionally with up to four
// choices (the first labelled "(Recommended)") plus "Other" with a free
// text, sent as a form-mode elicitation/create tied to the tool call. The
// answer — or the user's decline or cancel — goes back to the model as the
// tool's result; a cancelled turn takes the form down ($/cancel_request)
// and cancels the call. It is offered only to clients that advertise form
// elicitation (the session then enables the clarify toolset); approvals
// stay session/request_permission.

// clarifyName is the tool's name and its toolset's.
const clarifyName = "clarify"

// Limits and texts of hermes's clarify tool and its ACP form.
const (
	maxClarifyChoices  = 4                          // MAX_CHOICES; a 5th "Other" is added
	maxClarifyAnswer   = 4000                       // an open-ended answer's maxLength
	clarifyTimeout     = 120 * time.Second          // the adapter's callback timeout
	clarifyOther       = "Other (type your answer)" // OTHER_LABEL
	clarifyRecommended = "(Recommended)"            // RECOMMENDED_LABEL
	clarifyDeclined    = "[user declined the clarification]"
	clarifyCancelled   = "[user cancelled the clarification]"
	clarifyUndelivered = "[clarify prompt could not be delivered]"
)

//go:embed clarify.md
var clarifyDescription string

// errNoForms is why a session of a client without forms has no clarify.
var errNoForms = errors.New("the editor does not show forms (clientCapabilities.elicitation.form)")

// clarifyParams are the tool's arguments. A choice may come as an object
// ({"label": …}) or a JSON string of one; see flattenChoice.
type clarifyParams struct {
	Question string `json:"question"`
	Choices  []any  `json:"choices"`
}

// clarifyResult is hermes's result: the question, the choices offered
// (null for an open question) and the user's answer or a bracketed note
// of why there is none.
type clarifyResult struct {
	Question       string   `json:"question"`
	ChoicesOffered []string `json:"choices_offered"`
	UserResponse   string   `json:"user_response"`
}

func clarifyEntry() registry.Entry {
	return registry.Entry{
		Name:        clarifyName,
		Toolset:     clarifyName,
		Emoji:       "❓",
		Description: strings.TrimSpace(clarifyDescription),
		Schema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"question": map[string]any{
					"type": "string",
					"description": "The question itself, and ONLY the question (e.g. 'Which deployment target?'). " +
						"Do NOT embed the answer options here — pass them as separate elements in `choices`.",
				},
				"choices": map[string]any{
					"type":     "array",
					"items":    map[string]any{"type": "string"},
					"maxItems": maxClarifyChoices,
					"description": "REQUIRED whenever you are presenting selectable options: each distinct option is its own " +
						"array element (up to 4). ORDER MATTERS: put the option you actually recommend FIRST — the form labels " +
						"it '(Recommended)' and pre-selects it. Do not write '(Recommended)' yourself. The form adds an " +
						"'Other (type your answer)' option. Omit this parameter entirely ONLY for a genuinely open-ended question.",
				},
			},
			"required": []any{"question"},
		},
		Kind:     registry.KindOther,
		ReadOnly: true, // it only asks: plan mode runs it
		Title:    clarifyTitle,
		Preview:  clarifyPreview,
		Render:   clarifyRender,
	}
}

// clarifyTool is the clarify entry bound to session s: available while the
// client shows forms.
func (s *Session) clarifyTool() registry.Entry {
	e := clarifyEntry()
	e.Check = registry.NewCheck(func() error {
		if !s.client.Capabilities().FormElicitation() {
			return errNoForms
		}
		return nil
	})
	e.Handler = func(ctx context.Context, call *registry.Call) (registry.Result, error) {
		var p clarifyParams
		if err := registry.DecodeArgs(call, &p); err != nil {
			return registry.Error(err.Error()), nil
		}
		return s.clarify(ctx, call.ID, p)
	}
	return e
}

// clarify asks the user through the editor's form and returns what they
// answered. The error is the turn's cancellation, nothing else.
func (s *Session) clarify(ctx context.Context, callID string, p clarifyParams) (registry.Result, error) {
	question := strings.TrimSpace(p.Question)
	if question == "" {
		return registry.Error("Question text is required."), nil
	}
	var choices []string
	for _, c := range p.Choices {
		if text := flattenChoice(c); text != "" {
			choices = append(choices, text)
		}
	}
	if len(choices) > maxClarifyChoices {
		choices = choices[:maxClarifyChoices]
	}
	if !s.client.Capabilities().FormElicitation() {
		return registry.Error("Clarify tool is not available in this execution context."), nil
	}
	cctx, cancel := context.WithTimeout(ctx, clarifyTimeout)
	defer cancel()
	res, err := s.client.CreateElicitation(cctx, clarifyForm(s.id, callID, question, choices))
	var answer string
	switch {
	case err != nil && ctx.Err() != nil:
		return registry.Result{}, ctx.Err() // the turn was cancelled; so was the form
	case err != nil && errors.Is(err, context.DeadlineExceeded):
		answer = fmt.Sprintf("[user did not respond within %dm]", int(clarifyTimeout/time.Minute))
	case err != nil:
		s.log.Warn("elicitation failed", "session", s.id, "error", err)
		answer = clarifyUndelivered
	default:
		answer = clarifyAnswer(res)
	}
	return registry.OK(clarifyResult{Question: question, ChoicesOffered: choices, UserResponse: answer}), nil
}

// clarifyForm is hermes's form: with choices, a single-select "answer"
// (the choices, the first marked recommended and selected, then "Other")
// and an "other_answer" text; without, one required text of up to 4000
// characters.
func clarifyForm(sessionID, callID, question string, choices []string) *acp.CreateElicitationRequest {
	schema := acp.ElicitationSchema{Type: "object", Required: []string{"answer"}}
	if len(choices) > 0 {
		enum := markRecommended(choices)
		first := enum[0]
		if !containsString(enum, clarifyOther) {
			enum = append(enum, clarifyOther)
		}
		schema.Properties = map[string]acp.ElicitationProperty{
			"answer":       {Type: "string", Title: question, Enum: enum, Default: first},
			"other_answer": {Type: "string", Title: "Other answer", Description: "Fill this only if you selected Other."},
		}
	} else {
		minLen, maxLen := 1, maxClarifyAnswer
		schema.Properties = map[string]acp.ElicitationProperty{
			"answer": {Type: "string", Title: question, MinLength: &minLen, MaxLength: &maxLen},
		}
	}
	return &acp.CreateElicitationRequest{
		SessionID: sessionID, ToolCallID: callID, Message: question,
		Mode: acp.ElicitationModeForm, RequestedSchema: schema,
	}
}

// clarifyAnswer turns the editor's answer into hermes's user_response.
func clarifyAnswer(res *acp.CreateElicitationResponse) string {
	switch res.Action {
	case acp.ElicitationDecline:
		return clarifyDeclined
	case acp.ElicitationCancel:
		return clarifyCancelled
	case acp.ElicitationAccept:
	default:
		return clarifyUndelivered
	}
	if res.Content == nil {
		return clarifyUndelivered
	}
	answer := strings.TrimSpace(contentString(res.Content["answer"]))
	other := strings.TrimSpace(contentString(res.Content["other_answer"]))
	if answer == clarifyOther && other != "" {
		return other
	}
	return stripRecommended(answer)
}

// contentString is a form value as text.
func contentString(v any) string {
	switch t := v.(type) {
	case nil:
		return ""
	case string:
		return t
	case []any:
		parts := make([]string, 0, len(t))
		for _, x := range t {
			parts = append(parts, contentString(x))
		}
		return strings.Join(parts, ", ")
	}
	return fmt.Sprint(v)
}

// markRecommended labels the first of two or more choices as the model's
// recommendation, unless the model labelled it itself.
func markRecommended(choices []string) []string {
	out := append([]string(nil), choices...)
	if len(out) < 2 || stripRecommended(out[0]) != strings.TrimSpace(out[0]) {
		return out
	}
	out[0] = strings.TrimSpace(out[0]) + " " + clarifyRecommended
	return out
}

// stripRecommended removes the recommendation label from an answer: the
// model asked about the bare option.
func stripRecommended(text string) string {
	text = strings.TrimSpace(text)
	if len(text) >= len(clarifyRecommended) && strings.EqualFold(text[len(text)-len(clarifyRecommended):], clarifyRecommended) {
		return strings.TrimSpace(text[:len(text)-len(clarifyRecommended)])
	}
	return text
}

// flattenChoice is a choice as the user should read it: models sometimes
// send {"label": …} objects (or a JSON string of one) instead of strings;
// their label, description, text or title is used, and an object with
// none of them is dropped.
func flattenChoice(c any) string {
	switch t := c.(type) {
	case nil:
		return ""
	case string:
		text := strings.TrimSpace(t)
		if strings.HasPrefix(text, "{") && strings.HasSuffix(text, "}") {
			var obj map[string]any
			if json.Unmarshal([]byte(text), &obj) == nil {
				return flattenChoice(obj)
			}
		}
		return text
	case map[string]any:
		for _, k := range []string{"label", "description", "text", "title"} {
			if v, ok := t[k].(string); ok && strings.TrimSpace(v) != "" {
				return strings.TrimSpace(v)
			}
		}
		return ""
	case []any:
		parts := make([]string, 0, len(t))
		for _, x := range t {
			parts = append(parts, flattenChoice(x))
		}
		return strings.TrimSpace(strings.Join(parts, " "))
	}
	return strings.TrimSpace(fmt.Sprint(c))
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// clarifyTitle is "clarify: <question>".
func clarifyTitle(args map[string]any) string {
	q := strings.Join(strings.Fields(str(args, "question")), " ")
	if q == "" {
		return clarifyName
	}
	return clarifyName + ": " + truncateRunes(q, 100)
}

// clarifyPreview lists the choices while the form is open.
func clarifyPreview(args map[string]any) string {
	list, _ := args["choices"].([]any)
	var b strings.Builder
	for i, c := range list {
		if i == maxClarifyChoices {
			break
		}
		if text := flattenChoice(c); text != "" {
			fmt.Fprintf(&b, "- %s\n", text)
		}
	}
	return strings.TrimSpace(b.String())
}

// clarifyRender shows the answer.
func clarifyRender(_ map[string]any, r registry.Result) string {
	res, ok := r.Value.(clarifyResult)
	if !ok {
		return ""
	}
	if strings.HasPrefix(res.UserResponse, "[") && strings.HasSuffix(res.UserResponse, "]") {
		return "_" + strings.Trim(res.UserResponse, "[]") + "_"
	}
	return "**Answer:** " + res.UserResponse
}
