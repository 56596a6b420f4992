package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"codeberg.org/readeck/go-readability/v2"
	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
)

// Limits of a [Fetcher] whose fields are zero.
const (
	DefaultMaxBytes = 10 << 20 // bytes of a response body read; the rest is cut
	DefaultTimeout  = 30 * time.Second
)

// userAgent is what the fetcher says it is; some sites refuse clients
// without one.
const userAgent = "Mozilla/5.0 (compatible; hermes-acp; +https://github.com/hermes-acp/hermes-acp)"

// Page is the readable content of one fetched URL.
type Page struct {
	// URL is the final URL, after redirects.
	URL string
	// Title is the page's title ("" when it has none).
	Title string
	// Content is the main content as Markdown (HTML), the text of a PDF, or
	// the decoded body of a text response.
	Content string
	// Truncated reports that the body was longer than the size limit and
	// was cut there before extraction.
	Truncated bool
	// Cut says why Content stops before the document's end ("": it does
	// not): a decoder's page or text limit, its time or memory budget.
	Cut string
}

// Fetcher fetches URLs and extracts their readable content in process: it
// reads at most MaxBytes of a body within Timeout, decodes the charset the
// response declares (header, BOM or <meta>), keeps the main content of an
// HTML page with a readability parser and converts it to Markdown, and
// turns a PDF into text. Its zero value is not usable: Client must be set,
// normally from a [Policy] so that every URL and redirect is checked. A
// Fetcher is safe for concurrent use.
type Fetcher struct {
	Client   *http.Client
	MaxBytes int64         // 0: DefaultMaxBytes
	Timeout  time.Duration // 0: DefaultTimeout (the download and the decode)
	// Decoder turns HTML and PDF bodies into text, under the request's
	// context (nil: InProcess; the agent gives an Isolated one).
	Decoder Decoder
}

// Fetch fetches rawURL and returns its readable content. Errors name the URL
// and are worded for the model (a refusal by the policy, an HTTP status, an
// unsupported content type).
func (f *Fetcher) Fetch(ctx context.Context, rawURL string) (Page, error) {
	timeout := f.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSpace(rawURL), nil)
	if err != nil {
		return Page{}, fmt.Errorf("fetch %s: %w", rawURL, err)
	}
	req.Header.Set("User-Agent", userAgent)
	req.Header.Set("Accept", "text/html,application/xhtml+xml,application/pdf;q=0.9,text/plain;q=0.8,*/*;q=0.5")
	resp, err := f.Client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) && IsRefused(err) {
			err = ue.Err // the refusal says it all; drop `Get "…":`
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return Page{}, fmt.Errorf("fetch %s: timed out after %s", rawURL, timeout)
		}
		return Page{}, fmt.Errorf("fetch %s: %w", rawURL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return Page{}, fmt.Errorf("fetch %s: HTTP %s", rawURL, resp.Status)
	}
	max := f.MaxBytes
	if max <= 0 {
		max = DefaultMaxBytes
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			return Page{}, fmt.Errorf("fetch %s: timed out after %s while reading", rawURL, timeout)
		}
		return Page{}, fmt.Errorf("fetch %s: read body: %w", rawURL, err)
	}
	page := Page{URL: resp.Request.URL.String()}
	if int64(len(body)) > max {
		body, page.Truncated = body[:max], true
	}
	ct := resp.Header.Get("Content-Type")
	if err := extractInto(ctx, f.Decoder, &page, body, ct); err != nil {
		if ctx.Err() != nil && errors.Is(err, context.DeadlineExceeded) {
			return Page{}, fmt.Errorf("fetch %s: timed out after %s while reading its content", rawURL, timeout)
		}
		return Page{}, fmt.Errorf("fetch %s: %w", rawURL, err)
	}
	return page, nil
}

// Extract converts body, served with content type ct from pageURL, into
// readable content: the in-process half of [Fetcher.Fetch], for callers
// that already have the bytes (and for benchmarks).
func Extract(pageURL string, body []byte, ct string) (Page, error) {
	p := Page{URL: pageURL}
	err := extractInto(context.Background(), InProcess{}, &p, body, ct)
	return p, err
}

