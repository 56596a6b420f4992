package main

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/hermes-acp/hermes-acp/agent"
	"github.com/hermes-acp/hermes-acp/config"
	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

// TestToolsCmdSaysWhyWebSearchIsUnavailable: `hermes-acp tools` names what
// to set when no search backend is configured, and offers web_search once
// one is.
func TestToolsCmdSaysWhyWebSearchIsUnavailable(t *testing.T) {
	t.Setenv("HERMES_HOME", t.TempDir())
	for _, k := range []string{"SEARXNG_URL", "BRAVE_SEARCH_API_KEY", "TAVILY_API_KEY", "EXA_API_KEY", "FIRECRAWL_API_KEY", "FIRECRAWL_API_URL"} {
		t.Setenv(k, "")
	}
	row := func() string {
		var out, errOut bytes.Buffer
		if code := runToolsCmd(nil, &out, &errOut); code != 0 {
			t.Fatalf("hermes-acp tools = %d: %s", code, errOut.String())
		}
		for _, line := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(line, "web_search ") {
				return strings.Join(strings.Fields(line), " ")
			}
		}
		t.Fatalf("no web_search row:\n%s", out.String())
		return ""
	}
	if got := row(); !strings.Contains(got, "web_search web no unavailable: no search backend: set SEARXNG_URL") {
		t.Errorf("without a backend: %q", got)
	}
	t.Setenv("BRAVE_SEARCH_API_KEY", "key")
	if got := row(); got != "web_search web yes available" {
		t.Errorf("with BRAVE_SEARCH_API_KEY: %q", got)
	}
}

func TestWebSummarizerUsesTheAuxiliaryModel(t *testing.T) {
	t.Parallel()
	var got []modeltest.Request
	var mu sync.Mutex
	srv := modeltest.StartOptions(modeltest.Options{Errorf: t.Errorf, Respond: func(r modeltest.Request) modeltest.Turn {
		mu.Lock()
		got = append(got, r)
		mu.Unlock()
		return modeltest.Turn{Text: []string{"## Summary\n", "Channels connect goroutines."}}
	}})
	defer srv.Close()
	var cfg config.Config
	cfg.Web.Aux = config.AuxModel{Model: "cheap-model", BaseURL: srv.URL(), APIKey: "k"}
	summarize := webSummarizer(cfg, agent.ModelSetup{}, slog.New(slog.DiscardHandler))
	if summarize == nil {
		t.Fatal("no summariser with auxiliary.web_extract set")
	}
	out, err := summarize(context.Background(), "Summarise the page.", "Title: Channels\n\nCONTENT TO PROCESS:\nlong text")
	if err != nil || out != "## Summary\nChannels connect goroutines." {
		t.Fatalf("summarize = %q, %v", out, err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0].Model != "cheap-model" || len(got[0].Messages) != 2 ||
		got[0].Messages[0].Role != "system" || got[0].Messages[0].Content != "Summarise the page." || len(got[0].Tools) != 0 {
		t.Errorf("the model was asked %+v", got)
	}
	if webSummarizer(config.Config{}, agent.ModelSetup{}, slog.New(slog.DiscardHandler)) != nil {
		t.Error("a summariser without any model: pages would never be cut")
	}
}
