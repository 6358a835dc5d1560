package flink

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/jobevent/jobevent/pkg/flink/javaser"
	"github.com/jobevent/jobevent/pkg/format"
)

// HA file name prefixes (FileSystemStateStorageHelper's prefix followed by
// random characters), part of Flink's HA storage layout.
const (
	PrefixJobGraph      = "submittedJobGraph"      // Flink 1.20: a JobGraph
	PrefixExecutionPlan = "submittedExecutionPlan" // Flink 2.x: a StreamGraph (an ExecutionPlan)
)

// maxHAFile bounds the size of an HA plan file ReadHA reads.
const maxHAFile = 256 << 20

// HAInfo is what Flink's HA storage directory says about one job.
type HAInfo struct {
	// Plan holds every job vertex with its 32-hex JobVertexID, name,
	// parallelism and inputs (producer, and on 1.20 the dataset id and
	// distribution pattern), in the form ParsePlan returns.
	Plan *JobPlan
	// Coordinators maps the id of every vertex to its coordinator kind:
	// format.CoordinatorBatchSnapshot or CoordinatorNoBatchSnapshot for a
	// vertex with operator coordinators, derived from their Source classes
	// (SourceKind), format.CoordinatorNone for the others. It is empty when
	// the plan has no ids.
	Coordinators map[string]string
	// Sources maps vertex id to the Source classes of its coordinators.
	Sources map[string][]string
	// Operators maps vertex id to the OperatorIDs (32-hex) of its
	// coordinators, in the order of Sources; "" where unknown.
	Operators map[string][]string
	// Config is the job configuration (e.g. execution.batch.job-recovery.*)
	// as strings.
	Config map[string]string
	// Assumptions names, one each, what is still assumed.
	Assumptions []Assumption
	// Version is "1.20" (a JobGraph) or "2.x" (a StreamGraph).
	Version string
	// Shuffle is the shuffle ShuffleOf derives from Config and the class of
	// the cluster's shuffle master snapshot (2.x, shuffleMaster-snapshot/)
	// or of the snapshots in the job's finished records. The shuffle
	// service is cluster configuration, rarely in the job's: RESTInfo's is
	// the better answer while the job runs.
	Shuffle Shuffle
	// ShuffleSnapshotClass is that snapshot class, "" when none was found.
	ShuffleSnapshotClass string
	// File is the HA file read, relative to the directory.
	File string

	sg *streamGraph // a 2.x StreamGraph
}

// ReadHA finds and reads the HA plan file of job jobID in fsys, an HA
// cluster directory <high-availability.storageDir>/<cluster-id>/ (the
// grandparent of <jobID>/job-events/): submittedJobGraph* (Flink 1.20) or
// submittedExecutionPlan* (2.x), matched by the job id inside it, since
// several jobs share the directory; a file that does not parse is skipped
// when another one matches. jobID "" takes the only plan file there (more
// than one is an error). It returns nil, nil when no file belongs to the
// job.
//
// A 2.x StreamGraph holds no JobVertexIDs: ReadHA derives them as Flink's
// AdaptiveGraphManager does (chaining.go), in the order job vertices
// finished as <jobID>/job-events/ records it; when a derived id is not the
// one the log records, the plan is returned without ids and an Assumption
// says so. ReadHA reads fsys only (callers bound slow buckets through it);
// ctx is checked between files. It is safe for concurrent use.
func ReadHA(ctx context.Context, fsys fs.FS, jobID string) (*HAInfo, error) {
	names, err := haFiles(fsys)
	if err != nil {
		return nil, err
	}
	if jobID == "" && len(names) > 1 {
		return nil, fmt.Errorf("flink ha: %d plan files (%s, ...) and no job id to choose one", len(names), names[0])
	}
	var errs []error
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		data, err := readLimited(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("flink ha %s: %w", name, err)
		}
		info, err := ParseHA(name, data)
		if err != nil {
			errs = append(errs, fmt.Errorf("flink ha %s: %w", name, err))
			continue
		}
		if jobID != "" && info.Plan.JobID != jobID {
			continue
		}
		info.File = name
		if info.sg != nil {
			info.resolve2x(ctx, fsys, jobID)
		}
		if info.ShuffleSnapshotClass == "" {
			info.ShuffleSnapshotClass = clusterShuffleSnapshot(fsys)
		}
		info.Shuffle = ShuffleOf(info.Config, info.ShuffleSnapshotClass)
		info.Plan.fillDataSets()
		return info, nil
	}
	if len(errs) > 0 && jobID == "" {
		return nil, errors.Join(errs...)
	}
	return nil, nil
}

