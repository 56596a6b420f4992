package tools

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

	"github.com/hermes-acp/hermes-acp/internal/pyfmt"
	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/workspace"
)

// read_file shows a window of a text file with line numbers, as
// hermes-agent's tool of the same name does: pagination clamps, the device
// and binary guards, the read-deny list, the unchanged-file dedup, the
// consecutive-read loop guard, similar-file suggestions for a missing file
// and a 100 000-character budget with next_offset. When the editor serves
// reads, the text is the editor's (unsaved changes included). Files larger
// than readFileStreamBytes that the editor does not serve are streamed from
// the disk, so the first page of a huge file costs one pass of newline
// counting, not a full read.
var _ = declare(registry.Tool[readFileDeps]{
	Spec: registry.Spec{Entry: registry.Entry{
		Name:              readFileName,
		Toolset:           "file",
		Emoji:             "📖",
		Description:       readFileDescription,
		MaxResultChars:    registry.Unlimited,
		Kind:              registry.KindRead,
		ReadOnly:          true,
		Idempotent:        true,
		ParallelSafe:      true,
		PathArg:           "path",
		LineArgs:          []string{"offset"},
		ReadsSavedResults: true,
		Title:             readFileTitle,
		Preview:           func(map[string]any) string { return "" },
		Render:            readFileRender,
	}, Params: readFileParams{}},
	New: func(d readFileDeps) registry.Handler {
		return registry.Typed(func(ctx context.Context, call *registry.Call, p *readFileParams) (registry.Result, error) {
			return readFile(ctx, d, call, p)
		})
	},
})

//go:embed read_file.md
var readFileDescription string

// readFileName is the tool's name, for other tools' hints.
const readFileName = "read_file"

// readFileParams are read_file's arguments. Offset and limit are any:
// hermes takes "20" as 20 and anything unusable as the default.
type readFileParams struct {
	Path   string `json:"path" schema:"required" desc:"Path to the file to read (absolute, relative, or ~/path)"`
	Offset any    `json:"offset" schema:"type=integer,default=1,minimum=1" desc:"Line number to start reading from (1-indexed, default: 1)"`
	Limit  any    `json:"limit" schema:"type=integer,default=500,maximum=2000" desc:"Maximum number of lines to read (default: 500, max: 2000)"`
}

// Limits, hermes-agent's defaults.
const (
	readFileDefaultLimit = 500
	readFileMaxLimit     = 2000 // tool_output.max_lines
	readFileMaxLineChars = 2000 // tool_output.max_line_length
	// readFileClampBytes is how much of one line is kept while scanning:
	// enough bytes for readFileMaxLineChars characters of up to 4 bytes.
	readFileClampBytes = 4*readFileMaxLineChars + 1
	// readFileMaxChars is the character budget of one read's content.
	readFileMaxChars = 100_000
	// readFileLargeBytes is the size above which a wide, truncated read
	// gets the large-file hint.
	readFileLargeBytes = 512_000
	// readFileStreamBytes is the size above which a file the editor does
	// not serve is streamed from the disk instead of read whole.
	readFileStreamBytes = 1 << 20
	// readFileChunk is the buffer size of the streaming scan.
	readFileChunk = 256 << 10
	// readFileDedupCap bounds the dedup entries kept per session.
	readFileDedupCap = 1000
	// readFileSimilarScan is how many directory entries are scored for
	// similar-file suggestions (hermes's `ls | head -50`).
	readFileSimilarScan = 50
)

// Messages the model reads verbatim; the wording is hermes-agent's.
const (
	readFileMsgUnchanged = "File unchanged since last read. The content from the earlier read_file result in " +
		"this conversation is still current — refer to that instead of re-reading."
	readFileMsgBinary = "Binary file - cannot display as text. Use appropriate tools to handle this file type."
)

// readFileResult is read_file's answer for a text file (hermes's
// ReadResult.to_dict plus the advisory keys), in hermes's key order.
type readFileResult struct {
	Content           string `json:"content"`
	TotalLines        int    `json:"total_lines"`
	FileSize          int64  `json:"file_size"`
	Truncated         bool   `json:"truncated"`
	TruncatedBy       string `json:"truncated_by,omitempty"`
	NextOffset        int    `json:"next_offset,omitempty"`
	TruncatedLines    bool   `json:"truncated_lines,omitempty"`
	Hint              string `json:"hint,omitempty"`
	ExtractedDocument bool   `json:"extracted_document,omitempty"`
	LargeHint         string `json:"_hint,omitempty"`
	Warning           string `json:"_warning,omitempty"`
	// Encoding names the file's encoding when it is not UTF-8, and
	// EncodingNote says what that means for edits.
	Encoding     string `json:"encoding,omitempty"`
	EncodingNote string `json:"encoding_note,omitempty"`
}

