package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"runtime/debug"
	"strings"
	"time"
)

// Budgets of the decoders of fetched content (issue 26). A decoder is
// what turns a fetched body into text: the PDF reader and the HTML
// parser, readability and Markdown converter. A hostile body can make
// them take far more than its size (a 5 MB PDF inflating to gigabytes, a
// page nested millions deep), so the agent runs them in a process of its
// own ([Isolated]) whose memory the kernel bounds, which is killed when
// the request's context ends (its timeout, the turn's cancellation), and
// whose output is cut at a size.
const (
	// DefaultDecodeMemory is the data a decoder process may use beyond
	// what its runtime mapped to start (RLIMIT_DATA, see limitMemory); the
	// Go heap's soft limit is three quarters of it.
	DefaultDecodeMemory = 512 << 20
	// DefaultMaxText is the most text a decode returns, in bytes.
	DefaultMaxText = 4 << 20
	// DefaultMaxPages is the most pages of a PDF that are read.
	DefaultMaxPages = 2000
)

// DecodeCommand is the hidden subcommand of the agent's binary that runs
// one decode in a process of its own (see [Isolated], [DecodeMain]).
const DecodeCommand = "decode-exec"

// Decode kinds: what a body is decoded as.
const (
	KindHTML = "html"
	KindPDF  = "pdf"
)

// DecodeJob is one body to decode.
type DecodeJob struct {
	Kind        string `json:"kind"` // KindHTML or KindPDF
	URL         string `json:"url"`  // the page's URL (links are made absolute against it)
	ContentType string `json:"content_type"`
	// MaxText and MaxPages bound the output (0: the defaults).
	MaxText  int `json:"max_text"`
	MaxPages int `json:"max_pages"`
	// Memory is the decoder process's data budget in bytes (0: the
	// default); only an isolated decoder can hold it.
	Memory int64 `json:"memory"`
}

func (j *DecodeJob) defaults() {
	if j.MaxText <= 0 {
		j.MaxText = DefaultMaxText
	}
	if j.MaxPages <= 0 {
		j.MaxPages = DefaultMaxPages
	}
	if j.Memory <= 0 {
		j.Memory = DefaultDecodeMemory
	}
}

// Decoded is what a decode gave.
type Decoded struct {
	Title, Content string
	// Cut says why the content stops before the end of the document ("":
	// it does not): a page or size limit, the time or memory budget.
	Cut string
}

// Decoder decodes fetched bodies. [InProcess] runs the decoders in the
// caller's process, bounded in output, pages and time but not in memory;
// [Isolated] runs them in a child process under a memory budget too.
type Decoder interface {
	Decode(ctx context.Context, job DecodeJob, body []byte) (Decoded, error)
}

// InProcess decodes in the calling process: the output, pages and the
// context bound a decode, memory does not. Tests and callers that trust
// their input use it; the agent uses [Isolated].
type InProcess struct{}

// Decode implements [Decoder].
func (InProcess) Decode(ctx context.Context, job DecodeJob, body []byte) (Decoded, error) {
	job.defaults()
	var buf bytes.Buffer
	title, cut, err := decodeTo(ctx, job, body, &buf)
	if err != nil {
		return Decoded{}, err
	}
	return Decoded{Title: title, Content: cleanText(buf.Bytes()), Cut: cut}, nil
}

// decodeTo runs job on body, writing the text to w: a PDF page by page, an
// HTML page once converted. It returns the title and why the text was cut.
func decodeTo(ctx context.Context, job DecodeJob, body []byte, w io.Writer) (title, cut string, err error) {
	switch job.Kind {
	case KindPDF:
		cut, err = pdfText(ctx, body, w, job.MaxPages, job.MaxText)
		return "", cut, err
	case KindHTML:
		text, err := decode(body, job.ContentType)
		if err != nil {
			return "", "", err
		}
		title, md, err := htmlToMarkdown(text, job.URL)
		if err != nil {
			return "", "", err
		}
		if len(md) > job.MaxText {
			md = string(bytes.ToValidUTF8([]byte(md[:job.MaxText]), nil))
			cut = fmt.Sprintf("the text is longer than %s; it stops there", sizeText(int64(job.MaxText)))
		}
		_, err = io.WriteString(w, md)
		return title, cut, err
	}
	return "", "", fmt.Errorf("decode: unknown kind %q", job.Kind)
}

func cleanText(b []byte) string {
	return strings.TrimSpace(string(bytes.ToValidUTF8(b, []byte("\uFFFD"))))
}

// Isolated decodes in a child process: Exe (the agent's own binary, run
// with [DecodeCommand]) started for each decode with the job on its
// standard input, limited to the job's Memory (RLIMIT_DATA, set by the
// child before it reads the body) and killed when ctx ends. The text
// streams back on its standard output; what arrived before a PDF decoder
// ran out of memory or time is kept and the cut says why. It is safe for
// concurrent use.
type Isolated struct {
	// Exe is the binary that has DecodeCommand (os.Executable()).
	Exe string
	// Env is the child's environment (nil: none).
	Env []string
}

