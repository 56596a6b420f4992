package tools

import (
	"context"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// vision_analyze shows an image to a model that can see and returns its
// description and its answer to the question, as hermes-agent's tool of
// the same name does with its auxiliary vision model. The image is a file
// of the workspace (read under the workspace's and file safety's rules),
// an http(s) URL (fetched through the session's FetchImage, which applies
// the agent's network policy) or a data: URL; it must be PNG, JPEG, GIF or
// WebP of at most workspace.MaxImageBytes, checked before anything is sent.
// The session's Vision asks the model; without it the tool is not offered.
var _ = declare(registry.Tool[visionAnalyzeDeps]{
	Spec: registry.Spec{Entry: registry.Entry{
		Name:         visionAnalyzeName,
		Toolset:      "vision",
		Emoji:        "👁️",
		Description:  visionAnalyzeDescription,
		Kind:         registry.KindRead,
		ReadOnly:     true,
		Idempotent:   true,
		ParallelSafe: true,
		Title:        visionAnalyzeTitle,
		Preview:      visionAnalyzePreview,
		Render:       visionAnalyzeRender,
	}, Params: visionAnalyzeParams{}},
	New: func(d visionAnalyzeDeps) registry.Handler {
		return registry.Typed(func(ctx context.Context, call *registry.Call, p *visionAnalyzeParams) (registry.Result, error) {
			return visionAnalyze(ctx, d, call, p)
		})
	},
	SharedCheck: visionAnalyzeDeps.VisionCheck,
})

//go:embed vision_analyze.md
var visionAnalyzeDescription string

// visionAnalyzeName is the tool's name.
const visionAnalyzeName = "vision_analyze"

// errNoVisionModel is why vision_analyze is not offered.
var errNoVisionModel = errors.New("no model can see images: model.vision is false and auxiliary.vision.model is not set")

// visionAnalyzeParams are vision_analyze's arguments.
type visionAnalyzeParams struct {
	ImageURL string `json:"image_url" schema:"required" desc:"Image URL (http/https), local file path or data: URL to analyze."`
	Question string `json:"question" schema:"required" desc:"Your specific question or request about the image to resolve. The AI will automatically provide a complete image description AND answer your specific question."`
}

// visionAnalyzeDeps is what vision_analyze uses of its session: the
// workspace its image files are read from, the model that sees, and the
// download of image URLs.
type visionAnalyzeDeps interface {
	Workspace() *workspace.Workspace
	// Vision asks a model that can see images about image (of type mime)
	// and returns its answer; nil: no model can see images.
	Vision() func(ctx context.Context, image []byte, mime, question string) (string, error)
	// FetchImage downloads an http(s) image URL under the agent's network
	// policy, reading at most maxBytes; nil refuses every URL.
	FetchImage() func(ctx context.Context, url string, maxBytes int64) (data []byte, mime string, err error)
	// VisionCheck is the tool's availability: nil when a model can see
	// images (or, before any session, may: the configuration decides),
	// else a check failing with errNoVisionModel.
	VisionCheck() *registry.Check
}

// noVisionCheck is vision_analyze's check in a session without a model
// that can see images.
var noVisionCheck = registry.Unavailable(errNoVisionModel.Error())

// visionAnalyzeResult is hermes's answer: {"success", "analysis"}, with
// "error" on failure.
type visionAnalyzeResult struct {
	Success  bool   `json:"success"`
	Error    string `json:"error,omitempty"`
	Analysis string `json:"analysis,omitempty"`
}

// visionFailed is a failure before the model was asked (hermes's
// tool_error with success false).
func visionFailed(msg string) registry.Result {
	return registry.Failed(visionAnalyzeResult{Error: msg})
}

func visionAnalyze(ctx context.Context, s visionAnalyzeDeps, _ *registry.Call, p *visionAnalyzeParams) (registry.Result, error) {
	src := strings.TrimSpace(p.ImageURL)
	if src == "" {
		return visionFailed("image_url is required"), nil
	}
	vision := s.Vision()
	if vision == nil {
		return visionFailed(errNoVisionModel.Error()), nil
	}
	data, problem := loadImage(ctx, s, src)
	if problem != "" {
		return visionFailed(problem), nil
	}
	mime, err := workspace.CheckImage(data)
	if err != nil {
		return visionFailed(fmt.Sprintf("Cannot analyze %s: %v. vision_analyze takes %s images of at most %s.",
			visionShort(src), err, workspace.ImageFormats, workspace.SizeText(workspace.MaxImageBytes))), nil
	}
	analysis, err := vision(ctx, data, mime, p.Question)
	if err != nil {
		if ctx.Err() != nil {
			return registry.Result{}, fmt.Errorf("vision_analyze: %w", ctx.Err())
		}
		return registry.Failed(visionAnalyzeResult{
			Error:    "Error analyzing image: " + err.Error(),
			Analysis: visionErrorAdvice(err),
		}), nil
	}
	if strings.TrimSpace(analysis) == "" {
		analysis = "There was a problem with the request and the image could not be analyzed."
	}
	return registry.OK(visionAnalyzeResult{Success: true, Analysis: analysis}), nil
}

// loadImage returns the bytes of the image src names, or why it cannot.
func loadImage(ctx context.Context, s visionAnalyzeDeps, src string) (data []byte, problem string) {
	lower := strings.ToLower(src)
	switch {
	case strings.HasPrefix(lower, "data:"):
		return decodeDataURL(src)
	case strings.HasPrefix(lower, "http://"), strings.HasPrefix(lower, "https://"):
		if u, err := url.Parse(src); err != nil || u.Host == "" {
			return nil, fmt.Sprintf("Invalid image URL %q: it needs a host, like https://example.com/picture.png.", src)
		}
		fetch := s.FetchImage()
		if fetch == nil {
			return nil, "Fetching image URLs is not available in this session; save the image in the workspace and pass its path."
		}
		data, _, err := fetch(ctx, src, workspace.MaxImageBytes)
		if err != nil {
			return nil, fmt.Sprintf("Could not fetch the image %s: %v", src, err)
		}
		return data, ""
	case strings.Contains(src, "://") && !strings.HasPrefix(lower, "file://"):
		return nil, fmt.Sprintf("Unsupported image_url %q: pass an http(s) URL, a data: URL or the path of a file in the workspace.", visionShort(src))
	}
	return readImageFile(s.Workspace(), src)
}

// readImageFile reads a workspace image under read_file's rules: outside
// the workspace and read-denied files are refused, and the size is checked
// before reading.
func readImageFile(ws *workspace.Workspace, raw string) ([]byte, string) {
	p, err := ws.Resolve(raw)
	if err != nil {
		return nil, readFileResolveError(raw, err).ErrorMessage()
	}
	if err := ws.CheckRead(p); err != nil {
		return nil, err.Error()
	}
	f, fi, err := ws.OpenRegular(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || readFileMissing(err) {
			return nil, "Image file not found: " + raw
		}
		return nil, fmt.Sprintf("Cannot read image %s: %v", raw, err)
	}
	defer f.Close()
	if fi.Size() > workspace.MaxImageBytes {
		return nil, fmt.Sprintf("Image %s is %s; the limit is %s.", raw, workspace.SizeText(fi.Size()), workspace.SizeText(workspace.MaxImageBytes))
	}
	data, err := io.ReadAll(io.LimitReader(f, workspace.MaxImageBytes+1))
	if err != nil {
		return nil, fmt.Sprintf("Cannot read image %s: %v", raw, err)
	}
	return data, ""
}

// decodeDataURL decodes a data: URL (RFC 2397): base64 or percent-encoded.
// Its declared type is not trusted; the bytes are checked afterwards.
func decodeDataURL(src string) ([]byte, string) {
	meta, payload, ok := strings.Cut(src[len("data:"):], ",")
	if !ok {
		return nil, "Invalid data URL: it has no comma before the data (data:image/png;base64,…)."
	}
	if strings.HasSuffix(strings.ToLower(meta), ";base64") {
		payload = strings.Map(func(r rune) rune { // line breaks and spaces are allowed inside
			if r == ' ' || r == '\n' || r == '\r' || r == '\t' {
				return -1
			}
			return r
		}, payload)
		if n := base64.StdEncoding.DecodedLen(len(payload)); n > workspace.MaxImageBytes+3 {
			return nil, fmt.Sprintf("The data URL's image is about %s; the limit is %s.", workspace.SizeText(int64(n)), workspace.SizeText(workspace.MaxImageBytes))
		}
		data, err := base64.StdEncoding.DecodeString(payload)
		if err != nil {
			if data, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(payload, "=")); err != nil {
				return nil, "Invalid data URL: its data is not valid base64."
			}
		}
		return data, ""
	}
	text, err := url.PathUnescape(payload)
	if err != nil {
		return nil, "Invalid data URL: its data is not valid percent-encoding."
	}
	return []byte(text), ""
}

