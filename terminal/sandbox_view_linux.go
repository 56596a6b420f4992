package terminal

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/unix"
)

// The session's mount view, built once by the sandbox server in its own
// mount namespace (every command's namespace is a copy of it): the whole
// tree read-only (metadata included) with nosuid and nodev, a minimal /dev,
// the session's private /tmp, the writable folders bound read-write, and
// the hidden places covered by empty read-only file systems or files.

// devNodes are the devices of the sandbox's /dev, bound from the host's.
var devNodes = []string{"null", "zero", "full", "random", "urandom", "tty"}

// devLinks are the symbolic links of the sandbox's /dev.
var devLinks = [][2]string{{"ptmx", "pts/ptmx"}, {"fd", "/proc/self/fd"}, {"stdin", "/proc/self/fd/0"},
	{"stdout", "/proc/self/fd/1"}, {"stderr", "/proc/self/fd/2"}}

// sensitiveProc are the parts of a command's /proc made read-only: the
// kernel's settings, SysRq and the like, which the root user (mapped to
// itself in the sandbox) could otherwise write.
var sensitiveProc = []string{"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs"}

// hostKeys are more credential files the sandbox hides: the host's SSH
// keys (readable by root).
const hostKeys = "/etc/ssh/ssh_host_*_key"

// knownSockets are daemon sockets hidden even when nothing listens on them
// yet.
var knownSockets = []string{"/run/docker.sock", "/var/run/docker.sock", "/run/containerd/containerd.sock",
	"/run/podman/podman.sock", "/run/dbus/system_bus_socket", "/var/run/dbus/system_bus_socket", "/run/systemd/private"}

// view is the built view: what a command's thread needs later.
type view struct {
	// credMounts are the mount points hiding credentials, deepest first:
	// a granted command unmounts them in its own namespace.
	credMounts []string
	// writable are the folders writable inside (for Landlock).
	writable []string
	notes    []string // what could not be done (for the agent's log)
}

// detached is a mount taken with open_tree before the view covers its
// source.
type detached struct {
	fd     int
	target string
	dir    bool
}

