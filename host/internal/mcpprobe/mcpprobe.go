// Package mcpprobe tells whether an MCP server's configured command
// starts and answers: mcp_tool hooks call ctxhook's MCP server, and when
// it cannot start every tool call goes on without ctxhook, silently, so
// SessionStart and doctor start it once and say why it fails.
package mcpprobe

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Timeout is how long a server has to answer initialize.
const Timeout = 3 * time.Second

// initialize is the first message of an MCP client on stdio.
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",` +
	`"capabilities":{},"clientInfo":{"name":"ctxhook-probe","version":"1"}}}` + "\n"

// Probe runs command with args (environ, as KEY=VALUE, is its whole
// environment; dir its working directory), sends initialize, and
// returns nil when a result comes back within timeout. Otherwise it says
// why, with the first line the server wrote to stderr when there is one.
// The server is ended either way.
func Probe(ctx context.Context, command string, args, environ []string, dir string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, command, args...)
	cmd.Env, cmd.Dir = environ, dir
	cmd.WaitDelay = time.Second
	stderr := &firstLine{}
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s does not start: %v", command, err)
	}
	io.WriteString(stdin, initialize)
	answered := make(chan error, 1)
	go func() { answered <- readResult(stdout) }()
	var rerr error
	select {
	case rerr = <-answered:
	case <-ctx.Done():
		rerr = fmt.Errorf("no answer to initialize within %v", timeout)
	}
	stdin.Close() // a server on stdio ends at end of input
	werr := cmd.Wait()
	if rerr == nil {
		return nil
	}
	why := rerr.Error()
	var exit *exec.ExitError
	if errors.As(werr, &exit) && ctx.Err() == nil {
		why = "exited with " + exit.ProcessState.String()
	}
	if line := stderr.String(); line != "" {
		why += ": " + line
	}
	return errors.New(why)
}

// readResult reads stdout until the answer to initialize (id 1).
func readResult(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(sc.Bytes(), &msg) != nil || string(msg.ID) != "1" {
			continue
		}
		if msg.Error != nil {
			return fmt.Errorf("initialize failed: %s", msg.Error.Message)
		}
		if len(msg.Result) > 0 {
			return nil
		}
	}
	return errors.New("it ended without answering initialize")
}

// firstLine keeps the first non-empty line written to it (bounded).
type firstLine struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (f *firstLine) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.buf.Len() < 4096 {
		f.buf.Write(p[:min(len(p), 4096-f.buf.Len())])
	}
	return len(p), nil
}

func (f *firstLine) String() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, l := range strings.Split(f.buf.String(), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			return l
		}
	}
	return ""
}
