package replay_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/jobevent/jobevent/pkg/format"
	"github.com/jobevent/jobevent/pkg/replay"
)

// A two-vertex job whose master died after the source had finished and
// one of two counting subtasks had too.
const crashedLog = `{"seq":1,"epoch":1,"kind":"job_submitted","job":"wc","graph":{"vertices":[{"id":"src","operator":"sequence","parallelism":2,"max_parallelism":2,"coordinator":"batch_snapshot"},{"id":"count","operator":"key_by_count","parallelism":2,"max_parallelism":2,"coordinator":"none"}],"edges":[{"from":"src","to":"count","pattern":"all_to_all"}]}}
{"kind":"master_started","master":"10.0.0.5:7070","recovering":false}
{"kind":"vertex_initialized","vertex":"src","parallelism":2}
{"kind":"subtask_started","vertex":"src","subtask":0,"attempt":0,"worker":"w1"}
{"kind":"subtask_started","vertex":"src","subtask":1,"attempt":0,"worker":"w2"}
{"kind":"subtask_finished","vertex":"src","subtask":0,"attempt":0,"worker":"w1","records_in":0,"records_out":10,"bytes_in":0,"bytes_out":100}
{"kind":"subtask_finished","vertex":"src","subtask":1,"attempt":0,"worker":"w2","records_in":0,"records_out":10,"bytes_in":0,"bytes_out":100}
{"kind":"snapshot","coordinators":{"src":"AA=="}}
{"kind":"vertex_initialized","vertex":"count","parallelism":2}
{"kind":"subtask_started","vertex":"count","subtask":0,"attempt":0,"worker":"w1"}
{"kind":"subtask_started","vertex":"count","subtask":1,"attempt":0,"worker":"w2"}
{"kind":"subtask_finished","vertex":"count","subtask":0,"attempt":0,"worker":"w1","records_in":10,"records_out":3,"bytes_in":100,"bytes_out":30}
`

// events parses the canonical JSONL of crashedLog.
func events() []format.Event {
	var out []format.Event
	r := format.NewJSONReader(strings.NewReader(crashedLog))
	for {
		e, err := r.Next()
		if err != nil {
			return out
		}
		out = append(out, e)
	}
}

// Fold a log into job state, then ask what a recovering master would do
// with every subtask if it started now, every recorded partition
// available. The recovering master calls the same Plan.
func ExamplePlan() {
	s, err := replay.Fold(&replay.SliceSource{Events: events()}, 0)
	if err != nil {
		log.Fatal(err)
	}
	plan := replay.Plan(s, replay.AllRecorded(s))
	for _, st := range plan.Subtasks {
		fmt.Println(st.Vertex, st.Subtask, st.Decision, st.Attempt, st.Reasons)
	}
	fmt.Printf("%+v\n", plan.Summary)
	// Output:
	// src 0 keep 0 []
	// src 1 keep 0 []
	// count 0 keep 0 []
	// count 1 rerun 1 [running_at_failover]
	// {Keep:3 Rerun:1 Run:0}
}

// Lose worker w2: the partition src/1 wrote there is needed by the rerun
// of count/1, so src/1 reruns, and every consumer of what it produces
// reruns with it, the finished count/0 too.
func ExampleBuildAvailability() {
	s, err := replay.Fold(&replay.SliceSource{Events: events()}, 0)
	if err != nil {
		log.Fatal(err)
	}
	avail, err := replay.BuildAvailability(s, replay.AvailabilityOptions{LostWorkers: []string{"w2"}})
	if err != nil {
		log.Fatal(err)
	}
	for _, st := range replay.Plan(s, avail).Subtasks {
		if st.Decision != replay.DecisionKeep {
			fmt.Println(st.Vertex, st.Subtask, st.Decision, st.Reasons)
		}
	}
	// Output:
	// src 1 rerun [partition_lost]
	// count 0 rerun [downstream_of_reset]
	// count 1 rerun [running_at_failover]
}

// Validate checks a log against the event model's rules, as `jobevent
// validate` does in CI: every finding has a stable rule id.
func ExampleValidate() {
	evs := events()
	evs = append(evs[:5], evs[6:]...) // seq 6 lost
	for _, f := range replay.Validate(&replay.SliceSource{Events: evs}, replay.ValidateOptions{}) {
		fmt.Println(f)
	}
	// Output:
	// error seq 7 seq-order: seq 7 after 5, want 6
	// error seq 10 consumer-before-producer: count/0 started before src/0 finished
	// error seq 11 consumer-before-producer: count/1 started before src/0 finished
}
