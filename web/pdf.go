package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// errStop ends a decode at a limit (the text written so far is kept).
type errStop struct{ reason string }

func (e *errStop) Error() string { return e.reason }

// textWriter writes decoded text to w, at most max bytes: past them it
// stops the decode with an errStop naming the limit.
type textWriter struct {
	w   io.Writer
	max int
	n   int
}

func (t *textWriter) write(s string) {
	if room := t.max - t.n; len(s) > room {
		s = s[:room]
		for len(s) > 0 && !utf8.ValidString(s[len(s)-min(len(s), 3):]) {
			s = s[:len(s)-1] // do not cut a character in two
		}
		_, _ = io.WriteString(t.w, s)
		t.n = t.max
		panic(&errStop{fmt.Sprintf("the text is longer than %s; it stops there", sizeText(int64(t.max)))})
	}
	_, _ = io.WriteString(t.w, s)
	t.n += len(s)
}

// opsPerCheck is how many content-stream operators run between two looks
// at the context.
const opsPerCheck = 4096

// pdfText writes the plain text of a PDF to w page by page, within the
// limits: at most maxPages pages and maxText bytes, and until ctx ends
// (checked between pages and every opsPerCheck operators of a page). A
// limit reached ends it with the text so far and the limit's reason in
// cut; a malformed file (the PDF library panics on some) is an error.
// Memory is not bounded here: a stream that decompresses to gigabytes in
// one token is the budget of the process that runs it ([Isolated]).
func pdfText(ctx context.Context, body []byte, w io.Writer, maxPages, maxText int) (cut string, err error) {
	out := &textWriter{w: w, max: maxText}
	defer func() {
		if p := recover(); p != nil {
			var stop *errStop
			switch e := p.(type) {
			case *errStop:
				stop = e
			case error:
				if errors.As(e, &stop) {
					break
				}
				err = fmt.Errorf("read PDF: malformed file (%v)", p)
			default:
				err = fmt.Errorf("read PDF: malformed file (%v)", p)
			}
			if stop != nil {
				cut, err = stop.reason, nil
			}
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		return "", fmt.Errorf("read PDF: %w", err)
	}
	pages := r.NumPage()
	fonts := map[string]*pdf.Font{}
	for i := 1; i <= pages; i++ {
		if i > maxPages {
			return fmt.Sprintf("the PDF has %d pages; the first %d were read", pages, maxPages), nil
		}
		if err := ctx.Err(); err != nil {
			return fmt.Sprintf("reading stopped after %d of %d pages (%v)", i-1, pages, err), nil
		}
		pageText(ctx, r.Page(i), fonts, out)
		if fl, ok := w.(interface{ Flush() error }); ok {
			_ = fl.Flush() // a decoder killed later keeps the pages so far
		}
	}
	return "", nil
}

// pageText writes one page's text, as the PDF library's GetPlainText
// reads it (a line break between text objects and at T*, strings shown
// by Tj, TJ, ' and " decoded with the current font), within out's limit
// and ctx.
func pageText(ctx context.Context, p pdf.Page, fonts map[string]*pdf.Font, out *textWriter) {
	if p.V.IsNull() || p.V.Key("Contents").Kind() == pdf.Null {
		return
	}
	for _, name := range p.Fonts() {
		if _, ok := fonts[name]; !ok {
			f := p.Font(name)
			fonts[name] = &f
		}
	}
	var enc pdf.TextEncoding = nopEncoding{}
	show := func(raw string) {
		var b strings.Builder
		for _, r := range enc.Decode(raw) {
			b.WriteRune(r)
		}
		out.write(b.String())
	}
	ops := 0
	pdf.Interpret(p.V.Key("Contents"), func(stk *pdf.Stack, op string) {
		n := stk.Len()
		args := make([]pdf.Value, n)
		for i := n - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		if ops++; ops%opsPerCheck == 0 {
			if err := ctx.Err(); err != nil {
				panic(&errStop{fmt.Sprintf("reading stopped inside a page (%v)", err)})
			}
		}
		switch op {
		case "BT":
			out.write("\n")
		case "T*":
			show("\n")
		case "Tf":
			if n != 2 {
				panic("bad Tf operator")
			}
			if f, ok := fonts[args[0].Name()]; ok {
				enc = f.Encoder()
			} else {
				enc = nopEncoding{}
			}
		case "Tj", "'", "\"":
			if n < 1 {
				panic("bad " + op + " operator")
			}
			show(args[n-1].RawString())
		case "TJ":
			if n != 1 {
				panic("bad TJ operator")
			}
			v := args[0]
			for i := 0; i < v.Len(); i++ {
				if x := v.Index(i); x.Kind() == pdf.String {
					show(x.RawString())
				}
			}
		}
	})
}

// nopEncoding reads code points as they are (a font the page does not
// name).
type nopEncoding struct{}

func (nopEncoding) Decode(raw string) string { return raw }
