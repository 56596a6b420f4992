package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"sync"

	"github.com/hermes-acp/hermes-acp/internal/pyfmt"
	"github.com/hermes-acp/hermes-acp/registry"
	"github.com/hermes-acp/hermes-acp/web"
)

// web_extract fetches up to five URLs and returns their readable content:
// in process by default (package web: the URL policy at dial time and on
// every redirect, size, time and redirect limits, charset decoding,
// readability and Markdown, PDFs as text), or through Firecrawl or Tavily
// when web.extract_backend says so. Pages are sized as hermes sizes them:
// under 5 000 characters whole; longer ones summarised by the auxiliary
// model to about 5 000 characters (in chunks above 500 000), or, without a
// summary (web.extract_summarize: false, no model, a failed summary, over
// 2 000 000 characters), cut to char_limit keeping the head and the tail.
// Either way the full text is saved where read_file can read it back. The
// result is hermes's {"results": [{url, title, content, error}]}.
var _ = declare(registry.Tool[webDeps]{
	Spec: registry.Spec{Entry: registry.Entry{
		Name:           webExtractName,
		Toolset:        "web",
		Emoji:          "📄",
		Description:    webExtractDescription,
		MaxResultChars: 100_000,
		Kind:           registry.KindFetch,
		ReadOnly:       true,
		Idempotent:     true,
		ParallelSafe:   true,
		Title:          webExtractTitle,
		Preview:        webExtractPreview,
		Render:         webRender,
	}, Params: webExtractParams{}},
	New: func(d webDeps) registry.Handler {
		return registry.Typed(func(ctx context.Context, call *registry.Call, p *webExtractParams) (registry.Result, error) {
			return webExtract(ctx, d, call, p)
		})
	},
})

//go:embed web_extract.md
var webExtractDescription string

const webExtractName = "web_extract"

// Limits (hermes's web_tools constants).
const (
	webExtractMaxURLs       = 5
	webExtractMinCharLimit  = 2_000
	webExtractCharLimit     = 15_000    // default char_limit
	webSummaryMin           = 5_000     // pages shorter than this come back whole
	webSummaryMax           = 5_000     // a summary is capped here
	webChunkThreshold       = 500_000   // longer pages are summarised in chunks
	webChunkSize            = 100_000   // characters per chunk
	webSummarizeMaxChars    = 2_000_000 // longer pages are never summarised
	webSummarizeParallelism = 4         // chunk summaries in flight at once
)

// webExtractParams are web_extract's arguments, read as hermes reads
// them: URLs as strings or {url}/{href} objects, the limit a number or a
// string of one.
type webExtractParams struct {
	URLs      []any `json:"urls" schema:"required,items=string,maxItems=5" desc:"List of URLs to extract content from (max 5 URLs per call)"`
	CharLimit any   `json:"char_limit" schema:"type=integer,minimum=2000" desc:"Maximum characters of content per page when it is cut rather than summarised (minimum 2000, default 15000 or web.extract_char_limit)"`
}

// webPage is one entry of web_extract's result.
type webPage struct {
	URL     string  `json:"url"`
	Title   string  `json:"title"`
	Content string  `json:"content"`
	Error   *string `json:"error"`
}

