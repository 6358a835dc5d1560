package format

// field identifies one kind-specific field of an event. The names and the
// per-kind orders below are part of the format (docs/format.md): canonical
// JSONL writes a kind's fields in exactly this order.
type field uint8

const (
	fieldGraph field = iota
	fieldMaster
	fieldRecovering
	fieldVertex
	fieldSubtask
	fieldParallelism
	fieldAttempt
	fieldWorker
	fieldRecordsIn
	fieldRecordsOut
	fieldBytesIn
	fieldBytesOut
	fieldPartitions
	fieldError
	fieldSubtasks
	fieldReason
	fieldCoordinators
	fieldStatus
	numFields
)

// fieldNames are the snake_case names of the kind-specific fields.
var fieldNames = [numFields]string{
	fieldGraph:        "graph",
	fieldMaster:       "master",
	fieldRecovering:   "recovering",
	fieldVertex:       "vertex",
	fieldSubtask:      "subtask",
	fieldParallelism:  "parallelism",
	fieldAttempt:      "attempt",
	fieldWorker:       "worker",
	fieldRecordsIn:    "records_in",
	fieldRecordsOut:   "records_out",
	fieldBytesIn:      "bytes_in",
	fieldBytesOut:     "bytes_out",
	fieldPartitions:   "partitions",
	fieldError:        "error",
	fieldSubtasks:     "subtasks",
	fieldReason:       "reason",
	fieldCoordinators: "coordinators",
	fieldStatus:       "status",
}

func (f field) String() string { return fieldNames[f] }

// fieldSet is a bit set of fields.
type fieldSet uint32

func (s fieldSet) has(f field) bool { return s&(1<<f) != 0 }

func setOf(fs ...field) fieldSet {
	var s fieldSet
	for _, f := range fs {
		s |= 1 << f
	}
	return s
}

// kindFields lists each kind's fields in canonical order.
var kindFields = map[Kind][]field{
	KindJobSubmitted:      {fieldGraph},
	KindMasterStarted:     {fieldMaster, fieldRecovering},
	KindVertexInitialized: {fieldVertex, fieldParallelism},
	KindSubtaskStarted:    {fieldVertex, fieldSubtask, fieldAttempt, fieldWorker},
	KindSubtaskFinished: {fieldVertex, fieldSubtask, fieldAttempt, fieldWorker,
		fieldRecordsIn, fieldRecordsOut, fieldBytesIn, fieldBytesOut, fieldPartitions},
	KindSubtaskFailed: {fieldVertex, fieldSubtask, fieldAttempt, fieldWorker, fieldError},
	KindSubtasksReset: {fieldSubtasks, fieldReason},
	KindSnapshot:      {fieldCoordinators},
	KindJobFinished:   {fieldStatus, fieldError},
}

// kindFieldSets holds kindFields as bit sets.
var kindFieldSets = func() map[Kind]fieldSet {
	m := make(map[Kind]fieldSet, len(kindFields))
	for k, fs := range kindFields {
		m[k] = setOf(fs...)
	}
	return m
}()

// fieldSet returns the fields of k, and false for an unknown kind. It is a
// switch rather than a map lookup because encoders call it for every event.
func (k Kind) fieldSet() (fieldSet, bool) {
	switch k {
	case KindJobSubmitted:
		return setJobSubmitted, true
	case KindMasterStarted:
		return setMasterStarted, true
	case KindVertexInitialized:
		return setVertexInitialized, true
	case KindSubtaskStarted:
		return setSubtaskStarted, true
	case KindSubtaskFinished:
		return setSubtaskFinished, true
	case KindSubtaskFailed:
		return setSubtaskFailed, true
	case KindSubtasksReset:
		return setSubtasksReset, true
	case KindSnapshot:
		return setSnapshot, true
	case KindJobFinished:
		return setJobFinished, true
	}
	return 0, false
}

var (
	setJobSubmitted      = setOf(kindFields[KindJobSubmitted]...)
	setMasterStarted     = setOf(kindFields[KindMasterStarted]...)
	setVertexInitialized = setOf(kindFields[KindVertexInitialized]...)
	setSubtaskStarted    = setOf(kindFields[KindSubtaskStarted]...)
	setSubtaskFinished   = setOf(kindFields[KindSubtaskFinished]...)
	setSubtaskFailed     = setOf(kindFields[KindSubtaskFailed]...)
	setSubtasksReset     = setOf(kindFields[KindSubtasksReset]...)
	setSnapshot          = setOf(kindFields[KindSnapshot]...)
	setJobFinished       = setOf(kindFields[KindJobFinished]...)
)

// hasField reports whether f belongs to kind k.
func (k Kind) hasField(f field) bool { return kindFieldSets[k].has(f) }

// Fields returns the names of the kind-specific fields of k in canonical
// order, or nil for an unknown kind. The result is a fresh slice.
func (k Kind) Fields() []string {
	fs, ok := kindFields[k]
	if !ok {
		return nil
	}
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = fieldNames[f]
	}
	return names
}

// HasField reports whether the field named name (snake_case, as in canonical
// JSONL) belongs to kind k. The common fields seq, time, epoch, kind and job
// belong to every kind.
func (k Kind) HasField(name string) bool {
	switch name {
	case "seq", "time", "epoch", "kind", "job":
		return k.Valid()
	}
	for _, f := range kindFields[k] {
		if fieldNames[f] == name {
			return true
		}
	}
	return false
}
