package scenario

import (
	"reflect"
	"strings"
	"testing"
)

const sample = `# What the case shows.
#
# More prose.

log
{"seq":1}
{"seq":2}
----

plan --lost-worker w1 --at 2
----
{
  "job": "etl"
}

# A block with input and no expected output yet.
plan --available
[{"vertex": "a"}]
----
`

func TestParse(t *testing.T) {
	f, err := Parse("sample.txt", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Blocks) != 3 {
		t.Fatalf("blocks = %d, want 3", len(f.Blocks))
	}
	log, plan, avail := f.Blocks[0], f.Blocks[1], f.Blocks[2]
	if log.Cmd != "log" || log.Line != 5 || log.Input != "{\"seq\":1}\n{\"seq\":2}\n" || log.Expected != "" {
		t.Errorf("log block = %+v", log)
	}
	if plan.Cmd != "plan" || plan.Line != 10 || !reflect.DeepEqual(plan.Args, []string{"--lost-worker", "w1", "--at", "2"}) ||
		plan.Input != "" || plan.Expected != "{\n  \"job\": \"etl\"\n}\n" {
		t.Errorf("plan block = %+v", plan)
	}
	if avail.Input != "[{\"vertex\": \"a\"}]\n" || avail.Expected != "" {
		t.Errorf("available block = %+v", avail)
	}
	if f.Block("plan") != plan || f.Block("nothing") != nil {
		t.Error("Block does not return the first block of a command")
	}
	if got := f.Pos(plan); got != "sample.txt:10" {
		t.Errorf("Pos = %q", got)
	}
}

func TestBytes_RoundTrip(t *testing.T) {
	f, err := Parse("sample.txt", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != sample {
		t.Fatalf("Bytes =\n%s\nwant the input back:\n%s", got, sample)
	}
}

func TestBytes_Rewritten(t *testing.T) {
	f, err := Parse("sample.txt", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	f.Blocks[1].Expected = "{}\n"
	f.Blocks[2].Expected = "ok\n"
	got, err := f.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(sample, "{\n  \"job\": \"etl\"\n}\n", "{}\n", 1) + "ok\n"
	if string(got) != want {
		t.Fatalf("Bytes =\n%s\nwant\n%s", got, want)
	}
	for _, bad := range []string{"a\n\nb\n", "\n", "no newline"} {
		f.Blocks[1].Expected = bad
		if _, err := f.Bytes(); err == nil || !strings.Contains(err.Error(), "sample.txt:10: plan") {
			t.Errorf("Expected %q: err = %v, want one naming sample.txt:10", bad, err)
		}
	}
}

func TestParse_NoSeparator(t *testing.T) {
	_, err := Parse("bad.txt", []byte("# prose\n\nlog\n{}\n"))
	if err == nil || err.Error() != `bad.txt:3: log: no "----" line before the end of the file` {
		t.Fatalf("err = %v", err)
	}
}
