package modeltest

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Request is a parsed Chat Completions request, for [Options.Respond] and
// for tests that assert what a client sent.
type Request struct {
	Model               string
	Messages            []Message
	Tools               []Tool
	Stream              bool
	IncludeUsage        bool // stream_options.include_usage
	MaxTokens           int  // max_tokens
	MaxCompletionTokens int  // max_completion_tokens
	Raw                 json.RawMessage
}

// Message is one request message.
type Message struct {
	Role string
	// Content is the text: the string content, or the text parts of an
	// array content joined; null content is "".
	Content string
	// ContentNull reports that content was absent or null (as for an
	// assistant message that only calls tools).
	ContentNull bool
	Images      []string // the image_url URLs of an array content
	ToolCallID  string   // tool messages
	ToolCalls   []ToolCall
	Name        string
}

// Tool is one function tool of the request.
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage
}

// Last returns the last message, or a zero Message when there is none.
func (r Request) Last() Message {
	if len(r.Messages) == 0 {
		return Message{}
	}
	return r.Messages[len(r.Messages)-1]
}

// wire types of the request body.
type requestJSON struct {
	Model         string        `json:"model"`
	Messages      []messageJSON `json:"messages"`
	Tools         []toolJSON    `json:"tools"`
	Stream        bool          `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	MaxTokens           int `json:"max_tokens"`
	MaxCompletionTokens int `json:"max_completion_tokens"`
}

type messageJSON struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
	Name       string          `json:"name"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

type toolJSON struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

type partJSON struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL struct {
		URL string `json:"url"`
	} `json:"image_url"`
}

// ParseRequest parses a Chat Completions request body.
func ParseRequest(raw json.RawMessage) (Request, error) {
	var w requestJSON
	if err := json.Unmarshal(raw, &w); err != nil {
		return Request{}, fmt.Errorf("parse request: %w", err)
	}
	r := Request{
		Model: w.Model, Stream: w.Stream, Raw: raw,
		MaxTokens: w.MaxTokens, MaxCompletionTokens: w.MaxCompletionTokens,
		IncludeUsage: w.StreamOptions != nil && w.StreamOptions.IncludeUsage,
	}
	for i, m := range w.Messages {
		msg := Message{Role: m.Role, ToolCallID: m.ToolCallID, Name: m.Name}
		c := strings.TrimSpace(string(m.Content))
		switch {
		case c == "" || c == "null":
			msg.ContentNull = true
		case c[0] == '"':
			if err := json.Unmarshal(m.Content, &msg.Content); err != nil {
				return Request{}, fmt.Errorf("parse request: message %d content: %w", i, err)
			}
		default:
			var parts []partJSON
			if err := json.Unmarshal(m.Content, &parts); err != nil {
				return Request{}, fmt.Errorf("parse request: message %d content: %w", i, err)
			}
			var texts []string
			for _, p := range parts {
				switch p.Type {
				case "text":
					texts = append(texts, p.Text)
				case "image_url":
					msg.Images = append(msg.Images, p.ImageURL.URL)
				}
			}
			msg.Content = strings.Join(texts, "\n")
		}
		for _, tc := range m.ToolCalls {
			msg.ToolCalls = append(msg.ToolCalls, ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		r.Messages = append(r.Messages, msg)
	}
	for _, t := range w.Tools {
		r.Tools = append(r.Tools, Tool{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters})
	}
	return r, nil
}
