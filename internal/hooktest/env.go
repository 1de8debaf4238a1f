package hooktest

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/noora-hooks/noora-hooks/protocol"
)

// Env is the process around a check: where it prints and what it reads of
// the environment.
type Env struct {
	Stdout, Stderr io.Writer
	Getenv         func(string) string
}

// OSEnv is the real process's.
func OSEnv() *Env { return &Env{Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv} }

// Warnf prints a warning as noora-hooks does.
func (e *Env) Warnf(format string, args ...any) {
	fmt.Fprintf(e.Stderr, "noora-hooks: warning: "+format+"\n", args...)
}

// globals are the flags of noora-hooks that check passes on.
type globals struct{ Home, Config string }

// maxPayload bounds a scenario's payload file, as exec bounds its input.
const maxPayload = 64 << 20

// readFile reads a scenario's payload file, at most maxPayload bytes.
func readFile(file string) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("read payload: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPayload+1))
	if err != nil {
		return nil, fmt.Errorf("read payload from %s: %w", file, err)
	}
	if len(data) > maxPayload {
		return nil, fmt.Errorf("read payload from %s: larger than %d MiB", file, maxPayload>>20)
	}
	return data, nil
}

// readKwargs reads an event's kwargs from file, as exec does.
func readKwargs(file string) (protocol.Kwargs, error) {
	data, err := readFile(file)
	if err != nil {
		return nil, err
	}
	kw, err := protocol.ParseKwargs(data)
	if err != nil {
		if errors.Is(err, protocol.ErrNotObject) {
			return nil, fmt.Errorf("payload from %s is %v; %s", file, err, protocol.KwargsHint)
		}
		return nil, fmt.Errorf("payload from %s: %v; %s", file, err, protocol.KwargsHint)
	}
	return kw, nil
}

// unknownEvent is the error for an event that is not in the catalogue.
func unknownEvent(event string) error {
	msg := fmt.Sprintf("unknown event %q", event)
	if best, ok := protocol.Closest(event); ok {
		msg += fmt.Sprintf("; did you mean %q?", best)
	}
	return usage{errors.New(msg)}
}