// buildView builds the session's view in the current mount namespace,
// which the caller owns alone (the server, right after its clone).
func buildView(v viewSetup) (*view, error) {
	out := &view{}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return nil, fmt.Errorf("make mounts private: %w", err)
	}
	// Take every source first: /tmp and /dev are covered below.
	var devs []detached
	for _, n := range devNodes {
		fd, err := cloneTree("/dev/"+n, false)
		if err != nil {
			out.notes = append(out.notes, fmt.Sprintf("/dev/%s: %v", n, err))
			continue
		}
		devs = append(devs, detached{fd: fd, target: "/dev/" + n})
	}
	var tmp *detached
	if v.Tmp != "" {
		fd, err := cloneTree(v.Tmp, true)
		if err != nil {
			return nil, fmt.Errorf("private /tmp %s: %w", v.Tmp, err)
		}
		tmp = &detached{fd: fd, target: "/tmp", dir: true}
	}
	writable := slices.Clone(v.Writable)
	slices.SortFunc(writable, func(a, b string) int { return strings.Count(a, "/") - strings.Count(b, "/") })
	var binds []detached
	for _, d := range writable {
		fd, err := cloneTree(d, true)
		if err != nil {
			if !errors.Is(err, unix.ENOENT) {
				out.notes = append(out.notes, fmt.Sprintf("writable %s: %v", d, err))
			}
			continue
		}
		binds = append(binds, detached{fd: fd, target: d, dir: true})
	}
	var scratch *detached
	if v.Scratch != "" {
		fd, err := cloneTree(v.Scratch, true)
		if err != nil {
			return nil, fmt.Errorf("scratch folder %s: %w", v.Scratch, err)
		}
		scratch = &detached{fd: fd, target: v.Scratch, dir: true}
	}
	// The places to hide, as they are now (before /tmp is replaced).
	type hide struct {
		path string
		dir  bool
		cred bool
	}
	var hides []hide
	seen := map[string]bool{}
	addHide := func(p string, cred bool) {
		p = filepath.Clean(p)
		if seen[p] {
			return
		}
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&os.ModeSymlink != 0 {
			return // nothing there (or a link, whose target is what counts)
		}
		seen[p] = true
		hides = append(hides, hide{path: p, dir: fi.IsDir(), cred: cred})
	}
	for _, p := range v.Hidden {
		addHide(p, false)
	}
	for _, p := range v.Creds {
		addHide(p, true)
	}
	if keys, _ := filepath.Glob(hostKeys); len(keys) > 0 {
		for _, k := range keys {
			addHide(k, false) // the machine's, never the user's to grant
		}
	}
	if v.HideSockets {
		for _, s := range append(slices.Clone(knownSockets), listedSockets()...) {
			if !underAny(s, v.Writable) && (v.Tmp != "" || !underAny(s, []string{"/tmp"})) && !underAny(s, v.Hidden) {
				addHide(s, false)
			}
		}
	}
	var empties []int
	for _, h := range hides {
		if !h.dir {
			fd, err := cloneTree(v.Empty, false)
			if err != nil {
				return nil, fmt.Errorf("empty file %s: %w", v.Empty, err)
			}
			empties = append(empties, fd)
		}
	}

	// The world read-only, without set-user-id programs or devices.
	if err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE,
		&unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV}); err != nil {
		return nil, fmt.Errorf("make the file system read-only: %w", err)
	}
	if err := buildDev(devs); err != nil {
		return nil, err
	}
	if tmp != nil {
		if err := attach(*tmp, 0); err != nil {
			return nil, fmt.Errorf("private /tmp: %w", err)
		}
		out.writable = append(out.writable, "/tmp")
	}
	for _, b := range binds {
		if err := attach(b, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV); err != nil {
			out.notes = append(out.notes, fmt.Sprintf("writable %s: %v", b.target, err))
			continue
		}
		out.writable = append(out.writable, b.target)
	}
	// Hide, deepest last so that a hidden folder inside another is
	// covered by its own mount too.
	var hiders []string
	for _, h := range hides {
		if _, err := os.Lstat(h.path); err != nil {
			continue // not in this view (under the private /tmp)
		}
		var err error
		if h.dir {
			err = mountTmpfs(h.path, "mode=0755,size=64k,nr_inodes=256")
		} else {
			fd := empties[0]
			empties = empties[1:]
			err = attach(detached{fd: fd, target: h.path}, unix.MOUNT_ATTR_RDONLY|unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
		}
		if err != nil {
			return nil, fmt.Errorf("hide %s: %w", h.path, err)
		}
		if h.dir {
			hiders = append(hiders, h.path)
		}
		if h.cred {
			out.credMounts = append(out.credMounts, h.path)
		}
	}
	for _, fd := range empties {
		unix.Close(fd)
	}
	if scratch != nil {
		if err := attach(*scratch, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV); err != nil {
			return nil, fmt.Errorf("scratch folder: %w", err)
		}
		out.writable = append(out.writable, scratch.target)
	}
	// The hiding file systems read-only, now that their mount points are
	// made.
	for _, h := range hiders {
		if err := unix.MountSetattr(unix.AT_FDCWD, h, 0, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOEXEC}); err != nil {
			return nil, fmt.Errorf("hide %s: %w", h, err)
		}
	}
	slices.SortFunc(out.credMounts, func(a, b string) int { return strings.Count(b, "/") - strings.Count(a, "/") })
	// The server's own /proc, of the session's PID namespace.
	if err := mountProc(-1, false); err != nil {
		return nil, fmt.Errorf("mount /proc: %w", err)
	}
	if err := os.Chdir("/"); err != nil {
		return nil, err
	}
	return out, nil
}

// buildDev replaces /dev by a read-only tmpfs holding the devices of devs
// (bound from the host's), a devpts of the session's own, a private
// /dev/shm and the usual links.
func buildDev(devs []detached) error {
	if err := mountTmpfs("/dev", "mode=0755,size=64k,nr_inodes=256"); err != nil {
		return fmt.Errorf("/dev: %w", err)
	}
	for _, d := range devs {
		if err := attach(d, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NOEXEC); err != nil {
			return fmt.Errorf("%s: %w", d.target, err)
		}
	}
	for _, l := range devLinks {
		if err := os.Symlink(l[1], "/dev/"+l[0]); err != nil {
			return fmt.Errorf("/dev/%s: %w", l[0], err)
		}
	}
	for _, d := range []string{"/dev/pts", "/dev/shm"} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return fmt.Errorf("%s: %w", d, err)
		}
	}
	if err := mountFS("devpts", "/dev/pts", map[string]string{"newinstance": "", "ptmxmode": "0666", "mode": "0620"},
		unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NOEXEC); err != nil {
		return fmt.Errorf("/dev/pts: %w", err)
	}
	if err := mountTmpfs("/dev/shm", "mode=1777"); err != nil {
		return fmt.Errorf("/dev/shm: %w", err)
	}
	if err := unix.MountSetattr(unix.AT_FDCWD, "/dev", 0, &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}); err != nil {
		return fmt.Errorf("/dev read-only: %w", err)
	}
	return nil
}

// cloneTree returns a detached copy of the mount tree at path.
func cloneTree(path string, recursive bool) (int, error) {
	flags := uint(unix.OPEN_TREE_CLONE | unix.OPEN_TREE_CLOEXEC)
	if recursive {
		flags |= unix.AT_RECURSIVE
	}
	return unix.OpenTree(unix.AT_FDCWD, path, flags)
}