// haFiles lists the plan files of an HA cluster directory, sorted.
func haFiles(fsys fs.FS) ([]string, error) {
	ents, err := fs.ReadDir(fsys, ".")
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("flink ha: %w", err)
	}
	var names []string
	for _, e := range ents {
		n := e.Name()
		if !e.IsDir() && (strings.HasPrefix(n, PrefixJobGraph) || strings.HasPrefix(n, PrefixExecutionPlan)) {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names, nil
}

func readLimited(fsys fs.FS, name string) ([]byte, error) {
	if st, err := fs.Stat(fsys, name); err == nil && st.Size() > maxHAFile {
		return nil, fmt.Errorf("%d bytes, more than an HA plan file holds (%d)", st.Size(), maxHAFile)
	}
	return fs.ReadFile(fsys, name)
}

// ParseHA parses the content of one HA plan file called name: one Java
// serialization stream of a JobGraph or a StreamGraph. The Flink version
// follows the name (submittedJobGraph: 1.20, submittedExecutionPlan: 2.x,
// which stores a JobGraph when one was submitted, a StreamGraph otherwise)
// or, for another name, the class (a StreamGraph is 2.x). The ids of a
// StreamGraph's plan are derived assuming job vertices finish in the order
// they were created; ReadHA uses the order the job's log records. It is
// safe for concurrent use.
func ParseHA(name string, data []byte) (*HAInfo, error) {
	v, err := javaser.DecodeObject(data, nil)
	if err != nil {
		return nil, err
	}
	o, ok := v.(*javaser.Object)
	if !ok {
		return nil, fmt.Errorf("the stream holds %s, not a JobGraph or StreamGraph", describe(v))
	}
	var info *HAInfo
	switch {
	case o.ClassData(classJobGraph) != nil:
		info, err = decodeJobGraph(o)
	case o.ClassData(classStreamGraph) != nil:
		var sg *streamGraph
		if sg, err = decodeStreamGraph(o); err == nil {
			info = &HAInfo{Version: "2.x", Config: sg.config, sg: sg}
			info.build2x(nil)
		}
	default:
		return nil, fmt.Errorf("the stream holds an object of %s, not a JobGraph or StreamGraph", printable(o.Class.Name))
	}
	if err != nil {
		return nil, err
	}
	switch {
	case strings.HasPrefix(name, PrefixExecutionPlan):
		info.Version = "2.x"
	case strings.HasPrefix(name, PrefixJobGraph):
		info.Version = "1.20"
	}
	info.kinds()
	return info, nil
}

// Kinds of Assumption.
const (
	// AssumedSourceKind: a vertex's coordinator kind, from a Source class
	// no table knows and that the log's snapshots do not settle.
	AssumedSourceKind = "source-kind"
	// AssumedVertexIDs: the JobVertexIDs derived from a 2.x StreamGraph.
	AssumedVertexIDs = "vertex-ids"
)

// Assumption is one thing the HA plan leaves assumed.
type Assumption struct {
	// Vertex is the 32-hex id of the vertex it is about, "" when it is
	// about the plan as a whole.
	Vertex string
	// Kind is AssumedSourceKind or AssumedVertexIDs.
	Kind string
	// Text says it in one line, as printed.
	Text string
}

func (a Assumption) String() string { return a.Text }

// kinds fills Coordinators from the Source classes.
func (h *HAInfo) kinds() { h.settleKinds(nil) }

// Settle settles the coordinator kinds that the Source class tables do
// not know with what the job's log says (ReadCoordinatorEvidence), and
// drops the assumptions it settles. The tables win where they know a
// class.
func (h *HAInfo) Settle(ev *CoordinatorEvidence) {
	if ev == nil || len(h.Coordinators) == 0 {
		return // no ids: nothing to match the log's vertices to
	}
	h.settleKinds(ev)
}

// AssumesSourceKind reports whether a coordinator kind is assumed: the
// log's evidence (Settle) may settle it.
func (h *HAInfo) AssumesSourceKind() bool {
	for _, a := range h.Assumptions {
		if a.Kind == AssumedSourceKind {
			return true
		}
	}
	return false
}

// settleKinds fills Coordinators from the Source classes and ev, and puts
// the source-kind assumptions first among the others.
func (h *HAInfo) settleKinds(ev *CoordinatorEvidence) {
	h.Coordinators = map[string]string{}
	ids := make([]string, 0, len(h.Sources))
	for id := range h.Sources {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, n := range h.Plan.Nodes {
		if n.ID != "" {
			h.Coordinators[n.ID] = format.CoordinatorNone
		}
	}
	var assumed []Assumption
	for _, id := range ids {
		kind, why := coordinatorKind(h.Version, h.Sources[id], func(k int) (bool, bool) {
			if k < len(h.Operators[id]) {
				return ev.Supports(id, h.Operators[id][k])
			}
			return false, false
		})
		if kind == "" {
			continue
		}
		h.Coordinators[id] = kind
		if why != "" {
			assumed = append(assumed, Assumption{Vertex: id, Kind: AssumedSourceKind, Text: fmt.Sprintf("vertex %s: %s", vertexLabel(id, h.name(id)), why)})
		}
	}
	for _, a := range h.Assumptions {
		if a.Kind != AssumedSourceKind {
			assumed = append(assumed, a)
		}
	}
	h.Assumptions = assumed
}

func (h *HAInfo) name(id string) string {
	if n := h.Plan.node(id); n != nil {
		return n.Name()
	}
	return ""
}

// clusterShuffleSnapshot returns the class of the shuffle master snapshot
// Flink 2.x keeps for the cluster (shuffleMaster-snapshot/<cluster-id>: an
// int32 length and one Java stream), "" when there is none or it does not
// decode.
func clusterShuffleSnapshot(fsys fs.FS) string {
	ents, err := fs.ReadDir(fsys, "shuffleMaster-snapshot")
	if err != nil {
		return ""
	}
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		data, err := readLimited(fsys, path.Join("shuffleMaster-snapshot", e.Name()))
		if err != nil || len(data) < 4 {
			continue
		}
		if o, ok := decodeClass(data[4:]); ok {
			return o
		}
	}
	return ""
}

// decodeClass returns the class of the object a Java stream holds.
func decodeClass(data []byte) (string, bool) {
	v, err := javaser.DecodeObject(data, nil)
	if o, ok := v.(*javaser.Object); err == nil && ok {
		return o.Class.Name, true
	}
	return "", false
}

// jobEventsDir is where a job's log lies in its HA cluster directory.
func jobEventsDir(jobID string) string { return path.Join(jobID, "job-events") }
