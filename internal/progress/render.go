package progress

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// status is what one drawing of the line shows.
type status struct {
	label   string
	unit    Unit
	cur     int64
	total   int64 // 0: unknown
	elapsed time.Duration
	frame   int // spinner frame
}

// Bar geometry, in columns.
const (
	minBar = 10
	maxBar = 40
)

// spinner is the frames of the line when the total is unknown.
const spinner = `|/-\`

// render returns the line for s, at most width-1 columns wide (the last
// column is left free: writing into it wraps on some terminals).
//
//	import [=================>          ]  61%  16.3/26.8 MiB  5.4 MiB/s  0:03
//	dump | 120,000 events  95,012/s  0:01
func render(s status, width int) string {
	if width < 2 {
		width = 80
	}
	counts := count(s.cur, s.unit)
	if s.total > 0 {
		cur := min(s.cur, s.total)
		counts = countOf(cur, s.total, s.unit)
	}
	tail := "  " + counts
	if r := rate(s.cur, s.elapsed, s.unit); r != "" {
		tail += "  " + r
	}
	tail += "  " + clock(s.elapsed)
	head := s.label
	if s.total <= 0 {
		return fit(head+" "+string(spinner[s.frame%len(spinner)])+" "+strings.TrimPrefix(tail, "  "), width-1)
	}
	cur := min(s.cur, s.total)
	pct := fmt.Sprintf(" %3d%%", cur*100/s.total)
	head = shorten(head, width-1-3-len(pct)-len(tail)-minBar)
	room := width - 1 - utf8.RuneCountInString(head) - 3 - len(pct) - len(tail)
	return fit(head+" "+bar(cur, s.total, min(max(room, minBar), maxBar))+pct+tail, width-1)
}

// bar draws cur/total as [=====>    ] with n columns inside the brackets.
func bar(cur, total int64, n int) string {
	filled := int(cur * int64(n) / total)
	switch {
	case filled >= n:
		return "[" + strings.Repeat("=", n) + "]"
	case filled == 0:
		return "[" + strings.Repeat(" ", n) + "]"
	}
	return "[" + strings.Repeat("=", filled-1) + ">" + strings.Repeat(" ", n-filled) + "]"
}

// minLabel is the shortest label that shorten makes: below it, the line
// is cut at the end instead.
const minLabel = 12

// shorten cuts a label longer than n columns in the middle: it keeps the
// first word (the operation) and the end (the object or path being read),
// with an ellipsis between.
func shorten(label string, n int) string {
	r := []rune(label)
	if len(r) <= n || n < minLabel {
		return label
	}
	keep := 0
	if i := strings.IndexByte(label, ' '); i >= 0 {
		keep = utf8.RuneCountInString(label[:i+1])
	}
	if keep > n/2 {
		keep = 0
	}
	return string(r[:keep]) + "…" + string(r[len(r)-(n-keep-1):])
}

// fit cuts s to at most n columns.
func fit(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:max(n, 0)])
}

// count renders n of unit: "1,234 events", "5.0 MiB".
func count(n int64, u Unit) string {
	if u == Bytes {
		return bytesString(n)
	}
	if u == "" {
		return grouped(n)
	}
	return grouped(n) + " " + string(u)
}

// countOf renders n of total: "1,234/5,000 events", "1.2/5.0 MiB".
func countOf(n, total int64, u Unit) string {
	if u == Bytes {
		scale, suffix := byteScale(total)
		if scale == 1 {
			return fmt.Sprintf("%d/%d B", n, total)
		}
		return fmt.Sprintf("%.1f/%.1f %s", float64(n)/scale, float64(total)/scale, suffix)
	}
	s := grouped(n) + "/" + grouped(total)
	if u != "" {
		s += " " + string(u)
	}
	return s
}

// rate renders the average rate of the phase, or "" while it is too early
// to tell (under half a second) or the unit is not counted per second.
func rate(n int64, elapsed time.Duration, u Unit) string {
	if elapsed < 500*time.Millisecond || (u != Bytes && u != Events) {
		return ""
	}
	per := float64(n) / elapsed.Seconds()
	if u == Bytes {
		return bytesString(int64(per)) + "/s"
	}
	return grouped(int64(per)) + "/s"
}

// clock renders d as m:ss (h:mm:ss past an hour).
func clock(d time.Duration) string {
	s := int64(d / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// byteScale is the IEC unit that suits n bytes.
func byteScale(n int64) (float64, string) {
	scale, exp := 1.0, -1
	for v := n; v >= 1024 && exp < 5; v /= 1024 {
		scale *= 1024
		exp++
	}
	if exp < 0 {
		return 1, "B"
	}
	return scale, string("KMGTPE"[exp]) + "iB"
}

// bytesString renders n bytes as "512 B", "1.5 MiB".
func bytesString(n int64) string {
	scale, suffix := byteScale(n)
	if scale == 1 {
		return strconv.FormatInt(n, 10) + " B"
	}
	return fmt.Sprintf("%.1f %s", float64(n)/scale, suffix)
}

// grouped renders n with thousands separators: 1234567 → "1,234,567".
func grouped(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
