//go:build unix

package runner

import (
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// A hook can leave a process that escaped its process group behind (`setsid
// sh -c 'sleep 77' &`): killing the group cannot reach it. Where the system
// lets a process adopt the orphans of its descendants (Linux:
// PR_SET_CHILD_SUBREAPER, reap_linux.go) and the program asked for it
// (AdoptOrphans), the runner does, and every time a hook ends it kills the adopted processes that no running hook can still
// own, then reaps them. Elsewhere (macOS, the BSDs: reap_other.go) such an
// escapee goes to init and is not killed; what stays in the hook's group
// still is (SPEC §4).

// family is every child the runner started and has not yet waited for: the
// leaders of hook process groups, plugin processes, detached senders. An
// adopted orphan is any other child.
var family = struct {
	mu      sync.Mutex
	leaders map[int]bool
}{leaders: map[int]bool{}}

var (
	adoptOnce sync.Once
	adopting  atomic.Bool
)

// AdoptOrphans makes this process adopt the orphans of its descendants where
// the system allows it (Linux), so that what a hook leaves outside its
// process group is killed when the hook ends. Only a program whose every
// child is started through this package may call it (the noora-hooks
// command does, in cli.Main): a sweep kills any child it did not start. A
// program that embeds the runner and starts children of its own must not.
func AdoptOrphans() {
	adoptOnce.Do(func() { adopting.Store(adoptOrphans()) })
}

// startTracked starts cmd's process with start and records its pid among our
// own children; the lock keeps a sweep from taking a child just started
// for an orphan.
func startTracked(start func() error, pid func() int) error {
	family.mu.Lock()
	defer family.mu.Unlock()
	if err := start(); err != nil {
		return err
	}
	family.leaders[pid()] = true
	return nil
}

// untrack forgets a child that was waited for, then sweeps what it may have
// left: the orphans it made were adopted when it exited.
func untrack(pid int) {
	family.mu.Lock()
	delete(family.leaders, pid)
	family.mu.Unlock()
	sweepOrphans()
}

// sweepGrace bounds how long a sweep waits for the orphans it killed to be
// reaped; one still not gone is reaped by a later sweep.
const sweepGrace = time.Second

// sweepOrphans kills and reaps the adopted processes (children we did not
// start) that belong to no running hook: a process in the group of a live
// child is that child's business until it ends. Killing a group can orphan
// more processes, which are adopted too: the sweep repeats until none is left
// or it stops making progress.
func sweepOrphans() {
	if !adopting.Load() {
		return
	}
	self := os.Getpid()
	ourGroup := syscall.Getpgrp()
	for round := 0; round < 8; round++ {
		family.mu.Lock()
		var strays []int
		for _, pid := range adoptedChildren(self) {
			if family.leaders[pid] {
				continue
			}
			pgid, err := syscall.Getpgid(pid)
			if err == nil && family.leaders[pgid] {
				continue // in a running hook's group
			}
			strays = append(strays, pid)
			if err == nil && pgid != ourGroup {
				_ = syscall.Kill(-pgid, syscall.SIGKILL)
			}
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		family.mu.Unlock()
		if len(strays) == 0 {
			return
		}
		reap(strays)
	}
}

// reap waits for each of pids, for at most sweepGrace in all.
func reap(pids []int) {
	deadline := time.Now().Add(sweepGrace)
	for _, pid := range pids {
		for {
			var ws syscall.WaitStatus
			got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
			if got == pid || err != nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
}
