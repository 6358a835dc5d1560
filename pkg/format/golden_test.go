package format

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/jobevent/jobevent/internal/golden"
)

// Golden files: a canonical JSONL log and the segment the current schema
// version writes for it. Later versions must keep reading the segments of
// every earlier one (segmentFixtures, format stability) and keep writing
// the same JSONL.
const (
	goldenJSONL   = "testdata/sample.jsonl"
	goldenSegment = "testdata/sample-v" + SchemaVersion + ".parquet"
)

func TestGolden_JSONL(t *testing.T) {
	golden.Compare(t, goldenJSONL, encodeJSON(sampleEvents()))
}

func TestGolden_Segment(t *testing.T) {
	if golden.Updating() {
		golden.Write(t, goldenSegment, encode(t, sampleEvents()))
	}
	data, err := os.ReadFile(goldenSegment)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeAll(data)
	if err != nil {
		t.Fatalf("golden segment: %v", err)
	}
	jsonl, err := os.ReadFile(goldenJSONL)
	if err != nil {
		t.Fatal(err)
	}
	want, err := decodeJSONL(jsonl)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("golden segment decodes to other events than %s", goldenJSONL)
	}
}

// TestSeedCorpus writes (with -update) and checks the committed seed
// corpus: real segments, a torn one and JSONL logs, in go's corpus format.
func TestSeedCorpus(t *testing.T) {
	valid := encode(t, sampleEvents())
	jsonl := encodeJSON(sampleEvents())
	seeds := map[string][]byte{
		"FuzzOpenSegment/sample":         valid,
		"FuzzOpenSegment/realistic":      encode(t, realisticEvents(200, 9)),
		"FuzzOpenSegment/torn":           valid[:len(valid)*2/3],
		"FuzzJSONReader/sample":          jsonl,
		"FuzzJSONReader/handwritten":     []byte(handwritten),
		"FuzzSegmentRoundTrip/sample":    jsonl,
		"FuzzSegmentRoundTrip/realistic": encodeJSON(realisticEvents(60, 4)),
	}
	for name, data := range seeds {
		path := filepath.Join("testdata", "fuzz", name)
		if golden.Updating() {
			golden.Write(t, path, corpusFile(data))
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("seed %s: %v (rerun with -update)", name, err)
		}
		if !bytes.HasPrefix(got, []byte("go test fuzz v1\n[]byte(")) {
			t.Errorf("seed %s is not in go's corpus format", name)
		}
	}
}

const handwritten = `{"kind":"job_submitted","job":"wc","graph":{"vertices":[{"id":"src","operator":"numbers","parallelism":2,"coordinator":"batch_snapshot"},{"id":"sink","operator":"sink"}],"edges":[{"from":"src","to":"sink","pattern":"pointwise"}]}}
{"kind":"master_started","master":"127.0.0.1:7070"}
{"kind":"vertex_initialized","vertex":"src","parallelism":2,"time":"2026-12-02T10:00:00Z"}
{"kind":"subtask_started","vertex":"src","subtask":0,"worker":"w1"}
{"kind":"subtask_finished","vertex":"src","subtask":0,"worker":"w1","records_out":10,"partitions":[{"consumer":"sink","bytes":80,"records":10}]}
{"kind":"snapshot","coordinators":{"src":"c3BsaXQtMQ=="}}
{"kind":"master_started","master":"127.0.0.1:7071","recovering":true}
{"kind":"subtasks_reset","subtasks":[{"vertex":"src","subtask":1}],"reason":"recovery"}
{"kind":"job_finished","status":"finished"}
`

func corpusFile(data []byte) []byte {
	return fmt.Appendf(nil, "go test fuzz v1\n[]byte(%s)\n", strconv.Quote(string(data)))
}
