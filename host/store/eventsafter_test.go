package store

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxhook/ctxhook/internal/testdir"
	"github.com/ctxhook/ctxhook/plugin/abi"
)

// TestEventsAfterBounded: EventsAfter stops once the events' sizes pass
// its byte budget (always taking the first), so a shipper copying a run
// of big events holds a few of them in memory, not a whole batch.
func TestEventsAfterBounded(t *testing.T) {
	s, err := Open(filepath.Join(testdir.New(t), "b.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var events []abi.Event
	for i := 0; i < 5; i++ {
		events = append(events, mcpEvent("s", strings.Repeat("big body line\n", 80000))) // ~1.1 MB of text, and as much response, each
	}
	if _, err := s.Apply(events, nil); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		budget int64
		want   int
	}{{0, 1}, {5 << 20, 2}, {1 << 30, 5}} {
		got, err := s.EventsAfter(0, 200, tt.budget)
		if err != nil || len(got) != tt.want {
			t.Errorf("budget %d: %d events (%v), want %d", tt.budget, len(got), err, tt.want)
		}
		for _, e := range got {
			if len(e.Text) != 80000*len("big body line\n") {
				t.Errorf("budget %d: event %d has %d bytes of text, want it whole", tt.budget, e.ID, len(e.Text))
			}
		}
	}
}
