package quote

import "testing"

func TestLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain: vertex src/0", "plain: vertex src/0"},
		{"é and 漢 stay", "é and 漢 stay"},
		{"esc \x1b[2J here", `esc \x1b[2J here`},
		{"two\nlines\r", `two\nlines\r`},
		{"bad \xff byte", `bad \xff byte`},
		{"sep \u2028 and \u202e", `sep \u2028 and \u202e`},
		{"c1 \u009b", `c1 \u009b`},
	} {
		if got := Line(tc.in); got != tc.want {
			t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestName(t *testing.T) {
	if got := Name("org.apache.flink.X"); got != "org.apache.flink.X" {
		t.Errorf("Name = %q", got)
	}
	if got, want := Name("a\x1bb"), `"a\x1bb"`; got != want {
		t.Errorf("Name = %s, want %s", got, want)
	}
}