// extractInto decodes body into p: PDF and HTML with dec (nil:
// InProcess) under ctx, text here (a charset decoder, linear in the size).
func extractInto(ctx context.Context, dec Decoder, p *Page, body []byte, ct string) error {
	if dec == nil {
		dec = InProcess{}
	}
	mt, _, _ := mime.ParseMediaType(ct)
	kind := ""
	switch {
	case mt == "application/pdf" || bytes.HasPrefix(body, []byte("%PDF-")):
		if p.Truncated {
			return fmt.Errorf("the PDF is larger than the size limit; it cannot be read cut")
		}
		kind = KindPDF
	case mt == "text/html" || mt == "application/xhtml+xml" || mt == "" && looksHTML(body):
		kind = KindHTML
	}
	if kind != "" {
		d, err := dec.Decode(ctx, DecodeJob{Kind: kind, URL: p.URL, ContentType: ct}, body)
		if err != nil {
			return err
		}
		p.Title, p.Content, p.Cut = d.Title, d.Content, d.Cut
		return nil
	}
	switch {
	case strings.HasPrefix(mt, "text/") || mt == "application/json" || strings.HasSuffix(mt, "+json") ||
		mt == "application/xml" || strings.HasSuffix(mt, "+xml") || mt == "" && utf8.Valid(body):
		text, err := decode(body, ct)
		if err != nil {
			return err
		}
		p.Content = text
		return nil
	}
	return fmt.Errorf("unsupported content type %q (web_extract reads HTML, text and PDF)", mt)
}

// looksHTML reports whether an untyped body starts like an HTML document.
func looksHTML(body []byte) bool {
	head := bytes.ToLower(bytes.TrimSpace(body[:min(len(body), 512)]))
	return bytes.HasPrefix(head, []byte("<!doctype html")) || bytes.HasPrefix(head, []byte("<html")) ||
		bytes.Contains(head, []byte("<head")) || bytes.Contains(head, []byte("<body"))
}

// decode returns body as UTF-8: the charset comes from a BOM, the
// Content-Type header or a <meta> element, else UTF-8 or windows-1252 by
// inspection (the HTML standard's algorithm).
func decode(body []byte, ct string) (string, error) {
	enc, _, _ := charset.DetermineEncoding(body, ct)
	out, err := enc.NewDecoder().Bytes(body)
	if err != nil {
		return "", fmt.Errorf("decode charset: %w", err)
	}
	return string(bytes.ToValidUTF8(out, []byte("\uFFFD"))), nil
}

// htmlToMarkdown keeps the main content of an HTML document and returns its
// title and Markdown. A page readability finds no article in (a short page,
// an index) is converted whole, without its scripts, styles and navigation.
func htmlToMarkdown(text, pageURL string) (title, md string, err error) {
	doc, err := html.Parse(strings.NewReader(text))
	if err != nil {
		return "", "", fmt.Errorf("parse HTML: %w", err)
	}
	base, _ := url.Parse(pageURL)
	parser := readability.NewParser()
	article, aerr := parser.ParseDocument(doc, base)
	node := article.Node
	title = strings.TrimSpace(article.Title())
	if aerr != nil || node == nil || strings.TrimSpace(textOf(node)) == "" {
		node = doc
		strip(node)
		if title == "" {
			title = findTitle(doc)
		}
	}
	var opts []converter.ConvertOptionFunc
	if base != nil && base.Host != "" {
		opts = append(opts, converter.WithDomain(base.Scheme+"://"+base.Host))
	}
	out, err := htmltomarkdown.ConvertNode(node, opts...)
	if err != nil {
		return "", "", fmt.Errorf("convert to Markdown: %w", err)
	}
	return title, strings.TrimSpace(string(out)), nil
}

// strip removes what is never content from a whole document.
func strip(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		if c.Type == html.ElementNode {
			switch c.Data {
			case "script", "style", "noscript", "template", "nav", "header", "footer", "aside", "form", "iframe", "svg", "head":
				n.RemoveChild(c)
				c = next
				continue
			}
		}
		strip(c)
		c = next
	}
}

func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

func findTitle(n *html.Node) string {
	if n.Type == html.ElementNode && n.Data == "title" {
		return strings.TrimSpace(textOf(n))
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if t := findTitle(c); t != "" {
			return t
		}
	}
	return ""
}
