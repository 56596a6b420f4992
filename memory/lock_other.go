//go:build !unix && !windows

package memory

import "os"

// lockFile is a no-op where the platform has no file locks (js, wasip1,
// plan9): writes stay atomic, only concurrent writers may race.
func lockFile(*os.File) error { return nil }

func unlockFile(*os.File) error { return nil }
