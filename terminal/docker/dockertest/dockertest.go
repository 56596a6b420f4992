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
