package tools

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"strings"
	"testing"
)

func encUTF16(s string, bigEndian bool) string {
	out := []byte{0xff, 0xfe}
	if bigEndian {
		out = []byte{0xfe, 0xff}
	}
	for _, r := range s {
		if bigEndian {
			out = append(out, byte(r>>8), byte(r))
		} else {
			out = append(out, byte(r), byte(r>>8))
		}
	}
	return string(out)
}

func encPNG(t *testing.T) string {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 8, 8))); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// encodingCase is one file and one edit of it: the line "line2" gets the
// line add after it. Each editing tool makes the same edit its own way.
type encodingCase struct {
	name   string
	file   string
	before string // bytes on disk
	add    string // the added line
	text   string // the whole new text, LF endings, for write_file
	want   string // bytes on disk after the edit; "" when refused
	refuse string // part of the refusal
}

func encodingCases(t *testing.T) []encodingCase {
	const bom = "\xef\xbb\xbf"
	pngData := encPNG(t)
	return []encodingCase{
		{name: "utf-8", file: "f.txt", before: "café\nline2\nend\n", add: "added ü",
			text: "café\nline2\nadded ü\nend\n", want: "café\nline2\nadded ü\nend\n"},
		{name: "utf-8 bom crlf", file: "f.txt", before: bom + "café\r\nline2\r\nend\r\n", add: "added",
			text: "café\nline2\nadded\nend\n", want: bom + "café\r\nline2\r\nadded\r\nend\r\n"},
		{name: "utf-16le", file: "f.txt", before: encUTF16("café\r\nline2\r\nend\r\n", false), add: "added Ω",
			text: "café\nline2\nadded Ω\nend\n", want: encUTF16("café\r\nline2\r\nadded Ω\r\nend\r\n", false)},
		{name: "utf-16be", file: "f.txt", before: encUTF16("über\nline2\nend\n", true), add: "added",
			text: "über\nline2\nadded\nend\n", want: encUTF16("über\nline2\nadded\nend\n", true)},
		{name: "latin-1 ascii line", file: "f.txt", before: "caf\xe9 \xfc\xdf\nline2\nend\n", add: "added",
			text: "café üß\nline2\nadded\nend\n", want: "caf\xe9 \xfc\xdf\nline2\nadded\nend\n"},
		{name: "latin-1 accented line", file: "f.txt", before: "caf\xe9\r\nline2\r\nend\r\n", add: "naïve",
			text: "café\nline2\nnaïve\nend\n", want: "caf\xe9\r\nline2\r\nna\xefve\r\nend\r\n"},
		{name: "latin-1 greek refused", file: "f.txt", before: "caf\xe9\nline2\nend\n", add: "Ωmega",
			text: "café\nline2\nΩmega\nend\n", refuse: "cannot be written in windows-1252"},
		{name: "latin-1 emoji refused", file: "f.txt", before: "caf\xe9\nline2\nend\n", add: "ok 🙂",
			text: "café\nline2\nok 🙂\nend\n", refuse: "cannot be written in windows-1252"},
		{name: "crlf", file: "f.txt", before: "a\r\nline2\r\nend\r\n", add: "added",
			text: "a\nline2\nadded\nend\n", want: "a\r\nline2\r\nadded\r\nend\r\n"},
		{name: "mixed endings", file: "f.txt", before: "a\r\nb\nline2\r\nc\nend\r\n", add: "added",
			text: "a\nb\nline2\nadded\nc\nend\n", want: "a\r\nb\nline2\r\nadded\r\nc\nend\r\n"},
		{name: "binary nul bytes", file: "data", before: "line2\n" + strings.Repeat("\x00\x01", 200), add: "added",
			text: "line2\nadded\n", refuse: "Cannot edit binary file"},
		{name: "png by extension", file: "logo.png", before: "line2\n", add: "added",
			text: "line2\nadded\n", refuse: "Cannot edit binary file"},
		{name: "png by content", file: "logo", before: pngData + "line2\n", add: "added",
			text: "line2\nadded\n", refuse: "Cannot edit binary file"},
		{name: "utf-16 odd length", file: "f.txt", before: encUTF16("line2\n", false) + "x", add: "added",
			text: "line2\nadded\n", refuse: "cannot be decoded and written back byte for byte"},
	}
}

