package agent

import (
	"runtime/debug"

	"github.com/hermes-acp/hermes-acp/model"
)

// hugeSave is the size of saved messages from which the memory the save
// used is handed back to the operating system afterwards.
const hugeSave = 16 << 20

// releaseHugeSave returns freed heap to the operating system after a save
// of msgs when they were huge (a 50 MB prompt): encoding and storing them
// takes a few times their size, which the Go runtime would otherwise keep
// mapped while the agent sits idle.
func releaseHugeSave(msgs []model.Message) {
	n := 0
	for _, m := range msgs {
		n += len(m.Content) + len(m.Thought)
	}
	if n >= hugeSave {
		debug.FreeOSMemory()
	}
}
