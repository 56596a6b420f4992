package model

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"
)

func TestErrorBodyMessage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ body, msg, code string }{
		{`{"error":{"message":"Incorrect API key","type":"invalid_request_error","code":"invalid_api_key"}}`, "Incorrect API key", "invalid_api_key"},
		{`{"error":{"message":"quota","type":"insufficient_quota","code":null}}`, "quota", "insufficient_quota"},
		{`{"error":{"message":"bad","code":400}}`, "bad", ""},
		{`{"error":"model \"x\" not found"}`, `model "x" not found`, ""},
		{`{"object":"error","message":"vLLM says no"}`, "vLLM says no", ""},
		{`{"detail":"Not Found"}`, "Not Found", ""},
		{`{"detail":[{"loc":["body"],"msg":"field required"}]}`, `[{"loc":["body"],"msg":"field required"}]`, ""},
		{"404 page not found\n", "404 page not found", ""},
		{"", "", ""},
	} {
		msg, code := errorBodyMessage([]byte(tc.body))
		if msg != tc.msg || code != tc.code {
			t.Errorf("errorBodyMessage(%q) = %q, %q; want %q, %q", tc.body, msg, code, tc.msg, tc.code)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		header http.Header
		want   time.Duration
		ok     bool
	}{
		{http.Header{}, 0, false},
		{http.Header{"Retry-After": {"0"}}, 0, true},
		{http.Header{"Retry-After": {"2"}}, 2 * time.Second, true},
		{http.Header{"Retry-After": {"1.5"}}, 1500 * time.Millisecond, true},
		{http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"9"}}, 250 * time.Millisecond, true},
		{http.Header{"Retry-After": {"Mon, 02 Jan 2006 15:04:05 GMT"}}, 0, true}, // in the past
		{http.Header{"Retry-After": {"soon"}}, 0, false},
		{http.Header{"Retry-After": {"-3"}}, 0, false},
	} {
		f := &httpFailure{status: 429, header: tc.header}
		got, ok := f.retryAfter()
		if got != tc.want || ok != tc.ok {
			t.Errorf("retryAfter(%v) = %v, %v; want %v, %v", tc.header, got, ok, tc.want, tc.ok)
		}
	}
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		base    time.Duration
		attempt int
		lo, hi  time.Duration
	}{
		{500 * time.Millisecond, 0, 375 * time.Millisecond, 500 * time.Millisecond},
		{500 * time.Millisecond, 1, 750 * time.Millisecond, time.Second},
		{500 * time.Millisecond, 2, 1500 * time.Millisecond, 2 * time.Second},
		{500 * time.Millisecond, 10, 6 * time.Second, maxBackoff},
		{500 * time.Millisecond, 100, 6 * time.Second, maxBackoff},
		{time.Millisecond, 0, 750 * time.Microsecond, time.Millisecond},
	} {
		for range 20 {
			if got := backoff(tc.base, tc.attempt); got < tc.lo || got > tc.hi {
				t.Errorf("backoff(%v, %d) = %v, want within [%v, %v]", tc.base, tc.attempt, got, tc.lo, tc.hi)
			}
		}
	}
}

func TestRetryable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status int
		body   string
		want   bool
	}{
		{429, `{"error":{"message":"slow down","code":"rate_limit_exceeded"}}`, true},
		{429, `{"error":{"message":"no money","code":"insufficient_quota"}}`, false},
		{408, "", true},
		{500, "", true},
		{503, "", true},
		{400, "", false},
		{401, "", false},
		{404, "", false},
	} {
		f := &httpFailure{status: tc.status, body: []byte(tc.body)}
		if got := f.retryable(); got != tc.want {
			t.Errorf("retryable(%d, %s) = %v, want %v", tc.status, tc.body, got, tc.want)
		}
	}
}

func TestErrorWrapping(t *testing.T) {
	t.Parallel()
	cause := errors.New("dial tcp: connection refused")
	err := fmt.Errorf("turn: %w", &Error{Kind: Unreachable, Message: "Cannot reach the model server.", Err: cause})
	if KindOf(err) != Unreachable {
		t.Errorf("KindOf(%v) = %q, want %q", err, KindOf(err), Unreachable)
	}
	if !errors.Is(err, cause) {
		t.Errorf("errors.Is(%v, cause) = false, want true", err)
	}
	if got, want := err.Error(), "turn: Cannot reach the model server. (dial tcp: connection refused)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if KindOf(cause) != "" {
		t.Errorf("KindOf(plain error) = %q, want empty", KindOf(cause))
	}
}

// FuzzParseScript checks that no script text makes the parser panic, and
// that a parsed script has replies.
func FuzzParseScript(f *testing.F) {
	for _, s := range []string{
		"replies:\n  - text: hi\n",
		"replies:\n  - tool_calls:\n      - name: x\n        arguments: {a: [1, {b: c}]}\n    finish: length\n    delay: 1ms\n",
		"replies:\n  - expect: {role: tool, contains: x, matches: '^a'}\n",
		"replies: [{text: a}, {thought: b}]",
		"replies:\n  - text: &a x\n  - text: *a\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		s, err := ParseScript("fuzz.yaml", []byte(src))
		if err != nil {
			if KindOf(err) != BadConfig {
				t.Fatalf("ParseScript(%q) error = %v, want a BadConfig *Error", src, err)
			}
			return
		}
		if s.Len() == 0 {
			t.Fatalf("ParseScript(%q) returned a script without replies", src)
		}
	})
}

// KindOf returns the kind of the first *Error in err's chain, or "".
func KindOf(err error) ErrorKind {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Kind
	}
	return ""
}