// Every editing tool keeps every byte it does not change, in every
// encoding, and refuses, before asking for approval, the edits it cannot
// make without losing data.
func TestEditToolsKeepEncoding(t *testing.T) {
	t.Parallel()
	for _, tc := range encodingCases(t) {
		for _, mode := range []string{"replace", "v4a", "write_file"} {
			t.Run(tc.name+"/"+mode, func(t *testing.T) {
				t.Parallel()
				env := newEditEnv(t, editEnvOptions{})
				editWriteTree(t, env.root, map[string]string{tc.file: tc.before})
				var out string
				switch mode {
				case "replace":
					out = env.runRaw(t, "patch", map[string]any{"path": tc.file, "old_string": "line2", "new_string": "line2\n" + tc.add})
				case "v4a":
					out = env.runRaw(t, "patch", map[string]any{"mode": "patch",
						"patch": "*** Begin Patch\n*** Update File: " + tc.file + "\n line2\n+" + tc.add + "\n*** End Patch"})
				case "write_file":
					out = env.runRaw(t, "write_file", map[string]any{"path": tc.file, "content": tc.text})
				}
				got, _ := os.ReadFile(env.abs(tc.file))
				approvals, _ := env.recorded()
				if tc.refuse != "" {
					if !strings.Contains(out, tc.refuse) {
						t.Errorf("result = %s, want a refusal containing %q", out, tc.refuse)
					}
					if string(got) != tc.before {
						t.Errorf("file = %q, want it byte-identical %q", got, tc.before)
					}
					if len(approvals) != 0 {
						t.Errorf("approval asked for a refused edit: %+v", approvals)
					}
					return
				}
				if string(got) != tc.want {
					t.Fatalf("file = %q, want %q\nresult: %s", got, tc.want, out)
				}
				if len(approvals) != 1 {
					t.Fatalf("approvals = %d, want 1", len(approvals))
				}
				// The user's diff shows exactly the added line: no hidden
				// re-encoding of the others.
				c := approvals[0].changes[0]
				d := pathDiff(tc.file, *c.Old, c.New)
				var changed []string
				for _, l := range strings.Split(d, "\n") {
					if (strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-")) && !strings.HasPrefix(l, "+++") && !strings.HasPrefix(l, "---") {
						changed = append(changed, strings.TrimSuffix(l, "\r"))
					}
				}
				if len(changed) != 1 || changed[0] != "+"+tc.add {
					t.Errorf("approval diff changes %q, want only %q\n%s", changed, "+"+tc.add, d)
				}
				if strings.ContainsRune(*c.Old+c.New, '\ufffd') {
					t.Errorf("approval shows replacement characters: %q → %q", *c.Old, c.New)
				}
			})
		}
	}
}

// read_file shows a non-UTF-8 file decoded and says which encoding it is;
// a binary file stays refused.
func TestReadFileEncodingNote(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, content string
		wantText      string // a substring of the content shown
		wantEncoding  string
	}{
		{"latin-1", "caf\xe9 \xfc\xdf\n", "1|café üß", "windows-1252 (Latin-1)"},
		{"utf-16le", encUTF16("héllo\r\nworld\r\n", false), "1|héllo\n2|world", "UTF-16LE with BOM"},
		{"utf-16be", encUTF16("héllo\n", true), "1|héllo", "UTF-16BE with BOM"},
		{"utf-8", "café\n", "1|café", ""},
		{"utf-8 bom", "\xef\xbb\xbfcafé\n", "1|café", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := newEditEnv(t, editEnvOptions{})
			editWriteTree(t, env.root, map[string]string{"f.txt": tc.content})
			got := env.run(t, "read_file", map[string]any{"path": "f.txt"})
			if content, _ := got["content"].(string); !strings.Contains(content, tc.wantText) {
				t.Errorf("content = %q, want %q", content, tc.wantText)
			}
			if enc, _ := got["encoding"].(string); enc != tc.wantEncoding {
				t.Errorf("encoding = %q, want %q", enc, tc.wantEncoding)
			}
			note, _ := got["encoding_note"].(string)
			if (note != "") != (tc.wantEncoding != "") || tc.wantEncoding != "" && !strings.Contains(note, "edits keep that encoding") && !strings.Contains(note, "Edits keep that encoding") {
				t.Errorf("encoding_note = %q for encoding %q", note, tc.wantEncoding)
			}
		})
	}
	env := newEditEnv(t, editEnvOptions{})
	editWriteTree(t, env.root, map[string]string{"blob": "x" + strings.Repeat("\x00", 100)})
	if got := env.run(t, "read_file", map[string]any{"path": "blob"}); got["is_binary"] != true {
		t.Errorf("read_file(blob) = %v, want is_binary", got)
	}
}

