package agent

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// maxAttachmentBytes caps a file inlined from a resource link (hermes's
// _MAX_ACP_RESOURCE_BYTES).
const maxAttachmentBytes = 512 << 10

// Prompt runs one prompt turn. A prompt sent while another turn of the
// session runs waits in the session's queue (the user is told its place) and
// runs after it; session/cancel ends the running turn and drops the queue.
func (a *Agent) Prompt(ctx context.Context, req *acp.PromptRequest) (*acp.PromptResponse, error) {
	s, err := a.session(req.SessionID)
	if err != nil {
		return nil, err
	}
	s.showNotices()
	s.mcp.promptStarted() // a restored session's MCP messages (agent/restore.go)
	blocks := req.Prompt
	if cmd, arg, ok := parseCommand(blocks); ok {
		if c := findCommand(cmd); c != nil && c.immediate {
			res := c.run(ctx, s, arg)
			if res.Rewrite == "" {
				return &acp.PromptResponse{StopReason: res.Stop}, nil
			}
			blocks = []acp.ContentBlock{acp.TextBlock(res.Rewrite)}
		}
	}
	t, ahead, err := s.enqueue()
	if err != nil {
		return nil, err
	}
	// Later messages (cancel, mode changes, further prompts) may proceed
	// while this turn runs.
	acp.Release(ctx)
	s.showSessionNotices(ctx)
	if ahead > 0 {
		s.sendText(fmt.Sprintf("Queued for the next turn. (%d queued)", ahead))
		select {
		case <-t.Ready():
		case <-ctx.Done():
			if !s.queue.Leave(t) {
				return &acp.PromptResponse{StopReason: acp.StopCancelled}, nil
			}
		}
	}
	defer s.finish()
	if ctx.Err() != nil {
		return &acp.PromptResponse{StopReason: acp.StopCancelled}, nil
	}
	if cmd, arg, ok := parseCommand(blocks); ok {
		if c := findCommand(cmd); c != nil && !c.immediate {
			res := c.run(ctx, s, arg)
			if res.Rewrite == "" {
				return &acp.PromptResponse{StopReason: res.Stop}, nil
			}
			blocks = []acp.ContentBlock{acp.TextBlock(res.Rewrite)}
		}
	}
	s.mu.Lock()
	s.lastPrompt = promptText(blocks)
	s.mu.Unlock()
	msg := s.userMessage(ctx, blocks)
	if strings.TrimSpace(msg.Content) == "" && len(msg.Images) == 0 {
		return &acp.PromptResponse{StopReason: acp.StopEndTurn}, nil
	}
	if refusal := checkPromptImages(s.a.modelSetup(), &msg); refusal != "" {
		s.sendText(refusal) // agent/vision.go
		return &acp.PromptResponse{StopReason: acp.StopEndTurn}, nil
	}
	return &acp.PromptResponse{StopReason: s.runTurn(ctx, msg)}, nil
}