func readFile(ctx context.Context, env readFileDeps, _ *registry.Call, params *readFileParams) (registry.Result, error) {
	raw := params.Path
	offset, limit := readFilePagination(params.Offset, params.Limit)
	ws := env.Workspace()

	// A result the session's budget saved lies outside the workspace; its
	// note tells the model to page through it with read_file.
	if real, ok := env.SavedResult(raw); ok {
		return readSavedResult(ctx, raw, real, offset, limit)
	}

	// Device guard, workspace confinement and path parsing, in one step.
	p, err := ws.Resolve(raw)
	if err != nil {
		return readFileResolveError(raw, err), nil
	}

	ext := strings.ToLower(filepath.Ext(p.Base()))
	notebook := ext == ".ipynb"
	switch {
	case ext == ".docx" || ext == ".xlsx":
		msg := fmt.Sprintf("Cannot read '%s': extracting text from %s files is not supported yet.", raw, ext)
		if env.Enabled("terminal") {
			msg += " Use the terminal to convert it to text (for example with pandoc or a short script) and read the result."
		}
		return registry.Error(msg), nil
	case workspace.IsImageExt(p.Base()):
		fi, err := ws.Stat(p)
		if err != nil {
			if readFileMissing(err) {
				return readFileNotFound(ws, raw, p), nil
			}
			return registry.Error(err.Error()), nil
		}
		return registry.OK(struct {
			IsImage  bool   `json:"is_image"`
			IsBinary bool   `json:"is_binary"`
			FileSize int64  `json:"file_size"`
			Hint     string `json:"hint"`
		}{true, true, fi.Size(), readFileImageHint(env)}), nil
	case workspace.IsBinaryExt(p.Base()):
		return registry.Error(fmt.Sprintf("Cannot read binary file '%s' (%s).%s", raw, ext, readFileBinaryHint(env))), nil
	}

	if err := ws.CheckRead(p); err != nil {
		return registry.Error(err.Error()), nil
	}

	src, msg, err := readFileOpen(ctx, env, raw, p, notebook)
	if err != nil {
		return registry.Result{}, fmt.Errorf("read_file %s: %w", p.Abs(), err)
	}
	if msg.Value != nil {
		return msg, nil
	}
	defer src.close()

	tr := env.Reads()
	key := readFileDedupKey{path: p.Abs(), offset: offset, limit: limit}
	if out, hit := tr.dedupHit(key, src.stamp(tr.seed), raw); hit {
		return out, nil
	}

	res, recorded, msg, err := readFileWindow(ctx, src, offset, limit)
	if err != nil {
		return registry.Result{}, fmt.Errorf("read_file %s: %w", p.Abs(), err)
	}
	if msg.Value != nil {
		return msg, nil
	}

	count := tr.recordRead(key, src.stamp(tr.seed))
	env.State().RecordRead(p, recorded, offset > 1 || res.Truncated)
	if src.raw != nil && !src.notebook {
		// A file the model reads is a file it may edit next; the lint of
		// an edit sees the decoded text.
		learn := src.raw
		if src.encoding != "" {
			learn = src.data
		}
		env.LearnLint(p, learn)
	}
	if count >= 4 {
		return registry.Failed(struct {
			Error       string `json:"error"`
			Path        string `json:"path"`
			AlreadyRead int    `json:"already_read"`
		}{fmt.Sprintf("BLOCKED: You have read this exact file region %d times in a row. The content has NOT changed. "+
			"You already have this information. STOP re-reading and proceed with your task.", count), raw, count}), nil
	}
	if count == 3 {
		res.Warning = fmt.Sprintf("You have read this exact file region %d times consecutively. The content has not "+
			"changed since your last read. Use the information you already have. If you are stuck in a loop, stop "+
			"reading and proceed with writing or responding.", count)
	}
	return registry.OK(res), nil
}

// readFilePagination normalises offset and limit as hermes does: a value
// that is not an integer gets the default, offset is at least 1 and limit
// is clamped to [1, readFileMaxLimit].
func readFilePagination(offset, limit any) (int, int) {
	o := max(1, readFileInt(offset, 1))
	l := min(max(1, readFileInt(limit, readFileDefaultLimit)), readFileMaxLimit)
	return o, l
}

// readFileInt converts a JSON argument to an integer the way Python's int()
// does for the values a model sends (numbers truncate toward zero, numeric
// strings parse); anything else gives def. The result is kept within ±1e9
// so that later arithmetic cannot overflow.
func readFileInt(v any, def int) int {
	const bound = 1_000_000_000
	var n float64
	switch x := v.(type) {
	case int:
		n = float64(x)
	case int64:
		n = float64(x)
	case float64:
		n = x
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return def
		}
		n = f
	case string:
		i, err := strconv.Atoi(strings.TrimSpace(x))
		if err != nil {
			return def
		}
		n = float64(i)
	default:
		return def
	}
	if math.IsNaN(n) || math.IsInf(n, 0) {
		return def
	}
	return int(max(-bound, min(bound, math.Trunc(n))))
}

