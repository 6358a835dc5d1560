package golden

import (
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	tests := []struct {
		name, want, got, diff string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"changed line", "a\nb\nc\nd\ne\nf\ng\n", "a\nb\nc\nD\ne\nf\ng\n",
			"@@ want line 2, got line 2 @@\n b\n c\n-d\n+D\n e\n f\n"},
		{"added line", "a\n", "a\nb\n", "@@ want line 1, got line 1 @@\n a\n+b\n"},
		{"removed line", "a\nb\n", "b\n", "@@ want line 1, got line 1 @@\n-a\n b\n"},
		{"missing newline", "a\n", "a", "@@ want line 1, got line 1 @@\n-a\n+a (no newline at end)\n"},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "x\n2\n3\n4\n5\n6\n7\n8\ny\n",
			"@@ want line 1, got line 1 @@\n-1\n+x\n 2\n 3\n@@ want line 7, got line 7 @@\n 7\n 8\n-9\n+y\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Diff(tt.want, tt.got); got != tt.diff {
				t.Errorf("Diff =\n%s\nwant\n%s", got, tt.diff)
			}
		})
	}
}

func TestDiff_Long(t *testing.T) {
	a := strings.Repeat("x\n", 3000)
	b := a[:len(a)-2] + "y\n"
	if got, want := Diff(a, b), "@@ line 3000 @@\n-x\n+y\n"; got != want {
		t.Errorf("Diff = %q, want %q", got, want)
	}
}
