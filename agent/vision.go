package agent

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/hermes-acp/hermes-acp/acp"
	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// visionPrompt is hermes-agent's prompt for describing an image with a
// model that does not hold the conversation.
const visionPrompt = "Fully describe and explain everything about this image, then answer the following question:\n\n"

// checkPromptImages checks the images of a prompt's user message before
// anything is sent: the model must see images (model.vision) and each
// image must be PNG, JPEG, GIF or WebP within workspace.MaxImageBytes. It sets
// each image's MIME type from its bytes and returns "" when the prompt may
// go on, else the refusal to show in the chat.
func checkPromptImages(setup ModelSetup, msg *model.Message) string {
	if len(msg.Images) == 0 {
		return ""
	}
	if setup.NoVision {
		return "This model cannot see images (`model.vision: false` in config.yaml), so nothing was sent to it. " +
			"Send the prompt again without the image, or switch to a model that can see images and set `model.vision: true`."
	}
	var problems []string
	for i := range msg.Images {
		mime, err := workspace.CheckImage(msg.Images[i].Data)
		if err != nil {
			problems = append(problems, fmt.Sprintf("image %d: %v", i+1, err))
			continue
		}
		msg.Images[i].MIMEType = mime
	}
	if len(problems) == 0 {
		return ""
	}
	return fmt.Sprintf("Nothing was sent to the model: %s. Attach %s images of at most %s and send the prompt again.",
		strings.Join(problems, "; "), workspace.ImageFormats, workspace.SizeText(workspace.MaxImageBytes))
}

// replayImages sends the images of a stored user message as image content
// of the user message id.
func (s *Session) replayImages(m model.Message, id string) {
	for _, img := range m.Images {
		mime := img.MIMEType
		if mime == "" {
			mime = workspace.SniffImage(img.Data)
		}
		if mime == "" { // not an image any client can show: say what it was
			s.send(acp.SessionUpdate{UserMessageChunk: &acp.ContentChunk{
				Content: acp.TextBlock(fmt.Sprintf("[image, %s]", workspace.SizeText(int64(len(img.Data))))), MessageID: &id}})
			continue
		}
		s.send(acp.SessionUpdate{UserMessageChunk: &acp.ContentChunk{Content: acp.ContentBlock{Image: &acp.ImageContent{
			Data: base64.StdEncoding.EncodeToString(img.Data), MimeType: mime,
		}}, MessageID: &id}})
	}
}

// errNoVision: neither the session's model nor an auxiliary.vision model
// can see images.
var errNoVision = errors.New("no model can see images: model.vision is false and auxiliary.vision.model is not set")

// CanSee reports whether [Env.Vision] has a model to send images to: the
// session's model (unless model.vision is false) or the auxiliary.vision
// model.
func (e *Env) CanSee() bool {
	setup := e.s.a.modelSetup()
	return !setup.NoVision || setup.VisionProvider != nil
}

// Vision asks a model about an image in a request of its own (the
// conversation is not sent): the session's current model when it can see
// images (model.vision is not false), else the auxiliary.vision model. It
// returns the model's answer; an error is the request's failure, worded for
// the model to act on.
func (e *Env) Vision(ctx context.Context, image []byte, mime, question string) (string, error) {
	setup := e.s.a.modelSetup()
	var (
		p    model.Provider
		name string
	)
	switch {
	case !setup.NoVision && setup.Provider != nil:
		p = setup.Provider
		e.s.mu.Lock()
		name = e.s.modelName
		e.s.mu.Unlock()
		if name == noModel {
			name = ""
		}
	case setup.VisionProvider != nil:
		p, name = setup.VisionProvider, setup.VisionModel
	case !setup.NoVision:
		return "", errors.New("no model is configured")
	default:
		return "", errNoVision
	}
	reply, err := p.Stream(ctx, model.Request{Model: name, Messages: []model.Message{{
		Role: model.RoleUser, Content: visionPrompt + question,
		Images: []model.Image{{MIMEType: mime, Data: image}},
	}}}, func(model.Delta) {})
	if err != nil {
		return "", fmt.Errorf("ask the vision model: %w", err)
	}
	if text := strings.TrimSpace(reply.Text); text != "" {
		return text, nil
	}
	return strings.TrimSpace(reply.Thought), nil
}