// readFileResolveError renders a Resolve failure: hermes's device message
// for device paths and special files, the workspace's message otherwise.
func readFileResolveError(raw string, err error) registry.Result {
	if errors.Is(err, workspace.ErrSpecialFile) {
		msg := err.Error()
		if strings.Contains(msg, "named pipe") || strings.Contains(msg, "socket") {
			return registry.Error(fmt.Sprintf("Cannot read '%s': not a regular file (directory, FIFO, socket, or device). Reading it could block indefinitely.", raw))
		}
		return registry.Error(fmt.Sprintf("Cannot read '%s': this is a device file that would block or produce infinite output.", raw))
	}
	return registry.Error(err.Error())
}

// readFileSource is the text read_file pages through: either content held
// in memory (the editor's buffer, a small file, an extracted notebook) or a
// large file streamed from the disk.
type readFileSource struct {
	data     []byte    // the text, when held in memory
	file     io.Reader // the stream, when not
	closer   io.Closer // closes file
	raw      []byte    // what RecordRead hashes: the file's bytes (nil when streamed)
	size     int64     // the file's size in bytes
	modNano  int64     // disk modification time, for streamed files
	notebook bool      // data is a notebook extracted to text
	encoding string    // the file's encoding when it is not UTF-8 ("" for UTF-8)
	encNote  string    // what the encoding means for edits, for the model
	sumOnce  sync.Once // guards sum
	sum      uint64    // hash of raw, computed once
}

func (s *readFileSource) close() {
	if s.closer != nil {
		s.closer.Close()
	}
}

// stamp identifies the content the model would see: a hash of the text for
// content held in memory, the modification time and size for a stream.
func (s *readFileSource) stamp(seed maphash.Seed) readFileStamp {
	if s.raw == nil {
		return readFileStamp{modNano: s.modNano, size: s.size}
	}
	s.sumOnce.Do(func() { s.sum = maphash.Bytes(seed, s.raw) })
	return readFileStamp{size: s.size, sum: s.sum, hashed: true}
}

// readFileOpen gets the text of p: through env.Files() (the editor's buffer
// when it serves reads) for notebooks, editor-served files and files up to
// readFileStreamBytes, else as a stream from the disk. On failure it
// returns the result to show the model, or an error when ctx is done.
func readFileOpen(ctx context.Context, env readFileDeps, raw string, p workspace.Path, notebook bool) (*readFileSource, registry.Result, error) {
	ws := env.Workspace()
	files := env.Files()
	fi, statErr := ws.Stat(p)
	var size int64
	switch {
	case statErr == nil && fi.IsDir():
		return nil, registry.Error(fmt.Sprintf("Cannot read '%s': it is a directory, not a regular file.%s", raw, readFileDirHint(env))), nil
	case statErr == nil && !fi.Mode().IsRegular():
		return nil, readFileSpecial(raw, fi.Mode()), nil
	case statErr == nil:
		size = fi.Size()
	case !readFileMissing(statErr):
		return nil, registry.Error(statErr.Error()), nil
	case !files.ReadsFromEditor():
		return nil, readFileNotFound(ws, raw, p), nil
	}

	if notebook || files.ReadsFromEditor() || size <= readFileStreamBytes {
		data, err := files.Read(ctx, p)
		switch {
		case err == nil:
			src := &readFileSource{data: data, raw: data, size: int64(len(data))}
			if notebook {
				if text, ok := readFileNotebook(data); ok {
					src.data, src.notebook = []byte(text), true
				}
			}
			if !src.notebook {
				readFileEncoding(ctx, env, p, src)
			}
			return src, registry.Result{}, nil
		case ctx.Err() != nil:
			return nil, registry.Result{}, ctx.Err()
		case readFileMissing(err):
			return nil, readFileNotFound(ws, raw, p), nil
		case errors.Is(err, workspace.ErrTooLarge) && !notebook && statErr == nil:
			// Too large to hold: stream it from the disk below.
		default:
			var we *workspace.Error
			if errors.As(err, &we) {
				return nil, registry.Error(we.Msg), nil
			}
			return nil, registry.Error(fmt.Sprintf("Failed to read file: %v", err)), nil
		}
	}

	f, sfi, err := ws.OpenRegular(p)
	if err != nil {
		if readFileMissing(err) {
			return nil, readFileNotFound(ws, raw, p), nil
		}
		return nil, registry.Error(fmt.Sprintf("Failed to read file: %v", err)), nil
	}
	src := &readFileSource{file: f, closer: f, size: sfi.Size(), modNano: sfi.ModTime().UnixNano()}
	readFileStreamEncoding(src)
	return src, registry.Result{}, nil
}