// attach mounts the detached tree d at its target (made when missing, in
// a writable folder), with attributes set, and closes it.
func attach(d detached, attrs uint64) error {
	defer unix.Close(d.fd)
	if attrs != 0 {
		if err := unix.MountSetattr(d.fd, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &unix.MountAttr{Attr_set: attrs}); err != nil {
			return fmt.Errorf("mount_setattr: %w", err)
		}
	}
	if err := ensureMountPoint(d.target, d.dir); err != nil {
		return err
	}
	if err := unix.MoveMount(d.fd, "", unix.AT_FDCWD, d.target, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("move_mount: %w", err)
	}
	return nil
}

// ensureMountPoint makes path (a folder, or an empty file) when it does
// not exist in the view.
func ensureMountPoint(path string, dir bool) error {
	if _, err := os.Lstat(path); err == nil {
		return nil
	}
	if dir {
		return os.MkdirAll(path, 0o755)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o444)
	if err != nil {
		return err
	}
	return f.Close()
}

// mountTmpfs mounts a new tmpfs at path with the options opts.
func mountTmpfs(path, opts string) error {
	o := map[string]string{}
	for _, kv := range strings.Split(opts, ",") {
		k, v, _ := strings.Cut(kv, "=")
		o[k] = v
	}
	return mountFS("tmpfs", path, o, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV)
}

// mountFS mounts a new file system of type fstype at path.
func mountFS(fstype, path string, opts map[string]string, attrs int) error {
	fs, err := unix.Fsopen(fstype, unix.FSOPEN_CLOEXEC)
	if err != nil {
		return fmt.Errorf("fsopen %s: %w", fstype, err)
	}
	defer unix.Close(fs)
	for k, v := range opts {
		if v == "" {
			err = unix.FsconfigSetFlag(fs, k)
		} else {
			err = unix.FsconfigSetString(fs, k, v)
		}
		if err != nil {
			return fmt.Errorf("%s option %s: %w", fstype, k, err)
		}
	}
	if err := unix.FsconfigCreate(fs); err != nil {
		return fmt.Errorf("create %s: %w", fstype, err)
	}
	m, err := unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC, attrs)
	if err != nil {
		return fmt.Errorf("fsmount %s: %w", fstype, err)
	}
	defer unix.Close(m)
	if err := ensureMountPoint(path, true); err != nil {
		return err
	}
	if err := unix.MoveMount(m, "", unix.AT_FDCWD, path, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("move_mount %s: %w", path, err)
	}
	return nil
}

// mountProc mounts a proc file system at /proc of the calling thread's
// mount namespace: of the PID namespace pidns (a descriptor; -1: the
// caller's), with its sensitive parts read-only when guard is set. It
// reports errPidnsOption when the kernel cannot mount the proc of another
// PID namespace.
func mountProc(pidns int, guard bool) error {
	fs, err := unix.Fsopen("proc", unix.FSOPEN_CLOEXEC)
	if err != nil {
		return fmt.Errorf("fsopen proc: %w", err)
	}
	defer unix.Close(fs)
	if pidns >= 0 {
		if err := unix.FsconfigSetFd(fs, "pidns", pidns); err != nil {
			return fmt.Errorf("%w: %v", errPidnsOption, err)
		}
	}
	if err := unix.FsconfigCreate(fs); err != nil {
		return fmt.Errorf("create proc: %w", err)
	}
	m, err := unix.Fsmount(fs, unix.FSMOUNT_CLOEXEC, unix.MOUNT_ATTR_NOSUID|unix.MOUNT_ATTR_NODEV|unix.MOUNT_ATTR_NOEXEC)
	if err != nil {
		return fmt.Errorf("fsmount proc: %w", err)
	}
	defer unix.Close(m)
	if err := unix.MoveMount(m, "", unix.AT_FDCWD, "/proc", unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return fmt.Errorf("move_mount /proc: %w", err)
	}
	if !guard {
		return nil
	}
	for _, p := range sensitiveProc {
		fd, err := cloneTree(p, true)
		if err != nil {
			continue // not in this kernel's proc
		}
		if err := attach(detached{fd: fd, target: p, dir: true}, unix.MOUNT_ATTR_RDONLY); err != nil {
			return fmt.Errorf("%s read-only: %w", p, err)
		}
	}
	return nil
}

// errPidnsOption: the kernel's proc has no pidns option (before Linux 6.15
// or so): commands then see the session's PID namespace in /proc.
var errPidnsOption = errors.New("proc has no pidns option")

// listedSockets returns the paths of the UNIX sockets bound on this
// machine's network namespace (/proc/net/unix), at most 256.
func listedSockets() []string {
	f, err := os.Open("/proc/net/unix")
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(out) < 256 {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 8 && strings.HasPrefix(fields[7], "/") && !slices.Contains(out, fields[7]) {
			out = append(out, fields[7])
		}
	}
	return out
}

// underAny reports whether p is one of dirs or inside one.
func underAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if p == d || strings.HasPrefix(p, strings.TrimSuffix(d, "/")+"/") {
			return true
		}
	}
	return false
}
