package progress

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestRender(t *testing.T) {
	cases := []struct {
		name  string
		s     status
		width int
		want  string
	}{
		{"empty bar", status{label: "dump", unit: Events, cur: 0, total: 200, elapsed: 300 * time.Millisecond}, 60,
			"dump [                           ]   0%  0/200 events  0:00"},
		{"half", status{label: "dump", unit: Events, cur: 100, total: 200, elapsed: 2 * time.Second}, 60,
			"dump [========>          ]  50%  100/200 events  50/s  0:02"},
		{"full", status{label: "dump", unit: Events, cur: 200, total: 200, elapsed: 2 * time.Second}, 60,
			"dump [==================] 100%  200/200 events  100/s  0:02"},
		{"past the total", status{label: "dump", unit: Events, cur: 250, total: 200, elapsed: 2 * time.Second}, 60,
			"dump [==================] 100%  200/200 events  125/s  0:02"},
		{"bytes", status{label: "import: checking", unit: Bytes, cur: 3 << 20, total: 12 << 20, elapsed: 3 * time.Second}, 80,
			"import: checking [=====>                  ]  25%  3.0/12.0 MiB  1.0 MiB/s  0:03"},
		{"subtasks: no rate", status{label: "run wordcount", unit: Subtasks, cur: 3, total: 12, elapsed: 61 * time.Second}, 70,
			"run wordcount [=====>                     ]  25%  3/12 subtasks  1:01"},
		{"spinner", status{label: "dump", unit: Events, cur: 1234567, elapsed: 10 * time.Second, frame: 1}, 80,
			"dump / 1,234,567 events  123,456/s  0:10"},
		{"spinner bytes", status{label: "spool stdin", unit: Bytes, cur: 2048, elapsed: time.Hour + 2*time.Second, frame: 3}, 80,
			`spool stdin \ 2.0 KiB  0 B/s  1:00:02`},
		{"narrow: cut", status{label: "validate testdata/logs/healthy.jsonl", unit: Events, cur: 5, total: 10, elapsed: time.Second}, 40,
			"validate testdata/logs/healthy.jsonl [="},
		{"long label: its end is kept", status{label: "validate s3://ops-logs?prefix=jobs/2026/12/02/wordcount-nightly/", unit: Events, cur: 5, total: 10, elapsed: time.Second}, 80,
			"validate …26/12/02/wordcount-nightly/ [====>     ]  50%  5/10 events  5/s  0:01"},
		{"no width: 80", status{label: "x", unit: Cases, cur: 1, total: 4, elapsed: time.Second}, 0,
			"x [=========>                              ]  25%  1/4 cases  0:01"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := render(tc.s, tc.width)
			if got != tc.want {
				t.Fatalf("render =\n%q\nwant\n%q", got, tc.want)
			}
			width := tc.width
			if width == 0 {
				width = 80
			}
			if n := utf8.RuneCountInString(got); n > width-1 {
				t.Fatalf("render is %d columns, want at most %d", n, width-1)
			}
		})
	}
}

func TestRender_FitsEveryWidth(t *testing.T) {
	for _, label := range []string{"import: writing", "validate 3/12 file:///var/lib/jobevent?prefix=jobs/2026/12/02/wordcount/"} {
		s := status{label: label, unit: Events, cur: 123456, total: 200000, elapsed: 3 * time.Second}
		for width := 2; width <= 200; width++ {
			got := render(s, width)
			if n := utf8.RuneCountInString(got); n > width-1 {
				t.Fatalf("width %d: render is %d columns: %q", width, n, got)
			}
			if width >= 80 && (!strings.Contains(got, "123,456/200,000 events") || !strings.Contains(got, "[")) {
				t.Fatalf("width %d: render = %q, want the bar and the counts", width, got)
			}
		}
	}
}

func TestGrouped(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1000: "-1,000"} {
		if got := grouped(n); got != want {
			t.Errorf("grouped(%d) = %q, want %q", n, got, want)
		}
	}
}