// When the editor serves a Latin-1 file decoded as UTF-8 (replacement
// characters where the accents were), writing its text back would destroy
// them: the edit is refused and read_file says why.
func TestEditorLossyDecodingRefused(t *testing.T) {
	t.Parallel()
	ed := newEditEditor(nil)
	env := newEditEnv(t, editEnvOptions{editor: ed})
	editWriteTree(t, env.root, map[string]string{"f.txt": "caf\xe9\nline2\n"})
	ed.buffers[env.abs("f.txt")] = "caf\ufffd\nline2\n"

	got := env.run(t, "read_file", map[string]any{"path": "f.txt"})
	if note, _ := got["encoding_note"].(string); !strings.Contains(note, "Edits are refused") {
		t.Errorf("encoding_note = %q, want the editor's lossy decoding explained", note)
	}
	out := env.runRaw(t, "patch", map[string]any{"path": "f.txt", "old_string": "line2", "new_string": "line2\nadded"})
	if !strings.Contains(out, "replacement characters") {
		t.Errorf("patch result = %s, want a refusal naming the replacement characters", out)
	}
	if b, _ := os.ReadFile(env.abs("f.txt")); string(b) != "caf\xe9\nline2\n" {
		t.Errorf("disk = %q, want untouched", b)
	}
	if len(ed.writes) != 0 {
		t.Errorf("editor writes = %q, want none", ed.writes)
	}
	// A UTF-8 file the editor serves is edited through the editor as before.
	editWriteTree(t, env.root, map[string]string{"u.txt": "café\nline2\n"})
	if got := env.run(t, "patch", map[string]any{"path": "u.txt", "old_string": "line2", "new_string": "line2\nadded"}); got["success"] != true {
		t.Errorf("patch of a UTF-8 file via the editor = %v, want success", got)
	}
}

// V4A's delete and move of a binary file do not rewrite its content and
// are allowed; an update of it in the same patch is refused before anything
// is done.
func TestPatchV4ABinaryDeleteAndMove(t *testing.T) {
	t.Parallel()
	pngData := encPNG(t)
	for _, tc := range []struct {
		name, op string
		gone     bool   // logo.png no longer exists
		moved    string // where its bytes are now
		refuse   bool
	}{
		{"delete", "*** Delete File: logo.png", true, "", false},
		{"move", "*** Move File: logo.png -> moved.png", true, "moved.png", false},
		{"move then update", "*** Move File: logo.png -> moved.txt\n*** Update File: moved.txt\n+text", false, "", true},
		{"update and delete", "*** Update File: logo.png\n+text\n*** Delete File: logo.png", false, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := newEditEnv(t, editEnvOptions{})
			editWriteTree(t, env.root, map[string]string{"logo.png": pngData})
			out := env.runRaw(t, "patch", map[string]any{"mode": "patch", "patch": "*** Begin Patch\n" + tc.op + "\n*** End Patch"})
			approvals, _ := env.recorded()
			if tc.refuse {
				if !strings.Contains(out, "Cannot edit binary file") || len(approvals) != 0 {
					t.Errorf("result = %s with %d approvals, want the binary refusal before approval", out, len(approvals))
				}
			} else if !strings.Contains(out, `"success":true`) {
				t.Errorf("result = %s, want success", out)
			}
			b, err := os.ReadFile(env.abs("logo.png"))
			if tc.gone != (err != nil) || !tc.gone && string(b) != pngData {
				t.Errorf("logo.png = %d bytes, %v; want gone %v, else unchanged", len(b), err, tc.gone)
			}
			if tc.moved != "" {
				if b, err := os.ReadFile(env.abs(tc.moved)); err != nil || string(b) != pngData {
					t.Errorf("%s = %d bytes, %v; want the PNG's bytes", tc.moved, len(b), err)
				}
			}
		})
	}
}
