package hookproto

import (
	"testing"
	"time"
)

func TestHook(t *testing.T) {
	for _, tt := range []struct {
		v    string
		want time.Duration
	}{
		{"", Default},
		{"abc", Default},
		{"0", Default},
		{"-5", Default},
		{"1500", 1500 * time.Millisecond},
		{"600000", MaxHook},
		{"600001", MaxHook},
		{"9223372036854", MaxHook},        // overflowed a Duration
		{"99999999999999999999", MaxHook}, // past int64
		{"-99999999999999999999", Default},
	} {
		if got := Hook(func(string) string { return tt.v }); got != tt.want {
			t.Errorf("CTXHOOK_HOOK_DEADLINE_MS=%q: %v, want %v", tt.v, got, tt.want)
		}
	}
}
