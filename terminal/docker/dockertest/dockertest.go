// Package dockertest starts a private dockerd for tests (Debian's
// docker.io, as root) with its own data root and socket, no bridge and no
// iptables, and builds a busybox image from scratch in it with the
// network off: nothing leaves the machine.
package dockertest

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/moby/moby/client"
)

// Image is the tag of the test image (busybox, from scratch).
const Image = "hermes-acp-test-busybox:latest"

// Daemon is a running private dockerd.
type Daemon struct {
	Host string // unix://…, for DOCKER_HOST
	// TCP is the same daemon on a loopback port without TLS
	// (tcp://127.0.0.1:…), as a remote daemon is reached.
	TCP string
	dir string
	cmd *exec.Cmd
	log string

	pyOnce sync.Once // the Python image, built on first use
	pyErr  error
}

var (
	once   sync.Once
	shared *Daemon
	err    error
)

// Start starts the shared daemon (once per test binary) and builds the
// test image. Stop it from TestMain with [Stop].
func Start() (*Daemon, error) {
	once.Do(func() { shared, err = start() })
	return shared, err
}

// Stop stops the shared daemon, if started, and removes its files.
func Stop() {
	if shared != nil {
		shared.stop()
	}
}

// New starts a daemon of the caller's own (stop it with [Daemon.Stop]),
// for test binaries that cannot stop the shared one from TestMain.
func New() (*Daemon, error) { return start() }

// Stop removes the daemon's containers, stops it and removes its files.
func (d *Daemon) Stop() { d.stop() }

func start() (*Daemon, error) {
	bin, err := exec.LookPath("dockerd")
	if err != nil {
		return nil, fmt.Errorf("dockerd not found (install docker.io): %w", err)
	}
	bb, err := exec.LookPath("busybox")
	if err != nil {
		return nil, fmt.Errorf("busybox not found (install busybox-static): %w", err)
	}
	dir, err := os.MkdirTemp("/tmp", "hd") // short: socket paths are limited to 108 bytes
	if err != nil {
		return nil, err
	}
	d := &Daemon{dir: dir, Host: "unix://" + filepath.Join(dir, "d.sock"), log: filepath.Join(dir, "dockerd.log")}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	d.TCP = fmt.Sprintf("tcp://127.0.0.1:%d", port)
	logf, err := os.Create(d.log)
	if err != nil {
		return nil, err
	}
	d.cmd = exec.Command(bin, "--data-root", filepath.Join(dir, "data"), "--exec-root", filepath.Join(dir, "exec"),
		"--pidfile", filepath.Join(dir, "d.pid"), "-H", d.Host, "-H", d.TCP,
		"--bridge=none", "--iptables=false", "--ip6tables=false")
	d.cmd.Stdout, d.cmd.Stderr = logf, logf
	d.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := d.cmd.Start(); err != nil {
		logf.Close()
		return nil, fmt.Errorf("start dockerd: %w", err)
	}
	logf.Close()
	cli, err := client.New(client.WithHost(d.Host), client.WithAPIVersionNegotiation())
	if err != nil {
		d.stop()
		return nil, err
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		if _, err := cli.Ping(ctx, client.PingOptions{NegotiateAPIVersion: true}); err == nil {
			break
		}
		select {
		case <-ctx.Done():
			d.stop()
			return nil, fmt.Errorf("dockerd did not answer in 60 s; its log:\n%s", d.Log())
		case <-time.After(100 * time.Millisecond):
		}
	}
	if err := buildImage(ctx, cli, bb); err != nil {
		log := d.Log()
		d.stop()
		return nil, fmt.Errorf("build test image: %w; dockerd's log:\n%s", err, log)
	}
	return d, nil
}

// freePort is a loopback TCP port nothing listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// buildImage builds Image from scratch with busybox, network off.
func buildImage(ctx context.Context, cli *client.Client, busybox string) error {
	bin, err := os.ReadFile(busybox)
	if err != nil {
		return err
	}
	dockerfile := "FROM scratch\nCOPY busybox /bin/busybox\nRUN [\"/bin/busybox\", \"--install\", \"-s\", \"/bin\"]\n"
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range []struct {
		name string
		mode int64
		data []byte
	}{{"Dockerfile", 0o644, []byte(dockerfile)}, {"busybox", 0o755, bin}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data))}); err != nil {
			return err
		}
		if _, err := tw.Write(f.data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	res, err := cli.ImageBuild(ctx, &buf, client.ImageBuildOptions{Tags: []string{Image}, NetworkMode: "none", Remove: true, ForceRemove: true})
	if err != nil {
		return err
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if bytes.Contains(out, []byte(`"error"`)) || bytes.Contains(out, []byte(`"errorDetail"`)) {
		return fmt.Errorf("%s", out)
	}
	return nil
}

// Log returns the daemon's log so far.
func (d *Daemon) Log() string {
	b, _ := os.ReadFile(d.log)
	return string(b)
}

// Client returns a client of the daemon.
func (d *Daemon) Client() (*client.Client, error) {
	return client.New(client.WithHost(d.Host), client.WithAPIVersionNegotiation())
}

func (d *Daemon) stop() {
	if d.cmd != nil && d.cmd.Process != nil {
		// Remove what tests left, then stop the daemon.
		if cli, err := d.Client(); err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			if list, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true}); err == nil {
				for _, c := range list.Items {
					_, _ = cli.ContainerRemove(ctx, c.ID, client.ContainerRemoveOptions{Force: true})
				}
			}
			cancel()
			cli.Close()
		}
		_ = d.cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = d.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = syscall.Kill(-d.cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	}
	// The data root holds mounts only while the daemon runs.
	_ = os.RemoveAll(d.dir)
}

