package flink

import (
	"fmt"

	"github.com/jobevent/jobevent/pkg/flink/javaser"
)

// initializedEvent reads an ExecutionJobVertexInitializedEvent: the
// vertex, its parallelism and, per consumed dataset, the inputs of each
// subtask in the 1.20 form (one partition range and one subpartition range)
// or the 2.x form (consumedSubpartitionGroups, a map of ranges).
func initializedEvent(v javaser.Value) (*JobVertexInitialized, error) {
	e, err := asObj(v, classInitialized, shortName(classInitialized))
	if err != nil {
		return nil, err
	}
	ev := &JobVertexInitialized{}
	if ev.JobVertexID, err = e.id("jobVertexId"); err != nil {
		return nil, err
	}
	if ev.Parallelism, err = e.int32("parallelism"); err != nil {
		return nil, err
	}
	entries, p, err := e.mapEntries("jobVertexInputInfos")
	if err != nil {
		return nil, err
	}
	ev.Inputs = make([]VertexInput, 0, len(entries))
	for i, en := range entries {
		in, err := vertexInput(en, fmt.Sprintf("%s[%d]", p, i))
		if err != nil {
			return nil, err
		}
		ev.Inputs = append(ev.Inputs, in)
	}
	return ev, nil
}

func vertexInput(en javaser.Entry, path string) (VertexInput, error) {
	var in VertexInput
	var err error
	if in.DataSetID, err = abstractID(en.Key, path+".key"); err != nil {
		return in, err
	}
	info, err := asObj(en.Value, classJobVertexInput, path+".value")
	if err != nil {
		return in, err
	}
	elems, p, err := info.list("executionVertexInputInfos")
	if err != nil {
		return in, err
	}
	in.Subtasks = make([]SubtaskInput, 0, len(elems))
	for i, el := range elems {
		o, err := asObj(el, classVertexInput, fmt.Sprintf("%s[%d]", p, i))
		if err != nil {
			return in, err
		}
		s, err := subtaskInput(o)
		if err != nil {
			return in, err
		}
		in.Subtasks = append(in.Subtasks, s)
	}
	return in, nil
}

func subtaskInput(o obj) (SubtaskInput, error) {
	var s SubtaskInput
	var err error
	if s.SubtaskIndex, err = o.int32("subtaskIndex"); err != nil {
		return s, err
	}
	if _, ok := o.o.Field("partitionIndexRange"); ok || o.o == nil { // Flink 1.20 (or null)
		var g ConsumedGroup
		if g.Partitions, err = o.indexRange("partitionIndexRange"); err != nil {
			return s, err
		}
		if g.Subpartitions, err = o.indexRange("subpartitionIndexRange"); err != nil {
			return s, err
		}
		s.Groups = []ConsumedGroup{g}
		return s, nil
	}
	entries, p, err := o.mapEntries("consumedSubpartitionGroups") // Flink 2.x
	if err != nil {
		return s, err
	}
	if entries == nil {
		return s, fmt.Errorf("%s is null", p)
	}
	s.Groups = make([]ConsumedGroup, 0, len(entries))
	for i, en := range entries {
		var g ConsumedGroup
		ep := fmt.Sprintf("%s[%d]", p, i)
		if g.Partitions, err = indexRange(en.Key, ep+".key"); err != nil {
			return s, err
		}
		if g.Subpartitions, err = indexRange(en.Value, ep+".value"); err != nil {
			return s, err
		}
		s.Groups = append(s.Groups, g)
	}
	return s, nil
}

func (b obj) indexRange(name string) (IndexRange, error) {
	v, p, err := b.value(name)
	if err != nil {
		return IndexRange{}, err
	}
	return indexRange(v, p.String())
}

func indexRange(v javaser.Value, path string) (IndexRange, error) {
	o, err := asObj(v, classIndexRange, path)
	if err != nil {
		return IndexRange{}, err
	}
	var r IndexRange
	if r.Start, err = o.int32("startIndex"); err != nil {
		return r, err
	}
	r.End, err = o.int32("endIndex")
	return r, err
}
