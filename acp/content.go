package acp

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Annotations are optional hints on content blocks.
type Annotations struct {
	Audience     []string `json:"audience,omitempty"`
	LastModified *string  `json:"lastModified,omitempty"`
	Priority     *float64 `json:"priority,omitempty"`
	Meta         Meta     `json:"_meta,omitempty"`
}

// TextContent is a text (Markdown) content block.
type TextContent struct {
	Text        string       `json:"text"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
}

// ImageContent is a base64 image content block.
type ImageContent struct {
	Data        string       `json:"data"`
	MimeType    string       `json:"mimeType"`
	URI         *string      `json:"uri,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
}

// AudioContent is a base64 audio content block.
type AudioContent struct {
	Data        string       `json:"data"`
	MimeType    string       `json:"mimeType"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
}

// ResourceLink refers to a resource the agent may read.
type ResourceLink struct {
	URI         string       `json:"uri"`
	Name        string       `json:"name"`
	MimeType    *string      `json:"mimeType,omitempty"`
	Title       *string      `json:"title,omitempty"`
	Description *string      `json:"description,omitempty"`
	Size        *int64       `json:"size,omitempty"`
	Annotations *Annotations `json:"annotations,omitempty"`
	Meta        Meta         `json:"_meta,omitempty"`
}

// EmbeddedResource carries a resource's contents inside the message.
type EmbeddedResource struct {
	Resource    ResourceContents `json:"resource"`
	Annotations *Annotations     `json:"annotations,omitempty"`
	Meta        Meta             `json:"_meta,omitempty"`
}

// ResourceContents is the text or blob contents of an embedded resource.
// Exactly one of Text and Blob is set.
type ResourceContents struct {
	URI      string  `json:"uri"`
	MimeType *string `json:"mimeType,omitempty"`
	Text     *string `json:"text,omitempty"`
	Blob     *string `json:"blob,omitempty"`
	Meta     Meta    `json:"_meta,omitempty"`
}

// UnmarshalJSON decodes and checks that exactly one of text and blob is set.
func (r *ResourceContents) UnmarshalJSON(b []byte) error {
	type plain ResourceContents
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	if p.URI == "" {
		return &FieldError{Field: "uri", Problem: "required"}
	}
	if (p.Text == nil) == (p.Blob == nil) {
		return &FieldError{Field: "text", Problem: "exactly one of text and blob is required"}
	}
	*r = ResourceContents(p)
	return nil
}

// ContentBlock is the ACP content union (discriminator "type"). Exactly one
// variant is set.
type ContentBlock struct {
	Text         *TextContent
	Image        *ImageContent
	Audio        *AudioContent
	ResourceLink *ResourceLink
	Resource     *EmbeddedResource
}

// TextBlock returns a text content block.
func TextBlock(s string) ContentBlock { return ContentBlock{Text: &TextContent{Text: s}} }

// Kind returns the block's "type" value, or "" for an empty block.
func (c ContentBlock) Kind() string {
	switch {
	case c.Text != nil:
		return "text"
	case c.Image != nil:
		return "image"
	case c.Audio != nil:
		return "audio"
	case c.ResourceLink != nil:
		return "resource_link"
	case c.Resource != nil:
		return "resource"
	}
	return ""
}

// MarshalJSON writes the set variant with its "type".
func (c ContentBlock) MarshalJSON() ([]byte, error) {
	switch {
	case c.Text != nil:
		return marshalTagged("type", "text", c.Text)
	case c.Image != nil:
		return marshalTagged("type", "image", c.Image)
	case c.Audio != nil:
		return marshalTagged("type", "audio", c.Audio)
	case c.ResourceLink != nil:
		return marshalTagged("type", "resource_link", c.ResourceLink)
	case c.Resource != nil:
		return marshalTagged("type", "resource", c.Resource)
	}
	return nil, fmt.Errorf("marshal content block: no variant set")
}

// wireBlock is every member a content block may have, so that a block is
// decoded in one pass (prompts can be many megabytes).
type wireBlock struct {
	Type        *string           `json:"type"`
	Text        *string           `json:"text"`
	Data        *string           `json:"data"`
	MimeType    *string           `json:"mimeType"`
	URI         *string           `json:"uri"`
	Name        *string           `json:"name"`
	Title       *string           `json:"title"`
	Description *string           `json:"description"`
	Size        *int64            `json:"size"`
	Resource    *ResourceContents `json:"resource"`
	Annotations *Annotations      `json:"annotations"`
	Meta        Meta              `json:"_meta"`
}

// UnmarshalJSON decodes the variant named by "type".
func (c *ContentBlock) UnmarshalJSON(b []byte) error {
	var w wireBlock
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	return c.fromWire(&w)
}

// fromWire builds the block from its decoded members.
func (c *ContentBlock) fromWire(w *wireBlock) error {
	if w.Type == nil {
		return &FieldError{Field: "type", Problem: "required"}
	}
	need := func(name string, v bool) error {
		if !v {
			return &FieldError{Field: name, Problem: "required"}
		}
		return nil
	}
	*c = ContentBlock{}
	switch *w.Type {
	case "text":
		if err := need("text", w.Text != nil); err != nil {
			return err
		}
		c.Text = &TextContent{Text: *w.Text, Annotations: w.Annotations, Meta: w.Meta}
	case "image":
		if err := errors.Join(need("data", w.Data != nil), need("mimeType", w.MimeType != nil)); err != nil {
			return firstFieldError(err)
		}
		c.Image = &ImageContent{Data: *w.Data, MimeType: *w.MimeType, URI: w.URI, Annotations: w.Annotations, Meta: w.Meta}
	case "audio":
		if err := errors.Join(need("data", w.Data != nil), need("mimeType", w.MimeType != nil)); err != nil {
			return firstFieldError(err)
		}
		c.Audio = &AudioContent{Data: *w.Data, MimeType: *w.MimeType, Annotations: w.Annotations, Meta: w.Meta}
	case "resource_link":
		if err := errors.Join(need("uri", w.URI != nil), need("name", w.Name != nil)); err != nil {
			return firstFieldError(err)
		}
		c.ResourceLink = &ResourceLink{URI: *w.URI, Name: *w.Name, MimeType: w.MimeType, Title: w.Title,
			Description: w.Description, Size: w.Size, Annotations: w.Annotations, Meta: w.Meta}
	case "resource":
		if err := need("resource", w.Resource != nil); err != nil {
			return err
		}
		c.Resource = &EmbeddedResource{Resource: *w.Resource, Annotations: w.Annotations, Meta: w.Meta}
	default:
		return &FieldError{Field: "type", Problem: fmt.Sprintf("unknown content type %q", *w.Type)}
	}
	return nil
}

// firstFieldError returns the first *FieldError joined in err.
func firstFieldError(err error) error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()[0]
	}
	return err
}

// decodeVariant unmarshals b into v and checks that the required members are
// present.
func decodeVariant(b []byte, v any, required ...string) error {
	if err := json.Unmarshal(b, v); err != nil {
		return err
	}
	return requireMembers(b, required...)
}

// requireMembers reports the first of the named members missing (or null) in
// the JSON object b.
func requireMembers(b []byte, names ...string) error {
	if len(names) == 0 {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	for _, n := range names {
		if raw, ok := m[n]; !ok || string(raw) == "null" {
			return &FieldError{Field: n, Problem: "required"}
		}
	}
	return nil
}
