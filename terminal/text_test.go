package terminal

import (
	"fmt"
	"strings"
	"testing"
)

func TestTruncateMarker(t *testing.T) {
	t.Parallel()
	in := strings.Repeat("h", 100) + strings.Repeat("m", 50) + strings.Repeat("t", 100)
	got := Truncate(in, 100)
	want := strings.Repeat("h", 40) + "\n\n... [OUTPUT TRUNCATED - 150 chars omitted out of 250 total] ...\n\n" + strings.Repeat("t", 60)
	if got != want {
		t.Errorf("Truncate = %q, want %q", got, want)
	}
	if s := strings.Repeat("é", 100); Truncate(s, 100) != s {
		t.Error("Truncate cut 100 two-byte characters at a limit of 100")
	}
	// Characters, not bytes: head and tail keep whole code points.
	got = Truncate(strings.Repeat("é", 300), 10)
	if !strings.HasPrefix(got, "éééé\n\n... [OUTPUT TRUNCATED - 290 chars omitted out of 300 total]") || !strings.HasSuffix(got, "\n\néééééé") {
		t.Errorf("Truncate(é×300, 10) = %q", got)
	}
}

// TestCaptureMemoryBounded writes 5 MB and 35 000 lines in small and large
// pieces: the capture's buffers stay within a few times its limit.
func TestCaptureMemoryBounded(t *testing.T) {
	t.Parallel()
	for _, piece := range []int{1, 100, 32 << 10, 1 << 20} {
		c := NewCapture(50_000)
		line := strings.Repeat("x", 149) + "\n"
		data := []byte(strings.Repeat(line, 5<<20/150))
		for i := 0; i < len(data); i += piece {
			c.Write(data[i:min(i+piece, len(data))])
			if held := cap(c.full) + cap(c.head) + tailCap(c); held > 4*50_000*2 {
				t.Fatalf("piece %d: capture holds %d bytes after %d written", piece, held, i)
			}
		}
		out := c.String()
		if !strings.Contains(out, fmt.Sprintf("[OUTPUT TRUNCATED - %d chars omitted out of %d total]", len(data)-50_000, len(data))) {
			t.Errorf("piece %d: no marker with the right counts in %q…", piece, out[:100])
		}
		if !strings.HasSuffix(out, line) {
			t.Errorf("piece %d: output does not end with the last line", piece)
		}
	}
}

func tailCap(c *Capture) int {
	if c.tail == nil {
		return 0
	}
	return cap(c.tail.buf)
}

