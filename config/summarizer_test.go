package config

import (
	"context"
	"log/slog"
	"sync"
	"testing"

	"github.com/hermes-acp/hermes-acp/model/modeltest"
)

func TestNewWebSummarizerUsesTheAuxiliaryModel(t *testing.T) {
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
	var cfg Config
	cfg.Web.Aux = AuxModel{Model: "cheap-model", BaseURL: srv.URL(), APIKey: "k"}
	summarize := cfg.NewWebSummarizer(nil, "", slog.New(slog.DiscardHandler))
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
	if (Config{}).NewWebSummarizer(nil, "", slog.New(slog.DiscardHandler)) != nil {
		t.Error("a summariser without any model: pages would never be cut")
	}
}
