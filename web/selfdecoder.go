package web

import (
	"log/slog"
	"os"
)

// SelfDecoder is how the agent decodes the pages it fetches: in a child
// process of its own binary ([Isolated], which must serve
// [DecodeCommand]) under a memory budget, or [InProcess] when the binary
// cannot be found (logged to log).
func SelfDecoder(log *slog.Logger) Decoder {
	exe, err := os.Executable()
	if err != nil {
		log.Warn("web_extract decodes pages in process, without a memory budget: the agent's executable is unknown", "error", err)
		return InProcess{}
	}
	return Isolated{Exe: exe}
}
