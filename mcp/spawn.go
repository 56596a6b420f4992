package mcp

import (
	"os/exec"
	"runtime"
)

// spawner starts child processes from one goroutine locked to its OS thread
// for the spawner's whole life. On Linux the children get Pdeathsig
// SIGKILL (see setDeathSignal), and the kernel sends it when the *thread*
// that forked the child exits, not the process: a child started from an
// ordinary goroutine could be killed whenever the runtime retires that
// thread (as it does when a goroutine locked to it exits). Forking from a
// thread that lives until stop keeps the children alive exactly as long
// as the agent, and kills them when the agent dies, even by SIGKILL.
//
// The owner calls stop once every start has returned and every child has
// been stopped; stop ends the thread. start and stop are safe for
// concurrent use, but start must not be called after stop.
type spawner struct {
	reqs chan spawnReq
	done chan struct{}
}

type spawnReq struct {
	cmd *exec.Cmd
	err chan error
}

func newSpawner() *spawner {
	s := &spawner{reqs: make(chan spawnReq), done: make(chan struct{})}
	go s.loop()
	return s
}

func (s *spawner) loop() {
	// Never unlocked: the thread ends with this goroutine, after the
	// children were stopped.
	runtime.LockOSThread()
	defer close(s.done)
	for r := range s.reqs {
		setDeathSignal(r.cmd)
		r.err <- r.cmd.Start()
	}
}

// start starts cmd on the spawner's thread.
func (s *spawner) start(cmd *exec.Cmd) error {
	r := spawnReq{cmd: cmd, err: make(chan error, 1)}
	s.reqs <- r
	return <-r.err
}

// stop ends the spawner and its thread.
func (s *spawner) stop() {
	close(s.reqs)
	<-s.done
}