// Decode implements [Decoder].
func (d Isolated) Decode(ctx context.Context, job DecodeJob, body []byte) (Decoded, error) {
	job.defaults()
	header, err := json.Marshal(job)
	if err != nil {
		return Decoded{}, err
	}
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(cctx, d.Exe, DecodeCommand)
	cmd.Env = d.Env
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Stdin = io.MultiReader(bytes.NewReader(header), strings.NewReader("\n"), bytes.NewReader(body))
	var stderr limitedBuffer
	stderr.max = 8 << 10
	cmd.Stderr = &stderr
	cmd.WaitDelay = time.Second
	out, err := cmd.StdoutPipe()
	if err != nil {
		return Decoded{}, fmt.Errorf("decode: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return Decoded{}, fmt.Errorf("decode: start %s: %w", d.Exe, err)
	}
	br := bufio.NewReader(out)
	var res Decoded
	var head struct {
		Title string `json:"title"`
	}
	line, rerr := br.ReadBytes('\n')
	if rerr == nil {
		_ = json.Unmarshal(line, &head)
		res.Title = head.Title
	}
	var text bytes.Buffer
	over := false
	if rerr == nil {
		n, _ := io.Copy(&text, io.LimitReader(br, int64(job.MaxText)+1))
		if over = n > int64(job.MaxText); over {
			cancel() // it wrote more than it may: stop it
			text.Truncate(job.MaxText)
		}
		_, _ = io.Copy(io.Discard, br)
	}
	werr := cmd.Wait()
	res.Content = cleanText(text.Bytes())
	msg := stderr.String()
	for _, l := range strings.Split(msg, "\n") {
		if c, ok := strings.CutPrefix(l, "cut: "); ok {
			res.Cut = c
		}
	}
	switch {
	case over:
		res.Cut = fmt.Sprintf("the text is longer than %s; it stops there", sizeText(int64(job.MaxText)))
		return res, nil
	case werr == nil:
		return res, nil
	case ctx.Err() != nil:
		if job.Kind == KindPDF && res.Content != "" {
			res.Cut = fmt.Sprintf("reading stopped at the time limit (%v) after %s of text", context.Cause(ctx), sizeText(int64(len(res.Content))))
			return res, nil
		}
		return Decoded{}, fmt.Errorf("decode %s: %w", job.Kind, ctx.Err())
	case outOfMemory(msg):
		what := fmt.Sprintf("the %s decoder ran out of its %s memory budget", strings.ToUpper(job.Kind), sizeText(job.Memory))
		if job.Kind == KindPDF && res.Content != "" {
			res.Cut = what + fmt.Sprintf(" after %s of text", sizeText(int64(len(res.Content))))
			return res, nil
		}
		return Decoded{}, errors.New(what + "; the document is refused")
	}
	for _, l := range strings.Split(msg, "\n") {
		if e, ok := strings.CutPrefix(l, "error: "); ok {
			return Decoded{}, errors.New(e)
		}
	}
	return Decoded{}, fmt.Errorf("decode %s: the decoder failed: %v: %s", job.Kind, werr, firstLines(msg, 3))
}

// DecodeMain is the main of [DecodeCommand]: it reads a DecodeJob (one
// JSON line) and the body from stdin, limits its own memory to the job's
// budget before reading the body, decodes, and writes a JSON line with the
// title followed by the text to stdout. A limit that cut the text is a
// line "cut: REASON" on stderr; a failure "error: MESSAGE" and status 1.
// A decoder that exceeds its memory dies of it (the Go runtime's fatal
// error, status 2).
func DecodeMain(stdin io.Reader, stdout, stderr io.Writer) int {
	br := bufio.NewReaderSize(stdin, 64<<10)
	line, err := br.ReadBytes('\n')
	var job DecodeJob
	if err == nil {
		err = json.Unmarshal(line, &job)
	}
	if err != nil {
		fmt.Fprintf(stderr, "error: decode: read the job: %v\n", err)
		return 1
	}
	job.defaults()
	limitMemory(job.Memory)
	debug.SetMemoryLimit(job.Memory * 3 / 4)
	body, err := io.ReadAll(io.LimitReader(br, DefaultMaxBytes+1))
	if err != nil {
		fmt.Fprintf(stderr, "error: decode: read the body: %v\n", err)
		return 1
	}
	bw := bufio.NewWriterSize(stdout, 64<<10)
	defer bw.Flush()
	// The title goes first, so a PDF's pages can stream after it; an HTML
	// page's title is known once it is converted, and it is written whole.
	if job.Kind == KindPDF {
		bw.WriteString("{}\n")
		_, cut, err := decodeTo(context.Background(), job, body, bw)
		return finish(bw, stderr, cut, err)
	}
	var buf bytes.Buffer
	title, cut, err := decodeTo(context.Background(), job, body, &buf)
	if err == nil {
		head, _ := json.Marshal(map[string]string{"title": title})
		bw.Write(head)
		bw.WriteString("\n")
		bw.Write(buf.Bytes())
	}
	return finish(bw, stderr, cut, err)
}

func finish(bw *bufio.Writer, stderr io.Writer, cut string, err error) int {
	if ferr := bw.Flush(); err == nil && ferr != nil {
		err = ferr
	}
	if err != nil {
		fmt.Fprintf(stderr, "error: %v\n", err)
		return 1
	}
	if cut != "" {
		fmt.Fprintf(stderr, "cut: %s\n", cut)
	}
	return 0
}

// outOfMemory says whether a decoder's stderr tells of running out of its
// memory limit: the Go runtime's fatal error, a failed mapping, or the race
// detector's runtime failing to map its own metadata (test binaries).
func outOfMemory(stderr string) bool {
	// Under the address-space limit the runtime may also fail to map a
	// thread's stack or the race detector its shadow memory.
	for _, s := range []string{"out of memory", "cannot allocate memory", "ThreadSanitizer failed to allocate",
		"failed to create new OS thread", "pthread_create failed", "failed to mmap", "ThreadSanitizer: mmap"} {
		if strings.Contains(stderr, s) {
			return true
		}
	}
	return false
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if room := l.max - l.Len(); room > 0 {
		l.Buffer.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(strings.TrimSpace(s), "\n", n+1)
	return strings.Join(lines[:min(n, len(lines))], " / ")
}

// sizeText writes a byte count for people ("4 MiB", "512 MiB", "37 KiB").
func sizeText(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
