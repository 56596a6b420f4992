package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
)

// RemotePage is one URL's content as an extraction API returned it; Error
// is set instead of Content when the API could not extract it.
type RemotePage struct {
	URL, Title, Content, Error string
}

// ExtractRemote extracts urls with an extraction API (backend is Firecrawl
// or Tavily, as [Config.ExtractBackendName] chose). The result has one page
// per URL, in order; a failure of the whole call is an error.
func (c Config) ExtractRemote(ctx context.Context, backend string, urls []string) ([]RemotePage, error) {
	switch backend {
	case Firecrawl:
		out := make([]RemotePage, len(urls))
		for i, u := range urls {
			out[i] = c.firecrawlScrape(ctx, u)
		}
		return out, nil
	case Tavily:
		ps, err := c.tavilyExtract(ctx, urls)
		if err != nil {
			return nil, fmt.Errorf("tavily extract: %w", err)
		}
		return ps, nil
	}
	return nil, fmt.Errorf("extract: %q is not an extraction API", backend)
}

// firecrawlScrape asks Firecrawl for one page's main content as Markdown:
// POST /v2/scrape {url, formats: ["markdown"], onlyMainContent: true}.
func (c Config) firecrawlScrape(ctx context.Context, u string) RemotePage {
	var ans struct {
		Success bool   `json:"success"`
		Error   string `json:"error"`
		Data    struct {
			Markdown string `json:"markdown"`
			Metadata struct {
				Title     string `json:"title"`
				SourceURL string `json:"sourceURL"`
				URL       string `json:"url"`
			} `json:"metadata"`
		} `json:"data"`
	}
	body := map[string]any{"url": u, "formats": []string{"markdown"}, "onlyMainContent": true}
	err := c.call(ctx, http.MethodPost, c.base("FIRECRAWL_API_URL", firecrawlURL)+"/v2/scrape", c.firecrawlHeader(), body, &ans)
	if err == nil && !ans.Success {
		err = errors.New(ans.Error)
		if ans.Error == "" {
			err = errors.New("scrape failed")
		}
	}
	if err != nil {
		return RemotePage{URL: u, Error: "firecrawl scrape: " + err.Error()}
	}
	final := u
	if s := ans.Data.Metadata.SourceURL; s != "" {
		final = s
	}
	return RemotePage{URL: final, Title: ans.Data.Metadata.Title, Content: ans.Data.Markdown}
}

// tavilyExtract asks Tavily for the pages' raw content: POST /extract
// {urls, include_images: false}.
func (c Config) tavilyExtract(ctx context.Context, urls []string) ([]RemotePage, error) {
	key := c.env("TAVILY_API_KEY")
	var ans struct {
		Results []struct {
			URL        string `json:"url"`
			Title      string `json:"title"`
			RawContent string `json:"raw_content"`
			Content    string `json:"content"`
		} `json:"results"`
		FailedResults []struct {
			URL   string `json:"url"`
			Error string `json:"error"`
		} `json:"failed_results"`
	}
	body := map[string]any{"urls": urls, "include_images": false, "api_key": key}
	hdr := http.Header{"Authorization": {"Bearer " + key}}
	if err := c.call(ctx, http.MethodPost, c.base("TAVILY_API_URL", tavilyURL)+"/extract", hdr, body, &ans); err != nil {
		return nil, err
	}
	byURL := map[string]RemotePage{}
	for _, r := range ans.Results {
		content := r.RawContent
		if content == "" {
			content = r.Content
		}
		byURL[r.URL] = RemotePage{URL: r.URL, Title: r.Title, Content: content}
	}
	for _, f := range ans.FailedResults {
		msg := f.Error
		if msg == "" {
			msg = "extraction failed"
		}
		byURL[f.URL] = RemotePage{URL: f.URL, Error: "tavily extract: " + msg}
	}
	out := make([]RemotePage, len(urls))
	for i, u := range urls {
		p, ok := byURL[u]
		if !ok {
			p = RemotePage{URL: u, Error: "tavily extract: no result for this URL"}
		}
		out[i] = p
	}
	return out, nil
}
