package nudge

import (
	"testing"

	"github.com/ctxhook/ctxhook/plugin/abi"
)

func TestEvery(t *testing.T) {
	tests := []struct {
		raw  string
		want int
	}{
		{"", abi.DefaultNudgeEvery},
		{"3", 3},
		{" 7 ", 7},
		{"1", 1},
		{"100", 100},
		{"0", abi.DefaultNudgeEvery},
		{"-1", abi.DefaultNudgeEvery},
		{"101", abi.DefaultNudgeEvery},
		{"9999", abi.DefaultNudgeEvery},
		{"abc", abi.DefaultNudgeEvery},
		{"3.5", abi.DefaultNudgeEvery},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			if got := Every(tt.raw); got != tt.want {
				t.Errorf("Every(%q) = %d, want %d", tt.raw, got, tt.want)
			}
		})
	}
}

func TestDueCadence(t *testing.T) {
	var fired []int
	for call := 1; call <= 22; call++ {
		if Due(call, 10) {
			fired = append(fired, call)
		}
	}
	if len(fired) != 3 || fired[0] != 1 || fired[1] != 11 || fired[2] != 21 {
		t.Fatalf("fired on %v, want [1 11 21]", fired)
	}
}

func TestTextsAreShort(t *testing.T) {
	texts := []string{MCP}
	for _, s := range oneShot {
		texts = append(texts, s)
	}
	for _, s := range texts {
		if len(s) >= 300 {
			t.Errorf("nudge is %d chars, want < 300: %q", len(s), s)
		}
	}
}