// promptText joins the prompt's text blocks.
func promptText(blocks []acp.ContentBlock) string {
	var parts []string
	for _, b := range blocks {
		if b.Text != nil {
			parts = append(parts, b.Text.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// userMessage turns prompt blocks into the model's user message: text as is,
// images attached, files of resource links inside the workspace inlined.
func (s *Session) userMessage(ctx context.Context, blocks []acp.ContentBlock) model.Message {
	msg := model.Message{Role: model.RoleUser}
	var parts []string
	for _, b := range blocks {
		switch {
		case b.Text != nil:
			parts = append(parts, b.Text.Text)
		case b.Image != nil:
			data, err := base64.StdEncoding.DecodeString(b.Image.Data)
			if err != nil {
				parts = append(parts, "[Image omitted: its data is not valid base64]")
				continue
			}
			msg.Images = append(msg.Images, model.Image{MIMEType: b.Image.MimeType, Data: data})
		case b.Audio != nil:
			parts = append(parts, fmt.Sprintf("[Audio omitted: %s is not supported]", b.Audio.MimeType))
		case b.ResourceLink != nil:
			parts = append(parts, s.attachLink(ctx, b.ResourceLink))
		case b.Resource != nil:
			s.learnEmbedded(b.Resource.Resource)
			text, img := attachEmbedded(b.Resource.Resource)
			if img != nil {
				msg.Images = append(msg.Images, *img)
			}
			parts = append(parts, text)
		}
	}
	msg.Content = strings.Join(parts, "\n\n")
	return msg
}

// attachLink reads a linked workspace file and returns its inlined form.
func (s *Session) attachLink(ctx context.Context, l *acp.ResourceLink) string {
	name := l.Name
	local, ok := localPath(l.URI)
	if !ok {
		return fmt.Sprintf("[Resource link only: %s (%s); not a local file, so it was not read]", name, l.URI)
	}
	p, err := s.ws.Resolve(local)
	if err != nil {
		return fmt.Sprintf("[Attached file not read: %s: %v]", l.URI, err)
	}
	if err := s.ws.CheckRead(p); err != nil {
		return fmt.Sprintf("[Attached file not read: %v]", err)
	}
	data, err := s.env.files.Read(ctx, p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Sprintf("[Attached file not found: %s]", p.Abs())
		}
		return fmt.Sprintf("[Attached file not read: %s: %v]", p.Abs(), err)
	}
	mime := ""
	if l.MimeType != nil {
		mime = *l.MimeType
	}
	s.env.LearnLint(p, data) // the user points at it: likely to be edited
	return inlineFile(name, l.URI, mime, data)
}

// learnEmbedded hands the text of an embedded resource that is a file of
// the workspace to the linter, as the model may edit it next.
func (s *Session) learnEmbedded(r acp.ResourceContents) {
	if r.Text == nil {
		return
	}
	local, ok := localPath(r.URI)
	if !ok {
		return
	}
	if p, err := s.ws.Resolve(local); err == nil {
		s.env.LearnLint(p, []byte(*r.Text))
	}
}

// inlineFile renders file contents as hermes does: a header, then the text,
// capped at maxAttachmentBytes; binary files are described, not inlined.
func inlineFile(name, uri, mime string, data []byte) string {
	header := fmt.Sprintf("[Attached file: %s]\nURI: %s", name, uri)
	if workspace.LooksBinary(data[:min(len(data), 1000)]) || !utf8.Valid(trimPartialRune(data[:min(len(data), maxAttachmentBytes)])) {
		return fmt.Sprintf("%s\n\n[Binary file omitted: %d bytes, mime=%s]", header, len(data), orUnknown(mime))
	}
	if len(data) > maxAttachmentBytes {
		body := trimPartialRune(data[:maxAttachmentBytes])
		return fmt.Sprintf("%s\n(truncated to 512 KiB of %d bytes)\n\n%s", header, len(data), body)
	}
	return header + "\n\n" + string(data)
}

// trimPartialRune drops an incomplete UTF-8 sequence at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := 0; i < utf8.UTFMax && len(b) > 0; i++ {
		r, size := utf8.DecodeLastRune(b)
		if r != utf8.RuneError || size > 1 {
			return b
		}
		b = b[:len(b)-1]
	}
	return b
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// attachEmbedded renders an embedded resource; image blobs become images.
func attachEmbedded(r acp.ResourceContents) (string, *model.Image) {
	mime := ""
	if r.MimeType != nil {
		mime = *r.MimeType
	}
	name := filepath.Base(r.URI)
	if local, ok := localPath(r.URI); ok {
		name = filepath.Base(local)
	}
	if r.Text != nil {
		return inlineFile(name, r.URI, mime, []byte(*r.Text)), nil
	}
	data, err := base64.StdEncoding.DecodeString(*r.Blob)
	if err != nil {
		return fmt.Sprintf("[Attached resource %s omitted: its blob is not valid base64]", r.URI), nil
	}
	if strings.HasPrefix(mime, "image/") {
		return fmt.Sprintf("[Attached image: %s]", name), &model.Image{MIMEType: mime, Data: data}
	}
	return inlineFile(name, r.URI, mime, data), nil
}

// localPath returns the file path of a file:// URI or a plain absolute path.
func localPath(uri string) (string, bool) {
	if strings.HasPrefix(uri, "/") {
		return uri, true
	}
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") {
		return "", false
	}
	return u.Path, u.Path != ""
}
