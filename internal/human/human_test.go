package human

import (
	"testing"
	"time"
)

func TestCount(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{Count(0, "segment"), "0 segments"},
		{Count(1, "segment"), "1 segment"},
		{Count(int64(8), "segment"), "8 segments"},
		{Count(int32(1), "step"), "1 step"},
		{CountOf(1, "vertex", "vertices"), "1 vertex"},
		{CountOf(3, "vertex", "vertices"), "3 vertices"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{14*time.Minute + 11532*time.Millisecond, "14m12s"},
		{time.Hour + 2*time.Minute + 3400*time.Millisecond, "1h2m3s"},
		{3040558171 * time.Nanosecond, "3.041s"},
		{532499 * time.Microsecond, "532ms"},
		{87400 * time.Nanosecond, "87µs"},
		{-1500 * time.Millisecond, "-1.5s"},
	}
	for _, tt := range tests {
		if got := Duration(tt.d); got != tt.want {
			t.Errorf("Duration(%v) = %q, want %q", tt.d, got, tt.want)
		}
	}
	if got := Seconds(851.532); got != "14m12s" {
		t.Errorf("Seconds(851.532) = %q, want 14m12s", got)
	}
}

func TestRoundSeconds(t *testing.T) {
	for in, want := range map[float64]float64{3.0405581710000003: 3.041, 0: 0, 0.0004: 0, 0.0005: 0.001, 12.5: 12.5} {
		if got := RoundSeconds(in); got != want {
			t.Errorf("RoundSeconds(%v) = %v, want %v", in, got, want)
		}
	}
}
