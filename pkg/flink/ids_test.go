package flink

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestID_String(t *testing.T) {
	jv := ID{Lower: -0x3333333333333333, Upper: 0x4444444444444444}
	v := ExecutionVertexID{JobVertexID: jv, SubtaskIndex: 3}
	a := ExecutionAttemptID{ExecutionGraphID: ID{Lower: 1, Upper: -1}, Vertex: v, AttemptNumber: 2}
	p := PartitionID{DataSetID: ID{Lower: 0xa, Upper: 0xb}, PartitionNum: 7}
	for _, tt := range []struct{ got, want string }{
		{jv.String(), "cccccccccccccccd4444444444444444"},
		{v.String(), "cccccccccccccccd4444444444444444_3"},
		{a.String(), "0000000000000001ffffffffffffffff_cccccccccccccccd4444444444444444_3_2"},
		{p.String(), "000000000000000a000000000000000b#7"},
	} {
		if tt.got != tt.want {
			t.Errorf("got %s, want %s", tt.got, tt.want)
		}
	}
	b, err := json.Marshal(VertexReset{Vertices: []ExecutionVertexID{v}})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"vertices":["cccccccccccccccd4444444444444444_3"]}`; string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
	b, err = json.Marshal(&VertexFinished{AttemptID: a, IOMetrics: IOMetrics{ResultPartitionBytes: []PartitionBytes{{Partition: p, SubpartitionBytes: []int64{1}}}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"attempt_id":"` + a.String() + `"`, `"partition":"000000000000000a000000000000000b#7"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON %s lacks %s", b, want)
		}
	}
}
