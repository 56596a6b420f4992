package main_test

// The official ACP TypeScript SDK plays an editor that attaches a PNG to a
// prompt and asks about a workspace PNG (conformance/vision.mjs): each
// image must reach the model as an image part. Once with the script model
// (its expect checks the image count; vision_analyze asks an
// auxiliary.vision script because the main model is set not to see), once
// with the fake OpenAI-compatible server, whose requests are checked here.

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

// visionWorkspace is a workspace holding shot.png, a red square; it
// returns the folder and the PNG's bytes.
func visionWorkspace(t *testing.T) (string, []byte) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for x := range 8 {
		for y := range 8 {
			img.Set(x, y, color.RGBA{R: 255, A: 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "shot.png"), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return ws, b.Bytes()
}

func writeFile(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTypeScriptSDKVisionScript(t *testing.T) {
	t.Parallel()
	ws, _ := visionWorkspace(t)
	dir := t.TempDir()
	// The prompt's image: the reply plays only if the user message carries it.
	seeing := writeFile(t, filepath.Join(dir, "seeing.yaml"), `replies:
  - expect: {role: user, contains: "What is in this picture?", images: 1}
    text: "I see a red square."
`)
	r := sdkRun{script: filepath.Join("conformance", "vision.mjs"), workdir: t.TempDir(), transcript: filepath.Join(t.TempDir(), "transcript.jsonl")}
	r.exec(t, 60*time.Second, "HERMES_MODEL=script:"+seeing, "VISION_WS="+ws, "VISION_PHASES=prompt")
	r.transcriptOf(t) // every agent line validates against the schema

	// vision_analyze with a main model that cannot see: the image goes to
	// the auxiliary.vision script, whose reply plays only if it arrived.
	blind := writeFile(t, filepath.Join(dir, "blind.yaml"), `replies:
  - expect: {role: user, contains: "Look at shot.png", images: 0}
    tool_calls:
      - name: vision_analyze
        arguments: {image_url: shot.png, question: "What colour is the square?"}
  - expect: {role: tool, contains: "A red square."}
    text: "The vision model says: a red square."
`)
	eyes := writeFile(t, filepath.Join(dir, "eyes.yaml"), `replies:
  - expect: {role: user, contains: "answer the following question:\n\nWhat colour is the square?", images: 1}
    text: "A red square."
`)
	home := t.TempDir()
	writeFile(t, filepath.Join(home, "config.yaml"), "model:\n  vision: false\nauxiliary:\n  vision:\n    model: script:"+eyes+"\n")
	r = sdkRun{script: filepath.Join("conformance", "vision.mjs"), workdir: t.TempDir(), transcript: filepath.Join(t.TempDir(), "transcript.jsonl")}
	r.exec(t, 60*time.Second, "HERMES_HOME="+home, "HERMES_MODEL=script:"+blind, "VISION_WS="+ws, "VISION_PHASES=tool,noimage")
	r.transcriptOf(t)
}

func TestTypeScriptSDKVisionOpenAI(t *testing.T) {
	t.Parallel()
	ws, pic := visionWorkspace(t)
	srv := startModel(t, func(r modeltest.Request) modeltest.Turn {
		last := r.Last()
		switch {
		case len(r.Messages) == 1 && len(last.Images) == 1: // vision_analyze's own request
			return text("A red square.")
		case last.Role == "user" && strings.Contains(last.Content, "What is in this picture?") && len(last.Images) == 1:
			return text("I see a red square.")
		case last.Role == "user" && strings.Contains(last.Content, "Look at shot.png"):
			return modeltest.Turn{ToolCalls: []modeltest.ToolCall{{ID: "call_look", Name: "vision_analyze",
				Arguments: `{"image_url":"shot.png","question":"What colour is the square?"}`}}}
		case last.Role == "tool":
			return modeltest.Turn{Text: []string{"The vision model says: ", last.Content}}
		}
		t.Errorf("unexpected model request; last message %s %q with %d images", last.Role, last.Content, len(last.Images))
		return text("?")
	})
	r := sdkRun{script: filepath.Join("conformance", "vision.mjs"), workdir: t.TempDir(), transcript: filepath.Join(t.TempDir(), "transcript.jsonl")}
	r.exec(t, 60*time.Second, append(modelEnv(srv), "VISION_WS="+ws, "VISION_PHASES=prompt,tool")...)
	r.transcriptOf(t)

	// What the server received: the attached image and vision_analyze's,
	// each an image_url part with the PNG as a data: URL.
	want := "data:image/png;base64," + base64.StdEncoding.EncodeToString(pic)
	var prompted, analyzed bool
	for _, raw := range srv.Requests() {
		req, err := modeltest.ParseRequest(raw)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range req.Messages {
			if len(m.Images) == 0 {
				continue
			}
			if len(m.Images) != 1 || m.Images[0] != want || !strings.Contains(string(raw), `"type":"image_url"`) {
				t.Errorf("image part = %.80q… in %.200s, want the PNG as a data: URL", m.Images, raw)
			}
			switch {
			case strings.Contains(m.Content, "What is in this picture?"):
				prompted = true
			case len(req.Messages) == 1 && strings.HasSuffix(m.Content, "What colour is the square?") && len(req.Tools) == 0:
				analyzed = true
			}
		}
	}
	if !prompted || !analyzed {
		t.Errorf("the model saw the attached image: %v; vision_analyze's image: %v; want both", prompted, analyzed)
	}
}

// `hermes-acp tools` says why vision_analyze is not offered.
func TestToolsCmdVision(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		config, want string
	}{
		{"model:\n  vision: false\n", "vision_analyze  vision   no       unavailable: no model can see images: model.vision is false and auxiliary.vision.model is not set"},
		{"model:\n  vision: false\nauxiliary:\n  vision:\n    model: llava\n", "vision_analyze  vision   yes      available"},
		{"", "vision_analyze  vision   yes      available"},
	} {
		home := t.TempDir()
		writeFile(t, filepath.Join(home, "config.yaml"), tc.config)
		cmd := exec.Command(agentBin, "tools")
		cmd.Env = baseEnv(t, "HERMES_HOME="+home)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("hermes-acp tools: %v\n%s", err, out)
		}
		var line string
		for l := range strings.Lines(string(out)) {
			if strings.HasPrefix(l, "vision_analyze ") {
				line = strings.Join(strings.Fields(l), " ")
			}
		}
		if want := strings.Join(strings.Fields(tc.want), " "); line != want {
			t.Errorf("config %q: tools line = %q, want %q", tc.config, line, want)
		}
	}
}
