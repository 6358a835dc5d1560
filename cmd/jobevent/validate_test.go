package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// decodeFindings decodes validate --format json.
func decodeFindings(t *testing.T, out string) []logFinding {
	t.Helper()
	var fs []logFinding
	if err := json.Unmarshal([]byte(out), &fs); err != nil {
		t.Fatalf("findings %q: %v", out, err)
	}
	return fs
}

func TestValidate_GoodLogs(t *testing.T) {
	for _, name := range goodLogs {
		r := runCLI(t, "validate", logPath(name), "--strict").wantCode(t, 0)
		if r.stdout != "1 log: no findings\n" {
			t.Errorf("%s: stdout = %q", name, r.stdout)
		}
		j := runCLI(t, "validate", "--format", "json", logPath(name)).wantCode(t, 0)
		if strings.TrimSpace(j.stdout) != "[]" {
			t.Errorf("%s: json = %q, want []", name, j.stdout)
		}
	}
	args := []string{"validate"}
	for _, name := range goodLogs {
		args = append(args, logPath(name))
	}
	runCLI(t, args...).wantCode(t, 0)
}

func TestValidate_Golden(t *testing.T) {
	tests := []struct {
		golden string
		code   int
		args   []string
	}{
		{"validate-gap.table", 1, []string{"validate", logPath("gap.jsonl")}},
		{"validate-gap.github", 1, []string{"validate", logPath("gap.jsonl"), "--format", "github"}},
		{"validate-zombie.json", 0, []string{"validate", logPath("zombie.jsonl"), "--format", "json"}},
		{"validate-bad-syntax.json", 1, []string{"validate", logPath("bad-syntax.jsonl"), "--format", "json"}},
		{"validate-several.table", 1, []string{"validate", logPath("healthy.jsonl"), logPath("gap.jsonl"), logPath("zombie.jsonl")}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			r := runCLI(t, tt.args...).wantCode(t, tt.code)
			r.golden(t, tt.golden)
		})
	}
}

func TestValidate_Severity(t *testing.T) {
	fs := decodeFindings(t, runCLI(t, "validate", logPath("gap.jsonl"), "--format", "json").wantCode(t, 1).stdout)
	if len(fs) == 0 || fs[0].Severity != "error" || fs[0].Log != logPath("gap.jsonl") {
		t.Errorf("gap.jsonl findings = %+v, want an error of that log first", fs)
	}
	// Fenced rows are a warning: exit 0, and 1 with --strict.
	fs = decodeFindings(t, runCLI(t, "validate", logPath("zombie.jsonl"), "--format", "json").wantCode(t, 0).stdout)
	if len(fs) == 0 {
		t.Fatal("zombie.jsonl: no findings, want a warning for its fenced rows")
	}
	for _, f := range fs {
		if f.Severity != "warning" {
			t.Errorf("zombie.jsonl finding %+v, want warnings only", f)
		}
	}
	r := runCLI(t, "validate", logPath("zombie.jsonl"), "--strict")
	r.wantOneLineError(t, 1, "validate: 0 errors")
	if !strings.Contains(r.stdout, "warning") {
		t.Errorf("stdout = %q, want the warning listed", r.stdout)
	}
}

func TestValidate_GitHubAnnotations(t *testing.T) {
	r := runCLI(t, "validate", logPath("gap.jsonl"), "--format", "github").wantCode(t, 1)
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if !strings.HasPrefix(line, "::error file="+logPath("gap.jsonl")+",line=9,title=") && !strings.HasPrefix(line, "::warning file=") {
			t.Errorf("annotation %q, want ::error file=...,line=9,title=RULE::seq N: ...", line)
		}
	}
	// The fenced rows of a JSONL log are located too: the line of the
	// first of them.
	r = runCLI(t, "validate", logPath("zombie.jsonl"), "--format", "github").wantCode(t, 0)
	if want := "::warning file=" + logPath("zombie.jsonl") + ",line=16,title=fenced-write::seq 16: "; !strings.HasPrefix(r.stdout, want) {
		t.Errorf("annotations = %q, want %q...", r.stdout, want)
	}
	// Bytes from the log are escaped: no terminal escape reaches the
	// annotation, and ':' and ',' of a property are encoded.
	bad := filepath.Join(t.TempDir(), "esc,a:b.jsonl")
	in := `{"seq":1,"kind":"job_submitted","job":"j","graph":{"vertices":[{"id":"s\u001b[2Jrc","operator":"x","parallelism":1}],"edges":[]}}` + "\n" +
		`{"seq":2,"kind":"master_started","epoch":1,"master":"m"}` + "\n" +
		`{"seq":3,"kind":"vertex_initialized","epoch":1,"vertex":"s\u001b[2Jrc","parallelism":1}` + "\n" +
		`{"seq":4,"kind":"subtask_finished","epoch":1,"vertex":"s\u001b[2Jrc","subtask":0,"attempt":0,"worker":"w"}` + "\n"
	if err := os.WriteFile(bad, []byte(in), 0o666); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, "validate", bad, "--format", "github").wantCode(t, 1)
	if strings.Contains(r.stdout, "\x1b[") || !strings.Contains(r.stdout, `s\x1b[2Jrc`) || !strings.Contains(r.stdout, "esc%2Ca%3Ab.jsonl,line=4,") {
		t.Errorf("annotations = %q, want the escape quoted, the file's ',' and ':' encoded and line=4", r.stdout)
	}
	if !strings.Contains(r.stdout, "::seq ") {
		t.Errorf("annotations %q carry no seq", r.stdout)
	}
}

func TestValidate_DamagedBucketLogs(t *testing.T) {
	events := readEvents(t, "healthy.jsonl")

	dir := t.TempDir()
	keys := writeSegments(t, dir, events, 10, 20)
	flipByte(t, filepath.Join(dir, filepath.FromSlash(keys[0])))
	fs := decodeFindings(t, runCLI(t, "validate", dir, "--format", "json").wantCode(t, 1).stdout)
	if len(fs) == 0 || fs[len(fs)-1].Severity != "error" || !strings.Contains(fs[len(fs)-1].Key+fs[len(fs)-1].Message, keys[0]) {
		t.Errorf("corrupt segment: findings = %+v, want an error naming %s", fs, keys[0])
	}

	torn := t.TempDir()
	keys = writeSegments(t, torn, events, 10, 20)
	truncate(t, filepath.Join(torn, filepath.FromSlash(keys[2])))
	fs = decodeFindings(t, runCLI(t, "validate", torn, "--format", "json").wantCode(t, 0).stdout)
	if len(fs) != 1 || fs[0].Severity != "warning" {
		t.Errorf("torn tail: findings = %+v, want one warning", fs)
	}
	runCLI(t, "validate", torn, "--strict").wantCode(t, 1)

	runCLI(t, "validate", filepath.Join(t.TempDir(), "none")).wantOneLineError(t, 2, "no event log at")
}

func TestEscapeAnnotation(t *testing.T) {
	if got, want := escapeData("50% done\nnext\r"), "50%25 done%0Anext%0D"; got != want {
		t.Errorf("escapeData = %q, want %q", got, want)
	}
	if got, want := escapeProperty("s3://b?prefix=a,b"), "s3%3A//b?prefix=a%2Cb"; got != want {
		t.Errorf("escapeProperty = %q, want %q", got, want)
	}
}
