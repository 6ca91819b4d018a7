package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ctxhook/ctxhook/host/internal/platform"
	"github.com/ctxhook/ctxhook/host/store"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

func runShow(ctx context.Context, env Env, args []string) int {
	fs := newFlags(env, "show", "[--json] <id|key>", "Print one captured event in full (ids come from 'ctxhook search'; keys like e1a2b3c4d5e6f7a8b from shaped responses and hints).")
	asJSON := fs.Bool("json", false, "print JSON")
	pos, code, ok := parse(fs, args)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return usageError(env, "show", "name one event: an id from 'ctxhook search' (42), a key (e1a2b3c4d5e6f7a8b) or a transcript turn (c12)")
	}
	ref := strings.TrimPrefix(pos[0], "#")
	if rest, ok := strings.CutPrefix(ref, "c"); ok && !isEventKey(ref) {
		return showChunk(env, rest, *asJSON)
	}
	if id, err := strconv.ParseInt(ref, 10, 64); (err == nil && id < 1) || (err != nil && !isEventKey(ref)) {
		return usageError(env, "show", "an event is named by a positive id (42) or a key (e1a2b3c4d5e6f7a8b), not %q", pos[0])
	}
	st, code := openStore(env)
	if st == nil {
		return code
	}
	defer st.Close()
	e, err := st.EventByRef(ref)
	if errors.Is(err, store.ErrNotFound) {
		return fail(env, "no event %s; 'ctxhook search <words>' lists event ids", ref)
	}
	if err != nil {
		return fail(env, "%v", err)
	}
	if *asJSON {
		if err := showJSON(env.Stdout, st, e); err != nil {
			return fail(env, "%v", err)
		}
		return 0
	}
	// Captured text is hostile: escape sequences are printed visibly.
	w := platform.NewTermWriter(env.Stdout)
	defer w.Flush()
	fmt.Fprintf(w, "event      #%d", e.ID)
	if e.Key != "" {
		fmt.Fprintf(w, " (key %s)", e.Key)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "time       %s\n", time.UnixMilli(e.TimeMS).Format(time.RFC3339))
	fmt.Fprintf(w, "session    %s (%s)\n", e.Session, e.Harness)
	fmt.Fprintf(w, "hook       %s, category %s\n", e.HookEvent, e.Category)
	if e.Tool != "" {
		fmt.Fprintf(w, "tool       %s\n", e.Tool)
	}
	if e.Server != "" {
		fmt.Fprintf(w, "server     %s\n", e.Server)
	}
	if e.ResponseForm == abi.ResponseFormExcluded {
		fmt.Fprintf(w, "size       %d bytes, not stored: the capture settings exclude this call (config.toml [capture], CTXHOOK_CAPTURE)\n", e.ResponseBytes)
		return 0
	}
	fmt.Fprintf(w, "size       %d bytes captured", e.ResponseBytes)
	if e.Truncated {
		fmt.Fprint(w, " (truncated when stored)")
	}
	if e.Redactions > 0 {
		fmt.Fprintf(w, ", %s redacted", plural(int64(e.Redactions), "secret", "secrets"))
	}
	fmt.Fprintln(w)
	if e.Args != "" {
		fmt.Fprintf(w, "arguments  %s\n", e.Args)
	}
	// The body is streamed a part at a time: it may be far larger than
	// what is worth holding in memory.
	fmt.Fprintln(w)
	if _, err := st.WriteBody(w, e.ID, e.BodyField()); err != nil {
		return fail(env, "%v", err)
	}
	fmt.Fprintln(w)
	return 0
}

// showJSON prints an event as JSON, like writeJSON, with its response
// and text in full: an event stored in parts has them streamed into the
// JSON strings, a part at a time.
func showJSON(w io.Writer, st *store.Store, e store.Event) error {
	meta := e
	if !e.Whole() {
		meta.Response, meta.Text = "", "" // omitted: streamed below
	}
	var head bytes.Buffer
	enc := json.NewEncoder(&head)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(meta); err != nil {
		return err
	}
	if e.Whole() {
		_, err := w.Write(head.Bytes())
		return err
	}
	obj, ok := strings.CutSuffix(head.String(), "\n}\n")
	if !ok {
		return fmt.Errorf("show: unexpected JSON %q", head.String())
	}
	if _, err := io.WriteString(w, obj); err != nil {
		return err
	}
	for _, f := range []struct {
		field store.Field
		size  int64
	}{{store.FieldResponse, e.ResponseSize}, {store.FieldText, e.TextSize}} {
		if f.size == 0 {
			continue // omitempty, as for a whole event
		}
		if _, err := fmt.Fprintf(w, ",\n  %q: \"", f.field); err != nil {
			return err
		}
		js := &jsonString{w: w}
		if _, err := st.WriteBody(js, e.ID, f.field); err != nil {
			return err
		}
		if err := js.flush(); err != nil {
			return err
		}
		if _, err := io.WriteString(w, `"`); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, "\n}\n")
	return err
}

// jsonString writes what it is given as the inside of a JSON string,
// escaped as encoding/json escapes it (HTML characters as they are). A
// character cut between two writes is held back until it is whole.
type jsonString struct {
	w     io.Writer
	carry []byte
}

func (j *jsonString) Write(p []byte) (int, error) {
	buf := append(j.carry, p...)
	k := len(buf)
	for i := len(buf) - 1; i >= 0 && i >= len(buf)-utf8.UTFMax; i-- {
		if utf8.RuneStart(buf[i]) {
			if !utf8.FullRune(buf[i:]) {
				k = i
			}
			break
		}
	}
	j.carry = append([]byte(nil), buf[k:]...)
	return len(p), j.write(buf[:k])
}

func (j *jsonString) flush() error {
	err := j.write(j.carry)
	j.carry = nil
	return err
}

func (j *jsonString) write(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(string(b)); err != nil {
		return err
	}
	q := out.Bytes() // "...", then a newline
	_, err := j.w.Write(q[1 : len(q)-2])
	return err
}

// isEventKey reports whether s looks like a key the plugin gives events.
func isEventKey(s string) bool {
	if len(s) != 17 || s[0] != 'e' {
		return false
	}
	for _, c := range s[1:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// showChunk prints one transcript turn ("c12").
func showChunk(env Env, idText string, asJSON bool) int {
	id, err := strconv.ParseInt(idText, 10, 64)
	if err != nil || id < 1 {
		return usageError(env, "show", "a transcript turn is named c and a positive number (c12), not c%s", idText)
	}
	st, code := openStore(env)
	if st == nil {
		return code
	}
	defer st.Close()
	c, err := st.ChunkByID(id)
	if errors.Is(err, store.ErrNotFound) {
		return fail(env, "no transcript turn c%d; 'ctxhook search <words>' lists turn ids", id)
	}
	if err != nil {
		return fail(env, "%v", err)
	}
	if asJSON {
		return writeJSON(env, c)
	}
	w := platform.NewTermWriter(env.Stdout)
	defer w.Flush()
	fmt.Fprintf(w, "turn       #c%d\n", c.ID)
	fmt.Fprintf(w, "time       %s\n", time.UnixMilli(c.TimeMS).Format(time.RFC3339))
	fmt.Fprintf(w, "session    %s (%s)\n", c.Session, c.Harness)
	fmt.Fprintf(w, "transcript %s\n", c.Path)
	if c.Cwd != "" {
		fmt.Fprintf(w, "project    %s\n", c.Cwd)
	}
	fmt.Fprintf(w, "\n%s\n", c.Text)
	return 0
}
