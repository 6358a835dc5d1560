package runtime

import (
	"context"
	"strings"
	"testing"
)

func TestRun_Wordcount(t *testing.T) {
	dir := jobDir(t)
	var stderr strings.Builder
	sum, err := Run(context.Background(), loadJob(t, "wordcount.yaml"), Options{Dir: dir, Stderr: &stderr})
	if err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	if sum.Status != "finished" {
		t.Fatalf("status = %q, want finished", sum.Status)
	}
	out := readOutput(t, dir, "wordcount")
	if len(out) != 2 {
		t.Fatalf("outputs = %v, want 2 part files", keys(out))
	}
	all := out["part-00000"] + out["part-00001"]
	if !strings.Contains(all, "the\t") {
		t.Fatalf("no count for \"the\" in %q", all)
	}
	events := readLog(t, sum.Log)
	for _, e := range events {
		t.Log(eventKey(e))
	}
	t.Log(stderr.String())
}