func webExtract(ctx context.Context, d webDeps, call *registry.Call, p *webExtractParams) (registry.Result, error) {
	w := d.WebTools()
	urls := webURLs(p.URLs)
	if len(urls) == 0 {
		return registry.Error("urls is required: a list of 1 to 5 http or https URLs"), nil
	}
	if len(urls) > webExtractMaxURLs {
		urls = urls[:webExtractMaxURLs] // hermes reads the first five
	}
	limit := webExtractCharLimit
	if w != nil && w.CharLimit > 0 {
		limit = w.CharLimit
	}
	limit = max(readFileInt(p.CharLimit, limit), webExtractMinCharLimit)

	backend, err := webBackends(w).ExtractBackendName()
	if err != nil {
		return registry.Errorf("Error extracting content: %v", err), nil
	}
	policy := &web.Policy{}
	if w != nil && w.Policy != nil {
		policy = w.Policy
	}
	pages := make([]webPage, len(urls))
	// Every URL goes through the policy first, whichever backend fetches it.
	var allowed []int
	for i, u := range urls {
		pages[i].URL = u
		if err := policy.CheckURL(ctx, u); err != nil {
			pages[i].Error = ptr(err.Error())
			continue
		}
		allowed = append(allowed, i)
	}
	if backend == web.Native {
		client := policy.Client(0)
		defer client.CloseIdleConnections() // the call's own client: no connection outlives it
		f := &web.Fetcher{Client: client}
		if w != nil {
			f.Decoder = w.Decoder
		}
		var wg sync.WaitGroup
		for _, i := range allowed {
			wg.Go(func() {
				pg, err := f.Fetch(ctx, urls[i])
				if err != nil {
					pages[i].Error = ptr(err.Error())
					return
				}
				pages[i].URL, pages[i].Title, pages[i].Content = pg.URL, pg.Title, pg.Content
				if pg.Truncated {
					pages[i].Content += "\n\n[The page was longer than the download limit and was cut there.]"
				}
				if pg.Cut != "" {
					pages[i].Content += "\n\n[The text stops here: " + pg.Cut + ".]"
				}
			})
		}
		wg.Wait()
	} else if len(allowed) > 0 {
		batch := make([]string, len(allowed))
		for k, i := range allowed {
			batch[k] = urls[i]
		}
		remote, err := webBackends(w).ExtractRemote(ctx, backend, batch)
		if err != nil {
			if ctx.Err() != nil {
				return registry.Result{}, ctx.Err()
			}
			return registry.Errorf("Error extracting content: %v", err), nil
		}
		for k, i := range allowed {
			r := remote[k]
			pages[i].URL, pages[i].Title, pages[i].Content = r.URL, r.Title, r.Content
			if r.Error != "" {
				pages[i].Error = ptr(r.Error)
			}
		}
	}
	if ctx.Err() != nil {
		return registry.Result{}, ctx.Err()
	}
	var wg sync.WaitGroup
	failed := 0
	for i := range pages {
		if pages[i].Error != nil {
			failed++
			continue
		}
		wg.Go(func() {
			pages[i].Content = webSize(ctx, d, call.ID, i, pages[i], limit)
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		return registry.Result{}, ctx.Err()
	}
	if failed == len(pages) {
		// Every URL failed: a failure the editor and the guardrails see.
		return registry.Failed(struct {
			Error   string    `json:"error"`
			Results []webPage `json:"results"`
		}{webAllFailed(pages), pages}), nil
	}
	return registry.OK(struct {
		Results []webPage `json:"results"`
	}{pages}), nil
}

// webAllFailed is the error of a call whose every URL failed.
func webAllFailed(pages []webPage) string {
	if len(pages) == 1 {
		return "Error extracting content: " + *pages[0].Error
	}
	return fmt.Sprintf("Error extracting content: all %d URLs failed; the first: %s", len(pages), *pages[0].Error)
}

// webURLs turns the urls argument into URL strings: strings as they are,
// objects by their url or href (models sometimes send search results), an
// https:// added where the scheme is missing.
func webURLs(raw []any) []string {
	var out []string
	for _, v := range raw {
		var u string
		switch x := v.(type) {
		case string:
			u = x
		case map[string]any:
			u, _ = x["url"].(string)
			if u == "" {
				u, _ = x["href"].(string)
			}
		}
		u = strings.TrimSpace(u)
		if u == "" {
			continue
		}
		if !strings.Contains(u, "://") && !strings.Contains(u, ":") {
			u = "https://" + u
		}
		out = append(out, u)
	}
	return out
}

func ptr(s string) *string { return &s }

// webSize returns a page's content sized for the model (see the tool's
// comment), saving the full text of a long page first.
func webSize(ctx context.Context, d webDeps, callID string, i int, pg webPage, limit int) string {
	w := d.WebTools()
	text := pg.Content
	n := runeCount(text)
	if n < webSummaryMin && n <= limit {
		return text
	}
	summarize := w != nil && w.Summarize != nil && !w.NoSummarize &&
		n >= webSummaryMin && n <= webSummarizeMaxChars
	if !summarize && n <= limit {
		return text
	}
	readBack := "."
	if w != nil && w.SaveResult != nil {
		if path, err := w.SaveResult(fmt.Sprintf("%s_page%d", callID, i+1), text); err == nil {
			readBack = "; the full text is saved at " + path
			if d.Enabled(readFileName) {
				readBack += " (read it with read_file, using offset and limit)"
			}
			readBack += "."
		}
	}
	if summarize {
		sum, err := webSummarize(ctx, w.Summarize, pg, n)
		if err == nil && strings.TrimSpace(sum) != "" {
			sum = strings.TrimSpace(sum)
			if c := min(webSummaryMax, limit); runeCount(sum) > c {
				sum = string([]rune(sum)[:c]) + "\n\n[... summary truncated for context management ...]"
			}
			return fmt.Sprintf("%s\n\n[Summary by the auxiliary model of a page of %s characters%s]", sum, pyfmt.Thousands(int64(n), " "), readBack)
		}
		if ctx.Err() != nil {
			return text
		}
		readBack = fmt.Sprintf(" (the summary failed: %s)%s", clipRunes(errText(err), 200), readBack)
		if n <= limit {
			return text + fmt.Sprintf("\n\n[Page of %s characters, not summarised%s]", pyfmt.Thousands(int64(n), " "), readBack)
		}
	}
	return webCut(text, n, limit, readBack)
}

func errText(err error) string {
	if err == nil {
		return "empty answer"
	}
	return err.Error()
}

// webCut keeps the head (four fifths of limit) and the tail of text, with a
// note between them saying what was left out and where the whole is.
func webCut(text string, n, limit int, readBack string) string {
	r := []rune(text)
	head := limit * 4 / 5
	tail := limit - head
	return fmt.Sprintf("%s\n\n[... %s of %s characters omitted%s ...]\n\n%s",
		string(r[:head]), pyfmt.Thousands(int64(n-head-tail), " "), pyfmt.Thousands(int64(n), " "), readBack, string(r[n-tail:]))
}

func runeCount(s string) int { return len([]rune(s)) }

// The summariser's instructions (hermes's process_content_with_llm).
const (
	webSummaryPrompt = "You are an expert content analyst. Process the web content you are given into a comprehensive yet concise Markdown summary that keeps all important information while cutting the bulk: key excerpts (quotes, code snippets, exact figures, API names and signatures) in their original form, a summary of everything else that matters, and clear Markdown structure (headings, bullets). Never drop key facts, numbers or actionable details. Keep it under 5000 characters."
	webChunkPrompt   = "You are an expert content analyst processing one SECTION of a larger document. Extract the key information of THIS SECTION ONLY: all facts, figures, data points and insights; important quotes, code snippets and specific details verbatim; bullet points and structure that make later synthesis easy. Do not write an introduction or a conclusion: this is a partial document, and your output will be combined with the summaries of the other sections."
	webMergePrompt   = "You are an expert content analyst. You are given summaries of consecutive sections of one long document. Synthesise them into one well-organised Markdown summary of the whole document: keep every key fact, figure, code snippet and actionable detail, remove repetition, and keep it under 5000 characters."
)

// webSummarize summarises a page: in one call, or for a very long page one
// call per chunk of webChunkSize characters and one to merge them.
func webSummarize(ctx context.Context, summarize func(context.Context, string, string) (string, error), pg webPage, n int) (string, error) {
	var head strings.Builder
	if pg.Title != "" {
		fmt.Fprintf(&head, "Title: %s\n", pg.Title)
	}
	fmt.Fprintf(&head, "Source: %s\n\n", pg.URL)
	if n <= webChunkThreshold {
		return summarize(ctx, webSummaryPrompt, head.String()+"CONTENT TO PROCESS:\n"+pg.Content)
	}
	r := []rune(pg.Content)
	var chunks []string
	for start := 0; start < len(r); start += webChunkSize {
		chunks = append(chunks, string(r[start:min(start+webChunkSize, len(r))]))
	}
	parts := make([]string, len(chunks))
	errs := make([]error, len(chunks))
	sem := make(chan struct{}, webSummarizeParallelism)
	var wg sync.WaitGroup
	for i, c := range chunks {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			parts[i], errs[i] = summarize(ctx, webChunkPrompt,
				fmt.Sprintf("%sSection %d of %d:\n\n%s", head.String(), i+1, len(chunks), c))
		})
	}
	wg.Wait()
	var merged strings.Builder
	for i, p := range parts {
		if errs[i] != nil {
			return "", fmt.Errorf("section %d of %d: %w", i+1, len(chunks), errs[i])
		}
		fmt.Fprintf(&merged, "## Section %d of %d\n\n%s\n\n", i+1, len(chunks), strings.TrimSpace(p))
	}
	return summarize(ctx, webMergePrompt, head.String()+merged.String())
}

// webExtractTitle is "extract: <first url>[ (+N)]"; URL objects are read by
// their url or href, else "?".
func webExtractTitle(args map[string]any) string {
	urls, ok := args["urls"].([]any)
	if !ok || len(urls) == 0 {
		return webExtractName
	}
	first := "?"
	switch x := urls[0].(type) {
	case string:
		first = x
	case map[string]any:
		if u, ok := x["url"].(string); ok && u != "" {
			first = u
		} else if u, ok := x["href"].(string); ok && u != "" {
			first = u
		}
	}
	if len(urls) > 1 {
		return fmt.Sprintf("extract: %s (+%d)", first, len(urls)-1)
	}
	return "extract: " + first
}

// webExtractPreview shows nothing while the pages load (hermes: title and
// no content).
func webExtractPreview(map[string]any) string { return "" }