func TestStripANSI(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"\x1b[31mred\x1b[0m plain":         "red plain",
		"\x1b[1;32mok\x1b[K":               "ok",
		"\x1b]0;title\x07text":             "text",
		"\x1b]8;;http://x\x1b\\link":       "link",
		"a\x1b(Bb":                         "ab",
		"\x1b[?25lhidden cursor\x1b[?25h":  "hidden cursor",
		"no escapes":                       "no escapes",
		"\u009b31mcsi8\u009b0m":            "csi8",
		"progress\x1b[2K\x1b[1Gdone":       "progressdone",
		"\x1b7saved\x1b8 restored":         "saved restored",
		"\x1bP1$r0m\x1b\\after dcs string": "after dcs string",
	} {
		if got := StripANSI(in); got != want {
			t.Errorf("StripANSI(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestRedact(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ cmd, in, want string }{
		{"cat x", "key sk-proj-abcdefghijklmnop1234567890 end", "key sk-pro...7890 end"},
		{"cat x", "token=ghp_abcdefghijklmnopqrstuvwxyz0123456789", "token=ghp_ab...6789"},
		{"cat x", "AKIAABCDEFGHIJKLMNOP", "AKIAAB...MNOP"},
		{"curl -v x", "Authorization: Bearer abcdefghijklmnopqrstuvwxyz", "Authorization: Bearer abcdef...wxyz"},
		{"curl -v x", "x-api-key: 123456", "x-api-key: ***"},
		{"cat k", "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----\n", "[REDACTED PRIVATE KEY]\n"},
		{"cat k", "postgres://user:hunter2@db:5432/x", "postgres://user:***@db:5432/x"},
		{"cat k", `f"postgresql://{user}:{pw}@{host}"`, `f"postgresql://{user}:{pw}@{host}"`},
		{"git remote -v", "https://abcdefgh12345678@github.com/x", "https://abcdefgh12345678@github.com/x"[:8] + "***@github.com/x"},
		{"env", "OPENAI_API_KEY=abc123def456ghi789jkl\nKEYBOARD=us\nPATH=/bin", "OPENAI_API_KEY=abc123...9jkl\nKEYBOARD=us\nPATH=/bin"},
		{"cat main.go", "MAX_TOKENS=100", "MAX_TOKENS=100"},
		{"ls", "nothing secret here", "nothing secret here"},
		{"cat x", "mysk-abcdefghijklmnop1234", "mysk-abcdefghijklmnop1234"},
	} {
		if got := Redact(tc.in, tc.cmd); got != tc.want {
			t.Errorf("Redact(%q, %q) = %q, want %q", tc.in, tc.cmd, got, tc.want)
		}
	}
}

func TestExitMeaning(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cmd  string
		code int
		want string
	}{
		{"grep foo x.txt", 1, "No matches found (not an error)"},
		{"cat x | /usr/bin/grep foo", 1, "No matches found (not an error)"},
		{"LC_ALL=C rg foo", 1, "No matches found (not an error)"},
		{"grep foo x.txt", 2, ""},
		{"grep foo x.txt", 0, ""},
		{"diff a b", 1, "Files differ (expected, not an error)"},
		{"make && test -f x", 1, "Condition evaluated to false (expected, not an error)"},
		{"curl https://x", 22, "HTTP response code indicated error (e.g. 404, 500)"},
		{"git diff --exit-code", 1, "Non-zero exit (often normal — e.g. 'git diff' returns 1 when files differ)"},
		{"grep x f; go build", 1, ""},
	} {
		if got := ExitMeaning(tc.cmd, tc.code); got != tc.want {
			t.Errorf("ExitMeaning(%q, %d) = %q, want %q", tc.cmd, tc.code, got, tc.want)
		}
	}
}

func TestLongLivedGuidance(t *testing.T) {
	t.Parallel()
	for cmd, want := range map[string]string{
		"npm run dev":                         guidanceServer,
		"pnpm start":                          guidanceServer,
		"docker compose up":                   guidanceServer,
		"python3 -m http.server 8000":         guidanceServer,
		"uvicorn app:app --reload":            guidanceServer,
		"nohup ./server":                      guidanceWrappers,
		"make && setsid ./x":                  guidanceWrappers,
		"./server &":                          guidanceAmpersand,
		"./server & sleep 1; curl localhost":  guidanceAmpersand,
		"vite --help":                         "",
		"uvicorn --version":                   "",
		`git commit -m "nohup and & in text"`: "",
		"python3 -c 'import os; os.setsid()'": "",
		"go test ./... 2>&1":                  "",
		"ls -la && echo done":                 "",
		"npm install":                         "",
	} {
		if got := LongLivedGuidance(cmd); got != want {
			t.Errorf("LongLivedGuidance(%q) = %q, want %q", cmd, got, want)
		}
	}
}

func TestCheckWorkdir(t *testing.T) {
	t.Parallel()
	for dir, want := range map[string]string{
		"/home/u/project":  "",
		"src/sub dir":      "",
		"~/x+y@z=1,2":      "",
		"/tmp/$(rm -rf ~)": "Blocked: workdir contains disallowed character '$'. Use a simple filesystem path without shell metacharacters.",
		"/tmp/a;b":         "Blocked: workdir contains disallowed character ';'. Use a simple filesystem path without shell metacharacters.",
		"/tmp/it's":        `Blocked: workdir contains disallowed character "'". Use a simple filesystem path without shell metacharacters.`,
		"/tmp/x\nrm":       `Blocked: workdir contains disallowed character '\n'. Use a simple filesystem path without shell metacharacters.`,
	} {
		if got := CheckWorkdir(dir); got != want {
			t.Errorf("CheckWorkdir(%q) = %q, want %q", dir, got, want)
		}
	}
}
