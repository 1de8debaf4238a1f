//go:build unix

package plugins

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestAPluginStartEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err := StartProcess(ctx, ProcessSpec{
		Name: "silent", Argv: []string{"/bin/sh", "-c", "sleep 60"},
		Env: []string{"PATH=/usr/bin:/bin"}, StartTimeout: 2 * time.Minute,
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the start interrupted", err)
	}
	// The start would wait 2 minutes for a hello; the bound only has to
	// tell an interrupted start from that on a loaded machine.
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("the interrupted start took %v", took)
	}
}