// visionErrorAdvice is hermes's explanation of a failed model request:
// the first matching rule (billing, no vision, rejected image) wins.
func visionErrorAdvice(err error) string {
	msg := strings.ToLower(err.Error())
	has := func(hints ...string) bool {
		for _, h := range hints {
			if strings.Contains(msg, h) {
				return true
			}
		}
		return false
	}
	switch {
	case has("402", "insufficient", "payment required", "credits", "billing"):
		return "Insufficient credits or payment required. Please top up your API provider account and try again. Error: " + err.Error()
	case has("does not support", "not support image", "content_policy", "multimodal", "unrecognized request argument", "image input"):
		return "The model does not support vision or our request was not accepted by the server. Error: " + err.Error()
	case has("invalid_request", "image_url"):
		return "The vision API rejected the image. This can happen when the image is in an unsupported format, corrupted, or too large. Try a smaller JPEG/PNG and retry. Error: " + err.Error()
	}
	return "There was a problem with the request and the image could not be analyzed. Error: " + err.Error()
}

// visionShort shortens a data: URL for messages and titles.
func visionShort(src string) string {
	if strings.HasPrefix(strings.ToLower(src), "data:") {
		meta, _, _ := strings.Cut(src, ",")
		return meta + ",… (" + workspace.SizeText(int64(len(src))) + ")"
	}
	return src
}

// visionAnalyzeTitle is hermes's "analyze image: <question, 50 characters>".
func visionAnalyzeTitle(args map[string]any) string {
	q, ok := args["question"].(string)
	if !ok {
		q = "?"
	}
	if utf8.RuneCountInString(q) > 50 {
		q = string([]rune(q)[:50])
	}
	return "analyze image: " + q
}

// visionAnalyzePreview shows the arguments as JSON, a data: URL shortened.
func visionAnalyzePreview(args map[string]any) string {
	shown := map[string]any{}
	for k, v := range args {
		if s, ok := v.(string); ok && k == "image_url" {
			v = visionShort(s)
		}
		shown[k] = v
	}
	b, err := json.MarshalIndent(shown, "", "  ")
	if err != nil {
		return ""
	}
	return string(b)
}

// visionAnalyzeRender shows the analysis.
func visionAnalyzeRender(_ map[string]any, r registry.Result) string {
	if v, ok := r.Value.(visionAnalyzeResult); ok {
		return v.Analysis
	}
	return ""
}
