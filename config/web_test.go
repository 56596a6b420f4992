package config

import (
	"context"
	"slices"
	"strings"
	"testing"
)

func TestWebConfig(t *testing.T) {
	t.Parallel()
	home := writeHome(t, map[string]string{
		"config.yaml": "web:\n  backend: firecrawl\n  search_backend: searxng\n  extract_char_limit: 8000\n  extract_summarize: false\n  allow_private_urls: true\n" +
			"  deny: [127.0.0.2/32, wiki.corp.example, '*.intranet.example']\n" +
			"auxiliary:\n  web_extract:\n    model: cheap-model\n    base_url: http://aux/v1\n",
		".env": "SEARXNG_URL=http://127.0.0.1:8888\nFIRECRAWL_API_KEY=fc-key\n",
	})
	c := Load(envMap(map[string]string{"HERMES_HOME": home}), "", "")
	if len(c.Problems) > 0 || slices.ContainsFunc(c.Ignored, func(k string) bool { return strings.HasPrefix(k, "web") || strings.HasPrefix(k, "auxiliary") }) {
		t.Fatalf("problems %q, ignored %q; want none about web", c.Problems, c.Ignored)
	}
	w := c.Web
	if w.CharLimit != 8000 || !w.NoSummarize || !w.AllowPrivate || w.Aux.Model != "cheap-model" || w.Aux.BaseURL != "http://aux/v1" {
		t.Errorf("web config = %+v", w)
	}
	if b, err := w.Backends.SearchBackendName(); b != "searxng" || err != nil {
		t.Errorf("search backend = %q, %v; want searxng (SEARXNG_URL from .env)", b, err)
	}
	if b, err := w.Backends.ExtractBackendName(); b != "firecrawl" || err != nil {
		t.Errorf("extract backend = %q, %v; want firecrawl from web.backend", b, err)
	}
	if !w.Policy().AllowPrivate {
		t.Error("the policy does not allow private addresses")
	}
	// web.deny reaches the web tools', vision's and the browser's policies.
	for name, p := range map[string]interface {
		CheckURL(context.Context, string) error
	}{"web": w.Policy(), "browser": c.BrowserPolicy()} {
		for _, u := range []string{"http://127.0.0.2/", "http://wiki.corp.example/", "https://a.intranet.example/"} {
			if err := p.CheckURL(t.Context(), u); err == nil || !strings.Contains(err.Error(), "in web.deny") {
				t.Errorf("%s policy CheckURL(%s) = %v, want refused by web.deny", name, u, err)
			}
		}
	}

	// HERMES_ALLOW_PRIVATE_URLS=false wins over the file, as in hermes.
	c = Load(envMap(map[string]string{"HERMES_HOME": home, "HERMES_ALLOW_PRIVATE_URLS": "false"}), "", "")
	if c.Web.AllowPrivate {
		t.Error("HERMES_ALLOW_PRIVATE_URLS=false did not refuse private addresses")
	}
}

func TestWebConfigProblems(t *testing.T) {
	t.Parallel()
	home := writeHome(t, map[string]string{
		"config.yaml": "web:\n  search_backend: bing\n  extract_backend: tavily\n  extract_char_limit: 500\n  allow_private_urls: maybe\n  deny: [10.0.0.0/33, ok.example]\n",
	})
	c := Load(envMap(map[string]string{"HERMES_HOME": home}), "", "")
	for _, want := range []string{
		"web.extract_char_limit: 500 is below the minimum of 2000 characters; using 2000",
		"web.extract_backend is tavily but TAVILY_API_KEY is not set",
		`web.search_backend is "bing", which is not a search backend`,
		"web.allow_private_urls:",
		`web.deny: "10.0.0.0/33" (not an address range such as 10.0.0.0/8); those entries are ignored, the others apply`,
	} {
		if !slices.ContainsFunc(c.Problems, func(p string) bool { return strings.Contains(p, want) }) {
			t.Errorf("problems %q lack %q", c.Problems, want)
		}
	}
	if c.Web.CharLimit != 2000 || c.Web.AllowPrivate {
		t.Errorf("web config = %+v; want the minimum limit and no private addresses", c.Web)
	}
}
