package model_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/model"
	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

// withImages is a user message carrying n one-pixel images.
func withImages(text string, n int) model.Message {
	m := model.Message{Role: model.RoleUser, Content: text}
	for range n {
		m.Images = append(m.Images, model.Image{MIMEType: "image/png", Data: []byte("\x89PNG\r\n\x1a\n")})
	}
	return m
}

// An expect with images checks how many images reached the model, so a
// script can assert that an attached image (or vision_analyze's) arrived.
func TestScriptExpectImages(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		expect    string
		msg       model.Message
		wantInMsg []string // nil: the expect matches
	}{
		{"one image arrived", `{role: user, images: 1}`, withImages("what is this?", 1), nil},
		{"two images", `{images: 2, contains: "compare"}`, withImages("compare these", 2), nil},
		{"no image expected", `{images: 0}`, withImages("plain text", 0), nil},
		{"image missing", `{role: user, images: 1}`, withImages("what is this?", 0), []string{"a user message with 1 image", `"what is this?" with no image`}},
		{"too many", `{images: 1}`, withImages("x", 3), []string{"with 1 image", "with 3 images"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := parseScript(t, "replies:\n  - text: ok\n    expect: "+tc.expect+"\n")
			_, _, err := run(t.Context(), s, model.Request{Messages: []model.Message{tc.msg}})
			if tc.wantInMsg == nil {
				if err != nil {
					t.Fatalf("Stream() error = %v, want none", err)
				}
				return
			}
			checkError(t, err, model.ScriptMismatch, tc.wantInMsg...)
		})
	}
}

func TestScriptExpectImagesNegative(t *testing.T) {
	t.Parallel()
	_, err := model.ParseScript("test.yaml", []byte("replies:\n  - text: ok\n    expect: {images: -1}\n"))
	checkError(t, err, model.BadConfig, "test.yaml:3:", "expect.images -1")
}

// A recording writes how many images the request's last message carried,
// and the recording replays against the same request.
func TestRecordImages(t *testing.T) {
	t.Parallel()
	s := modeltest.NewServer(t, modeltest.Turn{Text: []string{"A red square."}})
	path := filepath.Join(t.TempDir(), "session.yaml")
	live := newProvider(t, s.URL(), func(c *model.Config) { c.RecordPath = path })
	req := model.Request{Messages: []model.Message{withImages("What is in the picture?", 1)}}
	if _, _, err := run(t.Context(), live, req); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), "images: 1") {
		t.Errorf("recorded script has no images: 1:\n%s", got)
	}
	replay, err := model.New(model.Config{Model: "script:" + path})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := run(t.Context(), replay, req); err != nil {
		t.Errorf("replay with the image: %v", err)
	}
	req.Messages[0].Images = nil
	_, _, err = run(t.Context(), replay, req)
	checkError(t, err, model.ScriptMismatch, "with 1 image")
}
