package terminal

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"

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

// restrictWrites applies Landlock to this whole process: read and execute
// everywhere, write in writable and /dev (where device ioctls stay allowed
// for terminals).
func restrictWrites(writable []string) error {
	cfg, rules := sandboxRules(writable)
	if rules == nil {
		return nil // nothing to enforce with; the agent said so once
	}
	return cfg.RestrictPaths(rules...)
}

// sandboxRules are the sandbox's Landlock configuration and rules; nil
// rules when the kernel has no Landlock.
func sandboxRules(writable []string) (landlock.Config, []landlock.Rule) {
	abi := LandlockABI()
	if abi == 0 {
		return landlock.V5, nil
	}
	rw := landlock.RWDirs(writable...).IgnoreIfMissing()
	if abi >= 2 {
		rw = rw.WithRefer() // moves and links between writable folders
	}
	return landlock.V5.BestEffort(), []landlock.Rule{
		landlock.RODirs("/"),
		landlock.RWDirs("/dev").WithIoctlDev().IgnoreIfMissing(),
		rw,
	}
}

// startSandboxed calls start, which starts a process, on an OS thread that
// Landlock restricts to writing in writable: the process inherits the
// restriction, the agent does not, and no helper process is needed (a
// helper is the agent's own binary: tens of MB and a start-up per
// command). The thread is never unlocked, so the Go runtime ends it
// instead of reusing it, and it does not create threads (the runtime
// creates new threads from a clean one for a locked thread).
func startSandboxed(writable []string, start func() error) error {
	cfg, rules := sandboxRules(writable)
	if rules == nil {
		return start()
	}
	fd, flags, err := cfg.NewRulesetFD(rules...)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if fd < 0 {
		return start()
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked
		defer unix.Close(fd)
		if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
			errc <- fmt.Errorf("sandbox: prctl(PR_SET_NO_NEW_PRIVS): %w", err)
			return
		}
		if err := llsys.LandlockRestrictSelf(fd, flags); err != nil {
			errc <- fmt.Errorf("sandbox: landlock_restrict_self: %w", err)
			return
		}
		errc <- start()
	}()
	return <-errc
}
