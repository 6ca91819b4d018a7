package engine

import (
	"encoding/json"
	"fmt"

	"github.com/ctxhook/ctxhook/plugin/abi"
	"github.com/ctxhook/ctxhook/plugin/internal/payload"
	"github.com/ctxhook/ctxhook/plugin/internal/transcript"
)

// transcriptPass is one incremental read of a session transcript.
type transcriptPass struct{ p abi.TranscriptPayload }

func parseTranscript(raw string) (dialect, error) {
	var p abi.TranscriptPayload
	if err := payload.Decode([]byte(raw), &p); err != nil {
		return nil, err
	}
	if !transcript.Known(p.Format) {
		return nil, fmt.Errorf("%w: unknown transcript format %q", payload.ErrPayload, p.Format)
	}
	return transcriptPass{p}, nil
}

func (t transcriptPass) session() string { return orUnknown(t.p.Session) }

// decide turns complete turns into chunks, redacted with every token the
// session's relay knows (transcripts hold them: Claude Code keeps result
// _meta there), and says how far it read.
func (t transcriptPass) decide(d *decision, _ string) {
	turns, consumed := transcript.Parse(t.p.Format, []byte(t.p.Data), t.p.Final)
	if d.excluding() {
		// A transcript holds tool results, an excluded tool's too: while
		// anything is excluded, turns are read past and none is stored.
		turns = nil
	}
	r := d.redactor()
	for _, tr := range turns {
		text, n := r.String(tr.Text)
		session := tr.Session
		if session == "" {
			session = t.p.Session
		}
		// The short fields too: they come from the file as they are.
		session, n1 := r.String(session)
		cwd, n2 := r.String(tr.Cwd)
		n += n1 + n2
		d.effects = append(d.effects, abi.Effect{Op: abi.OpStoreChunk, Chunk: &abi.Chunk{
			TimeMS: tr.TimeMS, Session: orUnknown(session), Harness: t.p.Format, Path: t.p.Path,
			Cwd: cwd, Text: text, Bytes: len(tr.Text), Redactions: n}})
	}
	b, _ := json.Marshal(abi.TranscriptAnswer{Consumed: consumed, Chunks: len(turns)})
	d.stdout = string(b) + "\n"
}