// readFileEncoding decodes src, a whole file held in memory, from its text
// encoding when that is not UTF-8, and notes the encoding for the model.
// A binary file is left alone for the scan to refuse. Text the editor
// served is UTF-8 already; it is noted when the editor could not decode
// the file (see editorLossy).
func readFileEncoding(ctx context.Context, env readFileDeps, p workspace.Path, src *readFileSource) {
	if lossy, enc := editorLossy(ctx, env, p, string(src.data)); lossy {
		src.encoding = enc.String()
		src.encNote = "The editor decoded this file as UTF-8 and shows \ufffd for the bytes it could not decode; on disk it is " +
			enc.String() + ". Edits are refused until the file is reopened in the editor with that encoding."
		return
	}
	enc := workspace.DetectEncoding(src.data)
	if enc.Kind == workspace.UTF8 || workspace.LooksBinary(src.data) {
		return
	}
	src.encoding, src.encNote = enc.String(), enc.Note()
	text, err := enc.Decode(src.data)
	if err != nil {
		// Show what can be decoded; edits will be refused.
		b, _ := io.ReadAll(enc.NewReader(bytes.NewReader(src.data)))
		text = string(b)
		src.encNote = "This file is " + enc.String() + " but cannot be decoded and written back byte for byte " +
			"(an odd number of bytes or an unpaired surrogate); it is shown as far as it decodes and edits are refused."
	}
	src.data = []byte(text)
}

// readFileStreamEncoding makes src, a file streamed from the disk, decode
// from its encoding as judged by its first bytes (invalid UTF-8 further on
// is not seen).
func readFileStreamEncoding(src *readFileSource) {
	br := bufio.NewReaderSize(src.file, 4096)
	head, _ := br.Peek(4096)
	src.file = br
	enc := workspace.DetectEncodingHead(head)
	if enc.Kind == workspace.UTF8 || workspace.LooksBinary(head) {
		return
	}
	src.encoding, src.encNote = enc.String(), enc.Note()
	src.file = enc.NewReader(br)
}

// readFileSpecial is hermes's refusal of a file that is not regular.
func readFileSpecial(raw string, mode fs.FileMode) registry.Result {
	if mode&(fs.ModeNamedPipe|fs.ModeSocket) != 0 {
		return registry.Error(fmt.Sprintf("Cannot read '%s': not a regular file (directory, FIFO, socket, or device). Reading it could block indefinitely.", raw))
	}
	return registry.Error(fmt.Sprintf("Cannot read '%s': this is a device file that would block or produce infinite output.", raw))
}

