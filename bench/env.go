package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/noora-hooks/noora-hooks/client"
	"github.com/noora-hooks/noora-hooks/internal/config"
	"github.com/noora-hooks/noora-hooks/internal/consent"
)

// Env is what scenarios measure with: the binaries built once, and helpers to
// make homes, run exec and drive serve.
type Env struct {
	Dir       string // temporary directory holding everything
	NooraBin  string // noora-hooks, built as `make build` builds it (static, no cgo)
	HookBin   string // benchhook: answers {} at once (see bench/benchhook)
	runs      int    // -runs, 0 for the scenario's default
	homeCount int
}

// ToolPayload is the kwargs of a typical pre_tool_call.
var ToolPayload = []byte(`{"tool_name":"terminal","args":{"command":"ls -la"},"session_id":"s1","task_id":"t1","tool_call_id":"c1"}`)

func newEnv(runs int) (*Env, error) {
	dir, err := os.MkdirTemp("", "nhb")
	if err != nil {
		return nil, err
	}
	e := &Env{Dir: dir, runs: runs}
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	e.NooraBin = filepath.Join(dir, "noora-hooks")
	e.HookBin = filepath.Join(dir, "benchhook")
	fmt.Fprintf(os.Stderr, "bench: building noora-hooks and benchhook in %s\n", dir)
	if err := goBuild(root, e.NooraBin, "."); err != nil {
		return nil, err
	}
	if err := goBuild(root, e.HookBin, "./bench/benchhook", "-ldflags=-s -w"); err != nil {
		return nil, err
	}
	return e, nil
}

// Close removes the temporary directory.
func (e *Env) Close() { os.RemoveAll(e.Dir) }

// Runs is how many times to repeat a measurement: -runs, else def.
func (e *Env) Runs(def int) int {
	if e.runs > 0 {
		return e.runs
	}
	return def
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("run the benchmarks from the noora-hooks repository (make bench)")
	}
	return filepath.Dir(mod), nil
}

func goBuild(root, out, pkg string, flags ...string) error {
	args := append([]string{"build", "-o", out}, flags...)
	cmd := exec.Command("go", append(args, pkg)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s: %w", pkg, err)
	}
	return nil
}

// Hook is the command line of the trivial hook with args.
func (e *Env) Hook(args ...string) string {
	return strings.Join(append([]string{e.HookBin}, args...), " ")
}

// Home makes a new home directory with configYAML as its config, every
// shell hook in it approved in the allowlist (as `approve --yes` would), and
// a working directory for hooks. It returns the home.
func (e *Env) Home(configYAML string) (string, error) {
	e.homeCount++
	home := filepath.Join(e.Dir, fmt.Sprintf("h%d", e.homeCount))
	if err := os.MkdirAll(filepath.Join(home, "work"), 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(home, "config.yaml")
	if err := os.WriteFile(path, []byte(configYAML), 0o600); err != nil {
		return "", err
	}
	cfg, err := config.Parse(path, []byte(configYAML))
	if err != nil {
		return "", err
	}
	if len(cfg.Warnings) > 0 {
		return "", fmt.Errorf("bench config: %s", cfg.Warnings[0])
	}
	var approvals []consent.Approval
	for _, h := range cfg.ShellHooks {
		b := consent.Bind(h.Command, filepath.Join(home, "work"), os.Environ()) // exec runs there
		approvals = append(approvals, consent.NewApproval(h.Event, h.Command, b, time.Now()))
	}
	if len(approvals) > 0 {
		store := consent.Store{Path: config.Paths{Home: home}.Allowlist()}
		if err := store.Record(approvals...); err != nil {
			return "", err
		}
	}
	return home, nil
}

// ExecResult is one run of exec.
type ExecResult struct {
	Wall   time.Duration
	CPU    time.Duration // user + system, of exec and of the hooks it waited for
	MaxRSS int64         // bytes: the peak of exec and of the hooks it waited for (wait4's rusage)
	Stdout []byte
}

// Exec runs `noora-hooks exec event` with payload on stdin in home, and
// fails unless it exits 0 with nothing on stderr.
func (e *Env) Exec(home, event string, payload []byte) (ExecResult, error) {
	cmd := exec.Command(e.NooraBin, "exec", event)
	cmd.Dir = filepath.Join(home, "work")
	cmd.Env = append(os.Environ(), "NOORA_HOME="+home)
	cmd.Stdin = bytes.NewReader(payload)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return ExecResult{}, fmt.Errorf("exec %s: %v: %s", event, err, stderr.Bytes())
	}
	if stderr.Len() > 0 && !bytes.Contains(stderr.Bytes(), []byte("stdout is over")) {
		return ExecResult{}, fmt.Errorf("exec %s warned: %s", event, stderr.Bytes())
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return ExecResult{Wall: wall, CPU: cpu, MaxRSS: maxRSS(cmd.ProcessState), Stdout: stdout.Bytes()}, nil
}

// Spawn runs program with args directly, payload on stdin, as a host that
// runs its hook itself would, and returns the wall time.
func (e *Env) Spawn(dir string, payload []byte, program string, args ...string) (time.Duration, error) {
	cmd := exec.Command(program, args...)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(payload)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("spawn %s: %w", program, err)
	}
	return wall, nil
}

func maxRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss * 1024 // KiB on Linux
	}
	return 0
}

// Serve is a running `noora-hooks serve`.
type Serve struct {
	cmd    *exec.Cmd
	Addr   client.Addr
	Client *client.Client
	Cwd    string
	stderr bytes.Buffer
}

// StartServe starts serve on a socket in home and waits until it answers.
func (e *Env) StartServe(home string) (*Serve, error) {
	s := &Serve{Addr: client.Addr{Network: "unix", Address: filepath.Join(home, "s.sock")}, Cwd: filepath.Join(home, "work")}
	s.cmd = exec.Command(e.NooraBin, "serve", "--listen", s.Addr.String())
	s.cmd.Dir = s.Cwd
	s.cmd.Env = append(os.Environ(), "NOORA_HOME="+home)
	s.cmd.Stderr = &s.stderr
	if err := s.cmd.Start(); err != nil {
		return nil, err
	}
	s.Client = client.New(s.Addr, "")
	deadline := time.Now().Add(10 * time.Second)
	for s.Client.Health(context.Background()) != nil {
		if time.Now().After(deadline) {
			s.Stop()
			return nil, fmt.Errorf("serve did not come up: %s", s.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	return s, nil
}

// Stop sends SIGTERM and waits for serve to exit.
func (s *Serve) Stop() error {
	s.Client.Close()
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	return s.cmd.Wait()
}

// PeakRSS is serve's VmHWM (its own peak resident memory, hooks excluded).
func (s *Serve) PeakRSS() (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, errors.New("no VmHWM in /proc status")
}

// LoadResult is what Load measured.
type LoadResult struct {
	Events   int
	Elapsed  time.Duration
	P50, P99 time.Duration
}

// Rate is events per second.
func (r LoadResult) Rate() float64 { return float64(r.Events) / r.Elapsed.Seconds() }

// Load fires event at serve from clients goroutines, each waiting for its
// answer before the next, for about d; every answer must be want.
func (s *Serve) Load(clients int, d time.Duration, event string, payload, want []byte) (LoadResult, error) {
	var (
		mu        sync.Mutex
		latencies []time.Duration
		firstErr  error
		stop      atomic.Bool
		wg        sync.WaitGroup
	)
	start := time.Now()
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for !stop.Load() {
				t0 := time.Now()
				a, err := s.Client.Fire(context.Background(), event, payload, client.FireOptions{Cwd: s.Cwd})
				if err == nil && !bytes.Equal(a.Body, want) {
					err = fmt.Errorf("answer %q, want %q", a.Body, want)
				}
				if err == nil && len(a.Warnings) > 0 {
					err = fmt.Errorf("warning: %s", a.Warnings[0])
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					stop.Store(true)
					return
				}
				mine = append(mine, time.Since(t0))
			}
			mu.Lock()
			latencies = append(latencies, mine...)
			mu.Unlock()
		}()
	}
	time.Sleep(d)
	stop.Store(true)
	wg.Wait()
	elapsed := time.Since(start)
	if firstErr != nil {
		return LoadResult{}, firstErr
	}
	sort.Slice(latencies, func(i, j int) bool { return latencies[i] < latencies[j] })
	at := func(p float64) time.Duration {
		if len(latencies) == 0 {
			return 0
		}
		return latencies[int(p/100*float64(len(latencies)-1))]
	}
	return LoadResult{Events: len(latencies), Elapsed: elapsed, P50: at(50), P99: at(99)}, nil
}
