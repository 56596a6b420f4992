package terminal

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// LandlockABI returns the Landlock ABI version the kernel enforces, 0 when
// it has none (or it is disabled): the sandbox then cannot restrict.
func LandlockABI() int {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return v
}

// SandboxMain is SandboxCommand: it restricts writes to the --write
// folders (and /dev) with Landlock, in best effort on older kernels, then
// replaces itself with the command. It prints nothing on stdout; it
// returns only on failure (126 when it cannot sandbox, 127 when the
// command cannot run), after a message on stderr.
func SandboxMain(args []string, stderr io.Writer) int {
	writable, argv, err := parseSandboxArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "hermes-acp %s: %v\n", SandboxCommand, err)
		return 2
	}
	if err := restrictWrites(writable); err != nil {
		fmt.Fprintf(stderr, "hermes-acp %s: cannot apply the sandbox: %v\n", SandboxCommand, err)
		return 126
	}
	prog, err := exec.LookPath(argv[0])
	if err != nil {
		fmt.Fprintf(stderr, "hermes-acp %s: %v\n", SandboxCommand, err)
		return 127
	}
	err = syscall.Exec(prog, argv, os.Environ())
	fmt.Fprintf(stderr, "hermes-acp %s: exec %s: %v\n", SandboxCommand, prog, err)
	return 127
}

// restrictWrites applies Landlock: read and execute everywhere, write in
// writable and /dev (where device ioctls stay allowed for terminals).
func restrictWrites(writable []string) error {
	abi := LandlockABI()
	if abi == 0 {
		return nil // nothing to enforce with; the agent said so once
	}
	rw := landlock.RWDirs(writable...).IgnoreIfMissing()
	if abi >= 2 {
		rw = rw.WithRefer() // moves and links between writable folders
	}
	return landlock.V5.BestEffort().RestrictPaths(
		landlock.RODirs("/"),
		landlock.RWDirs("/dev").WithIoctlDev().IgnoreIfMissing(),
		rw,
	)
}
