// Package human formats numbers for the people who read jobevent's text
// output, and rounds the seconds of its JSON output, in one place so that
// every command says them alike.
package human

import (
	"math"
	"strconv"
	"time"
)

// Count returns n followed by noun, made plural by an "s" unless n is 1:
// "1 segment", "8 segments", "0 steps".
func Count[N ~int | ~int32 | ~int64](n N, noun string) string {
	return CountOf(n, noun, noun+"s")
}

// CountOf is Count for a noun whose plural is not made with an "s":
// CountOf(3, "vertex", "vertices").
func CountOf[N ~int | ~int32 | ~int64](n N, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.FormatInt(int64(n), 10) + " " + many
}

// Duration returns d rounded to what a reader needs: whole seconds from a
// minute on ("14m12s"), milliseconds below ("3.041s", "532ms"),
// microseconds below a millisecond ("87µs").
func Duration(d time.Duration) string {
	switch a := d.Abs(); {
	case a >= time.Minute:
		return d.Round(time.Second).String()
	case a >= time.Millisecond:
		return d.Round(time.Millisecond).String()
	default:
		return d.Round(time.Microsecond).String()
	}
}

// Seconds is Duration for a number of seconds.
func Seconds(s float64) string {
	return Duration(time.Duration(s * float64(time.Second)))
}

// RoundSeconds rounds a number of seconds to the millisecond, as JSON
// output gives it: 3.0405581710000003 is 3.041.
func RoundSeconds(s float64) float64 {
	return math.Round(s*1000) / 1000
}
