package report

import (
	"fmt"
	"math"
	"time"
)

// gapPixels is the width a long time without a master is drawn with.
const gapPixels = 88

// gapShare is the share of the wall time above which a time without a
// master is drawn compressed, as a break of gapPixels.
const gapShare = 0.12

// timeScale maps times to x coordinates, piece by piece: the times when a
// master ran are linear, and long gaps between epochs are compressed to
// a fixed-width break, so that a 40-second outage does not squeeze a
// 5-second job into a corner.
type timeScale struct {
	pieces []piece
}

// piece is one linear stretch of a timeScale.
type piece struct {
	t0, t1   time.Time
	px0, px1 float64
	gap      bool // a compressed time without a master
}

// newTimeScale returns the scale of [start, end] onto [x0, x1] with the
// given gaps (ordered, inside the range, not overlapping) compressed.
func newTimeScale(start, end time.Time, x0, x1 float64, gaps [][2]time.Time) *timeScale {
	if !end.After(start) {
		end = start.Add(time.Second)
	}
	var long [][2]time.Time
	var gapTotal time.Duration
	wall := end.Sub(start)
	for _, g := range gaps {
		if d := g[1].Sub(g[0]); float64(d) > gapShare*float64(wall) && !g[0].Before(start) && !g[1].After(end) {
			long = append(long, g)
			gapTotal += d
		}
	}
	active := wall - gapTotal
	width := x1 - x0 - float64(len(long))*gapPixels
	if active <= 0 || width <= 0 {
		return &timeScale{pieces: []piece{{t0: start, t1: end, px0: x0, px1: x1}}}
	}
	perNS := width / float64(active)
	s := &timeScale{}
	t, x := start, x0
	for _, g := range long {
		w := float64(g[0].Sub(t)) * perNS
		s.pieces = append(s.pieces, piece{t0: t, t1: g[0], px0: x, px1: x + w})
		x += w
		s.pieces = append(s.pieces, piece{t0: g[0], t1: g[1], px0: x, px1: x + gapPixels, gap: true})
		t, x = g[1], x+gapPixels
	}
	s.pieces = append(s.pieces, piece{t0: t, t1: end, px0: x, px1: x1})
	return s
}

// x returns the x coordinate of t, clamped to the scale's range.
func (s *timeScale) x(t time.Time) float64 {
	first, last := s.pieces[0], s.pieces[len(s.pieces)-1]
	if !t.After(first.t0) {
		return first.px0
	}
	if !t.Before(last.t1) {
		return last.px1
	}
	for _, p := range s.pieces {
		if t.Before(p.t1) {
			span := p.t1.Sub(p.t0)
			if span <= 0 {
				return p.px0
			}
			return p.px0 + (p.px1-p.px0)*float64(t.Sub(p.t0))/float64(span)
		}
	}
	return last.px1
}

// tick is one labeled time on the axis.
type tick struct {
	x     float64
	label string
}

// ticks returns about n labeled ticks on the linear pieces, at a round
// step counted from start.
func (s *timeScale) ticks(start time.Time, n int, label func(time.Duration) string) []tick {
	var active time.Duration
	var width float64
	for _, p := range s.pieces {
		if !p.gap {
			active += p.t1.Sub(p.t0)
			width += p.px1 - p.px0
		}
	}
	if active <= 0 || width <= 0 {
		return nil
	}
	step := niceStep(active / time.Duration(max(n, 1)))
	minGap := 56.0 // pixels between two labels
	var out []tick
	for _, p := range s.pieces {
		if p.gap {
			continue
		}
		k := int64(math.Ceil(float64(p.t0.Sub(start)) / float64(step)))
		for ; ; k++ {
			t := start.Add(time.Duration(k) * step)
			if t.After(p.t1) {
				break
			}
			x := s.x(t)
			if (len(out) > 0 && x-out[len(out)-1].x < minGap) || s.nearGap(x, minGap/2) {
				continue
			}
			out = append(out, tick{x: x, label: label(time.Duration(k) * step)})
		}
	}
	return out
}

// nearGap reports whether x lies within d pixels of a compressed gap,
// where the gap's own label goes.
func (s *timeScale) nearGap(x, d float64) bool {
	for _, p := range s.pieces {
		if p.gap && x > p.px0-d && x < p.px1+d {
			return true
		}
	}
	return false
}

// niceStep rounds d up to 1, 2 or 5 times a power of ten of nanoseconds
// (or to whole minutes and hours past a minute).
func niceStep(d time.Duration) time.Duration {
	if d <= 0 {
		return time.Second
	}
	for _, m := range []time.Duration{time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute,
		15 * time.Minute, 30 * time.Minute, time.Hour} {
		if d > 30*time.Second && d <= m {
			return m
		}
	}
	if d > time.Hour {
		return time.Duration(math.Ceil(float64(d)/float64(time.Hour))) * time.Hour
	}
	p := math.Pow(10, math.Floor(math.Log10(float64(d))))
	for _, f := range []float64{1, 2, 5, 10} {
		if float64(d) <= f*p {
			return time.Duration(f * p)
		}
	}
	return time.Duration(10 * p)
}

// offsetLabel renders a time since the first event: "+0s", "+250ms",
// "+1.5s", "+2m30s".
func offsetLabel(d time.Duration) string {
	switch {
	case d == 0:
		return "0s"
	case d < time.Second:
		return fmt.Sprintf("+%dms", d.Milliseconds())
	case d < time.Minute:
		return "+" + trimFloat(d.Seconds()) + "s"
	}
	return "+" + d.Round(time.Second).String()
}

// durationLabel renders a duration for people: "404ms", "1.32s", "41s",
// "2m30s".
func durationLabel(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < 10*time.Second:
		return trimFloat(math.Round(d.Seconds()*100)/100) + "s"
	case d < time.Minute:
		return trimFloat(math.Round(d.Seconds()*10)/10) + "s"
	}
	return d.Round(time.Second).String()
}

func trimFloat(f float64) string {
	return fmt.Sprintf("%g", f)
}
