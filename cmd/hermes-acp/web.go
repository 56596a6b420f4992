package main

import (
	"github.com/hermes-acp/hermes-acp/config"
	"github.com/hermes-acp/hermes-acp/tools"
	"github.com/hermes-acp/hermes-acp/web"
)

// webTools returns the web tools' dependencies for one session; save keeps a
// long page's full text for the session's read_file.
func webTools(w config.Web, summarize config.Summarizer, save func(id, content string) (string, error), dec web.Decoder) *tools.Web {
	return &tools.Web{
		Backends:    w.Backends,
		Policy:      w.Policy(),
		Decoder:     dec,
		CharLimit:   w.CharLimit,
		NoSummarize: w.NoSummarize,
		Summarize:   summarize,
		SaveResult:  save,
	}
}
