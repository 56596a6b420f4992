package model

import (
	"context"
	"encoding/json"
)

// Role is the author of a [Message]: "system", "user", "assistant" or
// "tool".
type Role string

// The roles a [Message] can have.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Message is one entry of a conversation. The caller owns it; providers
// never modify the messages of a [Request].
type Message struct {
	Role Role
	// Content is the text of the message. For user messages with several
	// text parts it is the parts joined; for tool messages it is the tool's
	// result.
	Content string
	// Images are attached to user messages and sent as image_url parts with
	// data: URLs.
	Images []Image
	// Thought is the reasoning an assistant produced before its answer. It
	// is kept for history and replay and is not sent back to the model.
	Thought string
	// Reasoning holds an assistant's signed (or redacted) thinking blocks
	// exactly as the Anthropic provider received them; that provider sends
	// them back unchanged, as the Messages API requires during tool use.
	// Other providers ignore them.
	Reasoning []ReasoningBlock
	// ToolCalls are the calls an assistant message asks for.
	ToolCalls []ToolCall
	// ToolCallID links a tool message to the call it answers.
	ToolCallID string
	// Name is the tool's name on tool messages.
	Name string
	// IsError marks a tool message whose call failed (the tool's own
	// verdict), for replay and for providers that tell the model.
	IsError bool
	// ID and Display belong to the agent and are never sent to a model:
	// ID identifies the message to the editor (the ACP messageId of its
	// chunks, where a fork may start), and Display is how the editor was
	// shown what the message stands for (a tool call's card), in the
	// agent's own encoding, so that a reloaded session looks as it did.
	ID      string
	Display json.RawMessage
}

// ReasoningBlock is one thinking block of an Anthropic reply: either a
// thinking text with the signature that authenticates it, or a redacted
// block whose opaque Data must be passed back untouched.
type ReasoningBlock struct {
	Thinking  string `json:"thinking,omitempty"`
	Signature string `json:"signature,omitempty"`
	Redacted  string `json:"redacted,omitempty"` // the data of a redacted_thinking block
}

// Image is an image attached to a user message.
type Image struct {
	MIMEType string // for example "image/png"
	Data     []byte // the raw image bytes
}

// ToolCall is one tool invocation requested by the model.
type ToolCall struct {
	ID   string // the provider's call id, echoed back in the tool message
	Name string // the tool's name
	// Arguments is the raw JSON text the model produced. It is passed on
	// verbatim and may be invalid JSON; the caller validates it.
	Arguments string
}

// ToolDef describes a tool the model may call.
type ToolDef struct {
	Name        string
	Description string
	// Parameters is the JSON Schema of the arguments object. Nil is sent as
	// an object schema without properties.
	Parameters map[string]any
	// ParametersJSON, when set, is Parameters already encoded as valid JSON
	// (the registry encodes each schema once per process): the OpenAI
	// provider sends it as is instead of encoding Parameters on every
	// request.
	ParametersJSON json.RawMessage
}

// Request is one model call: the whole conversation so far and the tools on
// offer.
type Request struct {
	// Model overrides Config.Model for this call when not empty.
	Model    string
	Messages []Message
	Tools    []ToolDef
	// MaxTokens caps the reply's length; 0 leaves it to the server. The
	// OpenAI-compatible provider sends it as max_tokens, which vLLM,
	// llama.cpp, Ollama, DeepSeek, OpenRouter and LM Studio all accept, and
	// as max_completion_tokens when the base URL is api.openai.com, whose
	// reasoning models reject max_tokens.
	MaxTokens int
}

// Delta is one streamed piece of a reply: exactly one field is non-empty.
type Delta struct {
	Text    string // a piece of the answer
	Thought string // a piece of the model's reasoning
}

// FinishReason says why the model stopped.
type FinishReason string

// The reasons a reply can end with.
const (
	// Stop means the model finished its answer.
	Stop FinishReason = "stop"
	// ToolCalls means the model wants the tools in Reply.ToolCalls run.
	ToolCalls FinishReason = "tool_calls"
	// Length means the reply hit MaxTokens or the context limit.
	Length FinishReason = "length"
	// ContentFilter means the server withheld (part of) the reply, or the
	// model refused to answer (Anthropic's "refusal").
	ContentFilter FinishReason = "content_filter"
)

// Usage counts the tokens of one model call. Zero means unknown.
type Usage struct {
	InputTokens      int // prompt tokens, including cached ones
	OutputTokens     int // completion tokens, including reasoning
	TotalTokens      int
	ThoughtTokens    int // reasoning tokens, part of OutputTokens
	CachedReadTokens int // prompt tokens served from the server's cache
	// CacheWriteTokens are prompt tokens written to the server's cache
	// (Anthropic's cache_creation_input_tokens), part of InputTokens.
	CacheWriteTokens int
}

// CacheHitRatio is the share of the prompt read from the server's cache,
// from 0 to 1, or -1 when the server reported no input tokens.
func (u Usage) CacheHitRatio() float64 {
	if u.InputTokens <= 0 {
		return -1
	}
	return float64(u.CachedReadTokens) / float64(u.InputTokens)
}

// Reply is the assembled result of one model call.
type Reply struct {
	Text    string // the answer, all text deltas joined
	Thought string // the reasoning, all thought deltas joined
	// Reasoning is the reply's signed and redacted thinking blocks, in
	// order (Anthropic only); keep them in the history's assistant message.
	Reasoning []ReasoningBlock
	ToolCalls []ToolCall
	// FinishReason is always set on a returned reply. It is ToolCalls
	// whenever ToolCalls is not empty, even when a server said "stop".
	FinishReason FinishReason
	Usage        Usage
}

// Provider is one model backend. It is safe for concurrent use by several
// sessions.
type Provider interface {
	// Stream sends req and calls emit for every text or reasoning delta as
	// it arrives (emit is never called concurrently, and never after Stream
	// returns), then returns the assembled reply. On error the reply is
	// nil: failures the user can act on are [*Error]; cancellation of ctx
	// returns promptly with ctx.Err() wrapped, after closing the HTTP
	// stream.
	Stream(ctx context.Context, req Request, emit func(Delta)) (*Reply, error)
	// Name identifies the backend: "openai-compatible", "anthropic",
	// "script", or for a [Router] the backend of its default model.
	Name() string
}