// PythonImage is the tag of the test image with Python (PythonImageIn).
const PythonImage = "hermes-acp-test-python:latest"

// PythonImageIn builds PythonImage in d, once per daemon: busybox and this
// machine's Debian python3 (/usr/bin/python3, its standard library
// without the tests and GUI toolkits, and the shared libraries it and its
// extension modules load), from scratch with the network off — what
// execute_code needs of a container. It returns the tag.
func (d *Daemon) PythonImageIn(ctx context.Context) (string, error) {
	d.pyOnce.Do(func() { d.pyErr = d.buildPython(ctx) })
	return PythonImage, d.pyErr
}

func (d *Daemon) buildPython(ctx context.Context) error {
	bb, err := exec.LookPath("busybox")
	if err != nil {
		return fmt.Errorf("busybox not found (install busybox-static): %w", err)
	}
	py, err := filepath.EvalSymlinks("/usr/bin/python3")
	if err != nil {
		return fmt.Errorf("/usr/bin/python3 not found (install python3): %w", err)
	}
	out, err := exec.Command(py, "-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])").Output()
	if err != nil {
		return fmt.Errorf("%s: %w", py, err)
	}
	stdlib := strings.TrimSpace(string(out))
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	add := func(name string, mode int64, data []byte) error {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: mode, Size: int64(len(data))}); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	addFile := func(path string) error {
		fi, err := os.Stat(path)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return add("rootfs"+path, int64(fi.Mode().Perm()), b)
	}
	libs := map[string]bool{}
	needs := func(bin string) {
		out, _ := exec.Command("ldd", bin).Output()
		for _, l := range strings.Split(string(out), "\n") {
			for _, f := range strings.Fields(l) {
				if strings.HasPrefix(f, "/") {
					libs[f] = true
				}
			}
		}
	}
	needs(py)
	skip := map[string]bool{"test": true, "idlelib": true, "tkinter": true, "turtledemo": true, "ensurepip": true,
		"lib2to3": true, "pydoc_data": true, "__pycache__": true, "site-packages": true, "dist-packages": true}
	err = filepath.WalkDir(stdlib, func(path string, de os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if de.IsDir() {
			if skip[de.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if !de.Type().IsRegular() {
			return nil
		}
		if strings.HasSuffix(path, ".so") {
			needs(path)
		}
		return addFile(path)
	})
	if err != nil {
		return fmt.Errorf("copy %s: %w", stdlib, err)
	}
	for l := range libs {
		real, err := filepath.EvalSymlinks(l)
		if err != nil {
			continue
		}
		b, err := os.ReadFile(real)
		if err != nil {
			return err
		}
		if err := add("rootfs"+l, 0o755, b); err != nil {
			return err
		}
	}
	if err := addFile(py); err != nil {
		return err
	}
	bin, err := os.ReadFile(bb)
	if err != nil {
		return err
	}
	if err := add("rootfs/bin/busybox", 0o755, bin); err != nil {
		return err
	}
	if err := tw.WriteHeader(&tar.Header{Name: "rootfs/usr/bin/python3", Typeflag: tar.TypeSymlink, Linkname: filepath.Base(py)}); err != nil {
		return err
	}
	if err := tw.WriteHeader(&tar.Header{Name: "rootfs/tmp/", Typeflag: tar.TypeDir, Mode: 0o1777}); err != nil {
		return err
	}
	dockerfile := "FROM scratch\nCOPY rootfs/ /\nRUN [\"/bin/busybox\", \"--install\", \"-s\", \"/bin\"]\nENV PATH=/usr/bin:/bin\n"
	if err := add("Dockerfile", 0o644, []byte(dockerfile)); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	cli, err := d.Client()
	if err != nil {
		return err
	}
	defer cli.Close()
	res, err := cli.ImageBuild(ctx, &buf, client.ImageBuildOptions{Tags: []string{PythonImage}, NetworkMode: "none", Remove: true, ForceRemove: true})
	if err != nil {
		return fmt.Errorf("build %s: %w", PythonImage, err)
	}
	defer res.Body.Close()
	msg, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if bytes.Contains(msg, []byte(`"error"`)) || bytes.Contains(msg, []byte(`"errorDetail"`)) {
		return fmt.Errorf("build %s: %s", PythonImage, msg)
	}
	return nil
}
