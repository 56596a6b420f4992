package tools

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hermes-acp/hermes-acp/workspace"
)

// visionPNG is a 3×1 PNG.
func visionPNG(t testing.TB) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 3, 1))
	img.Set(0, 0, color.RGBA{B: 255, A: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// visionCall is one call of a fake Deps.Vision.
type visionCall struct {
	image          []byte
	mime, question string
}

// visionEnv is a session whose Vision records its calls and answers
// answer (or fails with err).
func visionEnv(t *testing.T, files map[string]string, answer string, err error) (*fakeEnv, *[]visionCall) {
	t.Helper()
	env := newFakeEnv(t, fakeEnvOptions{Files: files})
	var calls []visionCall
	env.Vision = func(ctx context.Context, img []byte, mime, question string) (string, error) {
		calls = append(calls, visionCall{img, mime, question})
		return answer, err
	}
	return env, &calls
}

func TestVisionAnalyzeSources(t *testing.T) {
	t.Parallel()
	pic := visionPNG(t)
	b64 := base64.StdEncoding.EncodeToString(pic)
	for _, tc := range []struct {
		name, src string
	}{
		{"workspace path", "shots/screen.png"},
		{"absolute path", ""}, // filled below with the workspace's absolute path
		{"file URI", "file://"},
		{"data URL", "data:image/png;base64," + b64},
		{"data URL with a wrong type and line breaks", "data:image/jpeg;base64," + b64[:10] + "\n" + b64[10:]},
		{"data URL without padding", "data:image/png;base64," + strings.TrimRight(b64, "=")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env, calls := visionEnv(t, map[string]string{"shots/screen.png": string(pic)}, "A blue pixel on black.", nil)
			src := tc.src
			switch tc.name {
			case "absolute path":
				src = env.Abs("shots/screen.png")
			case "file URI":
				src = "file://" + env.Abs("shots/screen.png")
			}
			r := env.Run(t, visionAnalyzeName, map[string]any{"image_url": src, "question": "What colour is the first pixel?"})
			if r.IsError {
				t.Fatalf("vision_analyze(%.60s) = %s, want success", src, r.Encode())
			}
			if got, want := r.Encode(), `{"success":true,"analysis":"A blue pixel on black."}`; got != want {
				t.Errorf("result = %s, want %s", got, want)
			}
			if len(*calls) != 1 {
				t.Fatalf("Vision called %d times, want once", len(*calls))
			}
			c := (*calls)[0]
			if !bytes.Equal(c.image, pic) || c.mime != "image/png" || c.question != "What colour is the first pixel?" {
				t.Errorf("Vision got %d bytes of %s, question %q; want the PNG and the question", len(c.image), c.mime, c.question)
			}
		})
	}
}

func TestVisionAnalyzeRefusals(t *testing.T) {
	t.Parallel()
	pic := string(visionPNG(t))
	outside := filepath.Join(t.TempDir(), "outside.png")
	if err := os.WriteFile(outside, []byte(pic), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, src string
		want      []string
	}{
		{"outside the workspace", outside, []string{"outside"}},
		{"parent escape", "../" + filepath.Base(filepath.Dir(outside)) + "/outside.png", []string{"outside"}},
		{"deny-listed file", ".env", []string{"Access denied", ".env"}},
		{"missing file", "nope.png", []string{"Image file not found: nope.png"}},
		{"not an image", "notes.png", []string{"Cannot analyze notes.png", "not PNG, JPEG, GIF or WebP", "text/plain"}},
		{"svg", "logo.svg", []string{"not PNG, JPEG, GIF or WebP"}},
		{"too large", "huge.png", []string{"Image huge.png is 16.0 MB; the limit is 15.0 MB."}},
		{"bad base64", "data:image/png;base64,!!!", []string{"Invalid data URL: its data is not valid base64."}},
		{"data URL without comma", "data:image/png;base64", []string{"no comma"}},
		{"huge data URL", "data:image/png;base64," + strings.Repeat("A", 21<<20), []string{"The data URL's image is about", "the limit is 15.0 MB"}},
		{"http URL without fetcher", "https://example.com/cat.png", []string{"Fetching image URLs is not available"}},
		{"URL without host", "https:///cat.png", []string{"needs a host"}},
		{"ftp URL", "ftp://example.com/cat.png", []string{"Unsupported image_url", "http(s) URL, a data: URL or the path"}},
		{"empty", "  ", []string{"image_url is required"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env, calls := visionEnv(t, map[string]string{
				".env": pic, "notes.png": "just text\n", "logo.svg": `<svg xmlns="http://www.w3.org/2000/svg"/>`,
			}, "unused", nil)
			f, err := os.Create(env.Abs("huge.png"))
			if err != nil {
				t.Fatal(err)
			}
			f.WriteString(pic)
			if err := f.Truncate(16 << 20); err != nil { // sparse: the size is checked before reading
				t.Fatal(err)
			}
			f.Close()
			r := env.Run(t, visionAnalyzeName, map[string]any{"image_url": tc.src, "question": "What is it?"})
			got := r.Encode()
			if !r.IsError || !strings.HasPrefix(got, `{"success":false,"error":`) {
				t.Errorf("result = %s, want a failure", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("result %.300s lacks %q", got, w)
				}
			}
			if len(*calls) != 0 {
				t.Errorf("Vision was called for a refused image")
			}
		})
	}
}

func TestVisionAnalyzeFetch(t *testing.T) {
	t.Parallel()
	pic := visionPNG(t)
	env, calls := visionEnv(t, nil, "A cat.", nil)
	var gotURL string
	var gotMax int64
	env.FetchImage = func(ctx context.Context, url string, maxBytes int64) ([]byte, string, error) {
		gotURL, gotMax = url, maxBytes
		if strings.Contains(url, "blocked") {
			return nil, "", errors.New("the address 10.0.0.1 is private (web.allow_private_urls is off)")
		}
		return pic, "application/octet-stream", nil
	}
	r := env.Run(t, visionAnalyzeName, map[string]any{"image_url": "https://example.com/cat", "question": "What animal?"})
	if r.IsError || gotURL != "https://example.com/cat" || gotMax != workspace.MaxImageBytes {
		t.Fatalf("result %s after fetching %q with limit %d", r.Encode(), gotURL, gotMax)
	}
	if len(*calls) != 1 || (*calls)[0].mime != "image/png" {
		t.Errorf("Vision calls = %+v, want one with the sniffed image/png", *calls)
	}
	r = env.Run(t, visionAnalyzeName, map[string]any{"image_url": "https://blocked.example/cat.png", "question": "What animal?"})
	if got := r.Encode(); !r.IsError || !strings.Contains(got, "Could not fetch the image https://blocked.example/cat.png: the address 10.0.0.1 is private") {
		t.Errorf("blocked fetch = %s", got)
	}
}

func TestVisionAnalyzeModelErrors(t *testing.T) {
	t.Parallel()
	pic := string(visionPNG(t))
	for _, tc := range []struct {
		err  string
		want string
	}{
		{"HTTP 402: insufficient credits", "Insufficient credits or payment required"},
		{"this model does not support image input", "The model does not support vision"},
		{"invalid_request_error: bad image_url", "The vision API rejected the image"},
		{"connection refused", "There was a problem with the request and the image could not be analyzed. Error: connection refused"},
	} {
		env, _ := visionEnv(t, map[string]string{"a.png": pic}, "", errors.New(tc.err))
		r := env.Run(t, visionAnalyzeName, map[string]any{"image_url": "a.png", "question": "?"})
		obj := resultObject(t, r)
		if !r.IsError || obj["success"] != false || obj["error"] != "Error analyzing image: "+tc.err ||
			!strings.HasPrefix(obj["analysis"].(string), tc.want) {
			t.Errorf("model error %q: result = %s", tc.err, r.Encode())
		}
	}
	env, _ := visionEnv(t, map[string]string{"a.png": pic}, "  ", nil)
	r := env.Run(t, visionAnalyzeName, map[string]any{"image_url": "a.png", "question": "?"})
	if obj := resultObject(t, r); obj["success"] != true || !strings.Contains(obj["analysis"].(string), "could not be analyzed") {
		t.Errorf("empty answer: result = %s", r.Encode())
	}
}

// vision_analyze is offered only to sessions with a model that can see.
func TestVisionAnalyzeAvailability(t *testing.T) {
	t.Parallel()
	env := newFakeEnv(t, fakeEnvOptions{})
	check := func(d Deps) error {
		entries, _ := Bind(d)
		for _, e := range entries {
			if e.Name == visionAnalyzeName {
				if e.Check == nil {
					return nil
				}
				return e.Check.Err()
			}
		}
		t.Fatal("Bind has no vision_analyze")
		return nil
	}
	env.Vision = nil
	d := env.Deps
	if err := check(d); err == nil || !strings.Contains(err.Error(), "model.vision is false and auxiliary.vision.model is not set") {
		t.Errorf("without Vision: Check() = %v, want the reason", err)
	}
	d.Vision = func(context.Context, []byte, string, string) (string, error) { return "", nil }
	if err := check(d); err != nil {
		t.Errorf("with Vision: Check() = %v, want nil", err)
	}
	// Without a model that sees, the other tools do not point at it.
	entries, _ := Bind(env.Deps)
	for _, e := range entries {
		if e.Name == readFileName && strings.Contains(e.Description, visionAnalyzeName) {
			t.Errorf("without Vision, read_file's description names vision_analyze: %q", e.Description)
		}
	}
	env.WriteFile(t, "pic.png", string(visionPNG(t)))
	if got := env.Run(t, readFileName, map[string]any{"path": "pic.png"}).Encode(); strings.Contains(got, visionAnalyzeName) {
		t.Errorf("without Vision, read_file's image hint names vision_analyze: %s", got)
	}
	for _, e := range Entries() {
		if e.Name == visionAnalyzeName && e.Check != nil {
			t.Errorf("the declared entry has a Check; availability is per session")
		}
	}
}

func TestVisionAnalyzeTitleAndPreview(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 60)
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"question": "What does the error dialog say?"}, "analyze image: What does the error dialog say?"},
		{map[string]any{"question": long}, "analyze image: " + strings.Repeat("é", 50)},
		{map[string]any{}, "analyze image: ?"},
		{map[string]any{"question": 7}, "analyze image: ?"},
	} {
		if got := visionAnalyzeTitle(tc.args); got != tc.want {
			t.Errorf("title(%v) = %q, want %q", tc.args, got, tc.want)
		}
	}
	preview := visionAnalyzePreview(map[string]any{"image_url": "data:image/png;base64," + strings.Repeat("A", 4000), "question": "Colour?"})
	if len(preview) > 200 || !strings.Contains(preview, `"image_url": "data:image/png;base64,… (3.9 KB)"`) || !strings.Contains(preview, `"question": "Colour?"`) {
		t.Errorf("preview = %s", preview)
	}
}