// readFileMissing reports whether err says the file (or a parent
// directory) does not exist.
func readFileMissing(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

// readFileRender pages through src and builds the result. recorded is what
// the session state records as read (the whole file when it was read
// whole). A non-empty msg is a complete result to return instead (a binary
// file). err reports a broken stream or a cancelled call.
func readFileWindow(ctx context.Context, src *readFileSource, offset, limit int) (res readFileResult, recorded []byte, msg registry.Result, err error) {
	r := src.file
	if src.data != nil || r == nil {
		r = bytes.NewReader(src.data)
	}
	pg, err := readFileScan(ctx, r, offset, limit, readFileMaxChars, !src.notebook)
	if err != nil {
		return res, nil, registry.Result{}, err
	}
	if pg.binary {
		return res, nil, registry.Failed(struct {
			Error    string `json:"error"`
			IsBinary bool   `json:"is_binary"`
			FileSize int64  `json:"file_size"`
		}{readFileMsgBinary, true, src.size}), nil
	}
	recorded = src.raw
	if recorded == nil {
		recorded = pg.shownBytes
	}

	res = readFileResult{TotalLines: pg.total, FileSize: src.size, ExtractedDocument: src.notebook,
		Encoding: src.encoding, EncodingNote: src.encNote}
	end := offset + limit - 1
	switch {
	case src.size == 0:
		res.Hint = fmt.Sprintf("File is empty (%d bytes).", src.size)
		return res, recorded, registry.Result{}, nil
	case offset > pg.total:
		res.Hint = fmt.Sprintf("Note: offset %d is beyond the end of the file (%d lines total). Retry with offset <= %d.",
			offset, pg.total, pg.total)
		return res, recorded, registry.Result{}, nil
	}
	res.Content = strings.Join(pg.entries, "\n")
	if pg.budgetHit {
		kept := len(pg.entries)
		next := offset + kept
		res.Truncated, res.TruncatedBy, res.NextOffset = true, "bytes", next
		res.Hint = fmt.Sprintf("Output truncated at the %s-char read budget after %d line(s) (showing lines %d-%d of %d). Use offset=%d to continue.",
			pyfmt.Commas(readFileMaxChars), kept, offset, next-1, pg.total, next)
		if pg.clamped {
			res.TruncatedLines = true
			res.Hint += " Note: the first line alone exceeded the budget and was clamped mid-line; its remainder is not retrievable via offset."
		}
	} else if pg.total > end {
		res.Truncated = true
		res.Hint = fmt.Sprintf("Use offset=%d to continue reading (showing %d-%d of %d lines)", end+1, offset, end, pg.total)
	}
	if src.size > readFileLargeBytes && limit > 200 && res.Truncated {
		res.LargeHint = fmt.Sprintf("This file is large (%s bytes). Consider reading only the section you need with "+
			"offset and limit to keep context usage efficient.", pyfmt.Commas(src.size))
	}
	return res, recorded, registry.Result{}, nil
}

// readFilePage is one scanned window of a text.
type readFilePage struct {
	entries    []string // rendered "<n>|<line>" rows that fit the budget
	total      int      // lines in the whole text
	budgetHit  bool     // a row of the window did not fit the budget
	clamped    bool     // the first row alone exceeded the budget and was cut
	binary     bool     // the first 1000 bytes look binary
	shownBytes []byte   // the raw bytes of the rows shown, for RecordRead
}

// readFileScan reads r once: it checks the first 1000 bytes for binary
// content (when checkBinary), renders lines offset..offset+limit-1 as
// "<n>|<line>" rows (a leading UTF-8 BOM dropped from line 1, a trailing
// CR dropped, lines longer than readFileMaxLineChars characters cut with
// "... [truncated]") while they fit in budget characters, and counts every
// line of the text (a last line without a newline counts). Past the window
// it only counts newlines, a chunk at a time.
func readFileScan(ctx context.Context, r io.Reader, offset, limit, budget int, checkBinary bool) (readFilePage, error) {
	var pg readFilePage
	end := offset + limit - 1
	buf := make([]byte, readFileChunk)
	lineno := 1        // the line being scanned
	var cur []byte     // kept bytes of the current line, when it is in the window
	partial := false   // the current line has bytes but no newline yet
	running := 0       // characters of the rows kept, with separators
	collecting := true // rows still fit in the budget
	first := true

	emit := func(line []byte) {
		if !collecting {
			return
		}
		if lineno == 1 {
			line = bytes.TrimPrefix(line, []byte("\ufeff"))
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		row := strconv.Itoa(lineno) + "|" + readFileClampLine(line)
		n := utf8.RuneCountInString(row)
		add := n
		if len(pg.entries) > 0 {
			add++
		}
		if running+add > budget {
			pg.budgetHit = true
			collecting = false
			if len(pg.entries) == 0 {
				pg.entries = append(pg.entries, readFileClampRunes(row, budget))
				pg.clamped = true
				pg.shownBytes = append(pg.shownBytes, line...)
			}
			return
		}
		running += add
		pg.entries = append(pg.entries, row)
		pg.shownBytes = append(append(pg.shownBytes, line...), '\n')
	}

	for {
		n, err := io.ReadFull(r, buf)
		chunk := buf[:n]
		if first {
			first = false
			if checkBinary && workspace.LooksBinary(chunk) {
				pg.binary = true
				return pg, nil
			}
		}
		if lineno > end {
			pg.total += bytes.Count(chunk, []byte{'\n'})
			if n > 0 {
				partial = chunk[n-1] != '\n'
			}
		} else {
			for len(chunk) > 0 {
				i := bytes.IndexByte(chunk, '\n')
				inPage := lineno >= offset
				if i < 0 {
					if inPage && len(cur) < readFileClampBytes {
						cur = append(cur, chunk[:min(len(chunk), readFileClampBytes-len(cur))]...)
					}
					partial = true
					break
				}
				if inPage {
					if len(cur) < readFileClampBytes {
						cur = append(cur, chunk[:min(i, readFileClampBytes-len(cur))]...)
					}
					emit(cur)
					cur = cur[:0]
				}
				pg.total++
				lineno++
				partial = false
				chunk = chunk[i+1:]
				if lineno > end {
					pg.total += bytes.Count(chunk, []byte{'\n'})
					if len(chunk) > 0 {
						partial = chunk[len(chunk)-1] != '\n'
					}
					break
				}
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return pg, err
		}
		if err := ctx.Err(); err != nil {
			return pg, err
		}
	}
	if partial {
		pg.total++
		if lineno >= offset && lineno <= end {
			emit(cur)
		}
	}
	return pg, nil
}

// readFileClampLine renders one line, cut to readFileMaxLineChars
// characters with "... [truncated]" when longer.
func readFileClampLine(line []byte) string {
	if len(line) <= readFileMaxLineChars || utf8.RuneCount(line) <= readFileMaxLineChars {
		return string(line)
	}
	return readFileClampRunes(string(line), readFileMaxLineChars) + "... [truncated]"
}

// readFileClampRunes returns the first n characters of s (an invalid byte
// counts as one character).
func readFileClampRunes(s string, n int) string {
	i := 0
	for c := 0; c < n && i < len(s); c++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
}

// readFileNotebook renders a Jupyter notebook as text the way hermes's
// read_extract does: each markdown, code and raw cell under a
// "# ── <Kind> cell <n> ──" header. It reports false for anything that is
// not a notebook with readable cells; the file is then read as plain text.
func readFileNotebook(data []byte) (string, bool) {
	var nb struct {
		Cells      []json.RawMessage `json:"cells"`
		Worksheets []struct {
			Cells []json.RawMessage `json:"cells"`
		} `json:"worksheets"`
	}
	if err := json.Unmarshal(data, &nb); err != nil {
		return "", false
	}
	cells := nb.Cells
	if cells == nil {
		for _, ws := range nb.Worksheets {
			cells = append(cells, ws.Cells...)
		}
	}
	labels := map[string]string{"markdown": "Markdown", "code": "Code", "raw": "Raw"}
	counts := map[string]int{}
	var out []string
	for _, rawCell := range cells {
		var cell struct {
			Type   string          `json:"cell_type"`
			Source json.RawMessage `json:"source"`
		}
		if json.Unmarshal(rawCell, &cell) != nil {
			continue
		}
		label, ok := labels[cell.Type]
		if !ok {
			continue
		}
		counts[cell.Type]++
		header := "# ── " + label + " cell"
		if cell.Type != "raw" {
			header += " " + strconv.Itoa(counts[cell.Type])
		}
		out = append(out, header+" ──", strings.TrimRight(readFileNotebookSource(cell.Source), "\n"), "")
	}
	if len(out) == 0 {
		return "", false
	}
	return strings.TrimRight(strings.Join(out, "\n"), "\n") + "\n", true
}

// readFileNotebookSource joins a cell's source, a string or a list of
// strings.
func readFileNotebookSource(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []any
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var b strings.Builder
	for _, p := range parts {
		if s, ok := p.(string); ok {
			b.WriteString(s)
		}
	}
	return b.String()
}

// readFileNotFound is hermes's missing-file result: the error and up to
// five similar names from the same directory.
func readFileNotFound(ws *workspace.Workspace, raw string, p workspace.Path) registry.Result {
	return registry.Failed(struct {
		Error        string   `json:"error"`
		SimilarFiles []string `json:"similar_files"`
	}{"File not found: " + raw, readFileSimilar(ws, raw, p)})
}

// readFileSimilar scores the first readFileSimilarScan names (sorted) of
// the directory of p against its name, as hermes does: the same name in
// another case 100, the same stem 90, one a prefix of the other 70, the
// name inside the entry 60, the entry inside the name 40, the same
// extension with 40% of the characters in common 30. It returns up to five
// paths, best first, spelled like raw.
func readFileSimilar(ws *workspace.Workspace, raw string, p workspace.Path) []string {
	out := []string{}
	dir, err := ws.Resolve(filepath.Dir(p.Abs()))
	if err != nil {
		return out
	}
	root, err := ws.OpenDirRoot(dir)
	if err != nil {
		return out
	}
	defer root.Close()
	d, err := root.Open(".")
	if err != nil {
		return out
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	slices.Sort(names)
	if len(names) > readFileSimilarScan {
		names = names[:readFileSimilarScan]
	}

	name := strings.ToLower(p.Base())
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	type scored struct {
		score int
		name  string
	}
	var hits []scored
	for _, f := range names {
		lf := strings.ToLower(f)
		score := 0
		switch {
		case lf == name:
			score = 100
		case strings.TrimSuffix(lf, filepath.Ext(lf)) == stem:
			score = 90
		case strings.HasPrefix(lf, name) || strings.HasPrefix(name, lf):
			score = 70
		case strings.Contains(lf, name):
			score = 60
		case strings.Contains(name, lf) && len(lf) > 2:
			score = 40
		case ext != "" && filepath.Ext(lf) == ext:
			if float64(readFileCommonChars(name, lf)) >= float64(max(utf8.RuneCountInString(name), utf8.RuneCountInString(lf)))*0.4 {
				score = 30
			}
		}
		if score > 0 {
			hits = append(hits, scored{score, f})
		}
	}
	slices.SortStableFunc(hits, func(a, b scored) int { return b.score - a.score })

	base := filepath.Dir(raw)
	plain := !strings.HasPrefix(raw, "~") && !strings.HasPrefix(strings.ToLower(raw), "file:")
	for _, h := range hits[:min(5, len(hits))] {
		switch {
		case !plain:
			out = append(out, filepath.Join(dir.Abs(), h.name))
		default:
			out = append(out, filepath.Join(base, h.name))
		}
	}
	return out
}

// readFileCommonChars counts the distinct characters a and b share.
func readFileCommonChars(a, b string) int {
	set := map[rune]bool{}
	for _, r := range a {
		set[r] = true
	}
	n := 0
	seen := map[rune]bool{}
	for _, r := range b {
		if set[r] && !seen[r] {
			seen[r] = true
			n++
		}
	}
	return n
}

// The per-session read tracker, shared by read_file and search_files (as
// hermes's per-task read tracker is).

// readFileDedupKey identifies one read window.
type readFileDedupKey struct {
	path          string
	offset, limit int
}

// readFileStamp identifies the content a read showed: its hash when it
// was held in memory, else the file's modification time and size.
type readFileStamp struct {
	modNano int64
	size    int64
	sum     uint64
	hashed  bool
}

type readFileDedupEntry struct {
	stamp readFileStamp
	seq   uint64
}

// readFileTracker is one session's read/search bookkeeping. It is safe for
// concurrent use.
type readFileTracker struct {
	seed maphash.Seed // immutable

	mu          sync.Mutex // guards the fields below
	lastKey     string     // the last read or search call, "" after another tool
	consecutive int        // how many times lastKey ran in a row
	dedup       map[readFileDedupKey]readFileDedupEntry
	hits        map[readFileDedupKey]int // unchanged stubs returned per window
	seq         uint64
}

func newReadTracker() *readFileTracker {
	return &readFileTracker{
		seed:  maphash.MakeSeed(),
		dedup: make(map[readFileDedupKey]readFileDedupEntry),
		hits:  make(map[readFileDedupKey]int),
	}
}

// dedupHit returns hermes's unchanged stub (first repeat) or BLOCKED error
// (later repeats) when window key was read before and its content has not
// changed since.
func (t *readFileTracker) dedupHit(key readFileDedupKey, stamp readFileStamp, raw string) (registry.Result, bool) {
	t.mu.Lock()
	e, ok := t.dedup[key]
	if !ok || e.stamp != stamp {
		t.mu.Unlock()
		return registry.Result{}, false
	}
	t.hits[key]++
	hits := t.hits[key]
	t.mu.Unlock()
	if hits >= 2 {
		return registry.Failed(struct {
			Error       string `json:"error"`
			Path        string `json:"path"`
			AlreadyRead int    `json:"already_read"`
		}{fmt.Sprintf("BLOCKED: You have called read_file on this exact region %d times and the file has NOT changed. "+
			"STOP calling read_file for this path — the content from your earlier read_file result in this conversation "+
			"is still current. Proceed with your task using the information you already have.", hits+1), raw, hits + 1}), true
	}
	return registry.OK(struct {
		Status          string `json:"status"`
		Message         string `json:"message"`
		Path            string `json:"path"`
		Dedup           bool   `json:"dedup"`
		ContentReturned bool   `json:"content_returned"`
	}{"unchanged", readFileMsgUnchanged, raw, true, false}), true
}

// recordRead notes a real read of window key showing content stamp and
// returns how many times in a row this window has now been read.
func (t *readFileTracker) recordRead(key readFileDedupKey, stamp readFileStamp) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.hits, key)
	t.seq++
	t.dedup[key] = readFileDedupEntry{stamp: stamp, seq: t.seq}
	if len(t.dedup) > readFileDedupCap {
		var oldest readFileDedupKey
		oldestSeq := uint64(math.MaxUint64)
		for k, e := range t.dedup {
			if e.seq < oldestSeq {
				oldest, oldestSeq = k, e.seq
			}
		}
		delete(t.dedup, oldest)
		delete(t.hits, oldest)
	}
	return t.noteLocked(fmt.Sprintf("read\x00%s\x00%d\x00%d", key.path, key.offset, key.limit))
}

// note counts a search call identified by key among consecutive calls.
func (t *readFileTracker) note(key string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.noteLocked(key)
}

func (t *readFileTracker) noteLocked(key string) int {
	if t.lastKey == key {
		t.consecutive++
	} else {
		t.lastKey, t.consecutive = key, 1
	}
	return t.consecutive
}

// noteToolCall tells the read and search loop guards that the session ran
// the tool name. The session's tool pipeline calls it for every tool call
// (the hook [Bind] returns). Any tool other than read_file and search_files
// breaks a run of identical reads or searches: the consecutive counters
// restart and the unchanged-file stubs count from zero again (hermes's
// notify_other_tool_call). It is safe for concurrent use.
func (t *readFileTracker) noteToolCall(name string) {
	if name == readFileName || name == searchFilesName {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lastKey, t.consecutive = "", 0
	clear(t.hits)
}

// forget drops read_file's unchanged-file dedup for every window of p, so
// the next read of p returns its content. The write tools call it after
// changing p. It is safe for concurrent use.
func (t *readFileTracker) forget(p workspace.Path) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k := range t.dedup {
		if k.path == p.Abs() {
			delete(t.dedup, k)
			delete(t.hits, k)
		}
	}
}

// readFileBinaryHint is what to do with a binary file instead, naming only
// the tools the session enables.
func readFileBinaryHint(env fileDeps) string {
	vision, term := env.Enabled("vision_analyze"), env.Enabled("terminal")
	switch {
	case vision && term:
		return " Use vision_analyze for images, or terminal to inspect binary files."
	case vision:
		return " Use vision_analyze for images."
	case term:
		return " Use terminal to inspect binary files."
	}
	return ""
}

// readFileImageHint is hermes's answer for an image file; it names
// vision_analyze only when the session enables it.
func readFileImageHint(env fileDeps) string {
	if env.Enabled("vision_analyze") {
		return "Image file detected. read_file cannot show images; use vision_analyze with this file path to inspect the image contents."
	}
	return "Image file detected. read_file cannot show images."
}

// readFileDirHint is how to list a directory instead.
func readFileDirHint(env fileDeps) string {
	if env.Enabled(searchFilesName) {
		return " Use search_files with target='files' to list its contents."
	}
	return ""
}

// readSavedResult pages through real, a result file the session's budget
// saved, like any text file (no dedup, no read state: it is not a
// workspace file and never changes). It is opened without following a
// symbolic link put in its place. A saved result is one line of compact
// JSON, which read_file's 2,000-character line cut would make unreadable
// past its start, so it is shown in rows: a file holding one JSON value is
// indented (one member or element a line), and a line longer than 2,000
// characters continues on the next rows; offset and limit count rows.
// The rows joined without separators are the indented value, so nothing
// of the result is out of reach.
func readSavedResult(ctx context.Context, raw, real string, offset, limit int) (registry.Result, error) {
	li, err := os.Lstat(real)
	if err != nil {
		return registry.Error(fmt.Sprintf("Cannot read saved result '%s': %v", raw, unwrapOSError(err))), nil
	}
	if li.Mode()&fs.ModeSymlink != 0 {
		return registry.Error(fmt.Sprintf("Cannot read saved result '%s': it has been replaced by a symbolic link", raw)), nil
	}
	f, err := os.Open(real)
	if err != nil {
		return registry.Error(fmt.Sprintf("Cannot read saved result '%s': %v", raw, unwrapOSError(err))), nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return registry.Result{}, fmt.Errorf("read_file %s: %w", real, err)
	}
	if !os.SameFile(li, fi) { // swapped between the check and the open
		return registry.Error(fmt.Sprintf("Cannot read saved result '%s': it has been replaced by a symbolic link", raw)), nil
	}
	if !fi.Mode().IsRegular() {
		return readFileSpecial(raw, fi.Mode()), nil
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return registry.Result{}, fmt.Errorf("read_file %s: %w", real, err)
	}
	if json.Valid(data) {
		var b bytes.Buffer
		if json.Indent(&b, data, "", "  ") == nil {
			data = b.Bytes()
		}
	}
	src := &readFileSource{data: wrapLongLines(data, readFileMaxLineChars), size: fi.Size()}
	res, _, msg, err := readFileWindow(ctx, src, offset, limit)
	if err != nil {
		return registry.Result{}, fmt.Errorf("read_file %s: %w", real, err)
	}
	if msg.Value != nil {
		return msg, nil
	}
	return registry.OK(res), nil
}

// wrapLongLines splits every line of data longer than max characters into
// rows of max characters.
func wrapLongLines(data []byte, max int) []byte {
	var b bytes.Buffer
	for i, line := range bytes.Split(data, []byte("\n")) {
		if i > 0 {
			b.WriteByte('\n')
		}
		for utf8.RuneCount(line) > max {
			cut, runes := 0, 0
			for runes < max {
				_, size := utf8.DecodeRune(line[cut:])
				cut += size
				runes++
			}
			b.Write(line[:cut])
			b.WriteByte('\n')
			line = line[cut:]
		}
		b.Write(line)
	}
	return b.Bytes()
}

// unwrapOSError drops the *fs.PathError wrapper, whose text repeats the path.
func unwrapOSError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// readFileDeps is what read_file uses of its session besides the file
// tools' services: teaching the linter what it read, and the results the
// session's budget saved (which lie outside the workspace).
type readFileDeps interface {
	fileDeps
	// LearnLint lets the linter learn content, the text of p just read.
	LearnLint(p workspace.Path, content []byte)
	// SavedResult reports whether path names exactly a file in which the
	// session's result budget saved a result, and returns its real path.
	SavedResult(path string) (real string, ok bool)
}
