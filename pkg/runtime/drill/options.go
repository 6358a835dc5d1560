package drill

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/jobevent/jobevent/pkg/replay"
	"github.com/jobevent/jobevent/pkg/runtime"
)

// Fault is one kind of failure a drill injects at a crash point. The
// string values are the names --faults takes and the JSON writes.
type Fault string

// The faults. Each one starts with the master dying right after event k is
// durable (runtime.Options.CrashAfterSeq).
const (
	// FaultMaster: only the master dies; every worker keeps its
	// partitions and reports them.
	FaultMaster Fault = "master"
	// FaultWorker: one worker's partitions are lost too (its partition
	// directory is deleted before the resume); the dry run is told
	// --lost-worker. The worker is the one holding the most recorded
	// partitions at the crash point (ties: the lowest id).
	FaultWorker Fault = "worker"
	// FaultTornTail: the newest segment is truncated to half its size
	// before the resume, as an interrupted upload leaves it; the dry run
	// reads the torn log, as the master will.
	FaultTornTail Fault = "torn-tail"
	// FaultSlowWorkers: no worker reports its partitions within
	// previous-worker-recovery-timeout (shortened for the drill); the
	// dry run is told --no-workers.
	FaultSlowWorkers Fault = "slow-workers"
	// FaultDouble: the master dies again during recovery, 1 to 3 events
	// into the new epoch (1 + k mod 3), then a second master resumes.
	FaultDouble Fault = "double"
)

// Faults returns every fault, in the order drills run and report them.
func Faults() []Fault {
	return []Fault{FaultMaster, FaultWorker, FaultTornTail, FaultSlowWorkers, FaultDouble}
}

// ErrUnknownFault is wrapped by ParseFaults for a name that is not a fault.
var ErrUnknownFault = errors.New("jobevent/drill: unknown fault")

// ParseFaults parses a comma-separated list of fault names ("master,double"),
// or "all". Duplicates are dropped; the result is in Faults() order.
func ParseFaults(s string) ([]Fault, error) {
	want := map[Fault]bool{}
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		switch {
		case name == "":
			continue
		case name == "all":
			for _, f := range Faults() {
				want[f] = true
			}
			continue
		}
		f := Fault(name)
		if !f.valid() {
			return nil, fmt.Errorf("%w %q (want all or a list of %s)", ErrUnknownFault, name, faultNames())
		}
		want[f] = true
	}
	if len(want) == 0 {
		return nil, fmt.Errorf("%w: empty list (want all or a list of %s)", ErrUnknownFault, faultNames())
	}
	var out []Fault
	for _, f := range Faults() {
		if want[f] {
			out = append(out, f)
		}
	}
	return out, nil
}

func (f Fault) valid() bool {
	for _, g := range Faults() {
		if f == g {
			return true
		}
	}
	return false
}

func faultNames() string {
	var names []string
	for _, f := range Faults() {
		names = append(names, string(f))
	}
	return strings.Join(names, ", ")
}

// Planner computes a recovery plan from a folded log, the partitions
// available and the job's options read from the log's job.yaml.
// replay.PlanRecovery, the function the recovering master calls, is the
// default; tests inject broken planners to prove that a drill catches them.
type Planner func(*replay.State, replay.Availability, replay.PlanOptions) *replay.RecoveryPlan

// DefaultPoints is how many evenly spaced crash points a drill takes when
// Options.Points is not set by the command line.
const DefaultPoints = 20

// Options configures Run. The zero value drills every seq of the clean
// log with every fault, seed 0, two cases at a time.
type Options struct {
	// Points is how many evenly spaced crash points to take (from seq 1
	// to the last), besides the vertex boundaries; 0 or less means every
	// seq of the clean log.
	Points int
	// At, when set, lists the crash points instead of Points: seqs of the
	// clean log (others are dropped).
	At []int64
	// Faults lists the faults to inject; nil means Faults().
	Faults []Fault
	// Seed seeds every run of the drill (runtime.Options.Seed).
	Seed int64
	// Parallel bounds how many cases run at once (default 2).
	Parallel int
	// Workers is the number of in-process workers of each run; 0 means
	// the runtime's default.
	Workers int
	// Dir is the directory the spec's relative input paths resolve
	// against, as for `jobevent run` (default: the working directory).
	Dir string
	// TempDir is where the drill's scratch directory is made (default:
	// os.TempDir()).
	TempDir string
	// Keep is where failing cases are copied, each to
	// <Keep>/<job>-<point>-<fault>/ with a repro.sh; empty means they stay
	// in the scratch directory, which is then kept (Result.Kept names it).
	Keep string
	// SpecPath is the path of the spec file, for reproduction commands; a
	// relative one is resolved against Dir (default: the spec's File).
	SpecPath string
	// Planner computes the predictions (default replay.PlanRecovery).
	Planner Planner
	// Stderr receives the runtime's warnings of the clean run; each
	// case's are kept with the case when it fails (default: discarded).
	Stderr io.Writer
	// Progress, when set, is called after each case with the number of
	// cases judged and the total, from one goroutine at a time.
	Progress func(done, total int)
}

// workerRecoveryTimeout is previous-worker-recovery-timeout in the
// slow-workers fault: short, so that a master that waits does not hold
// the drill up.
const workerRecoveryTimeout = 20 * time.Millisecond

// flushInterval replaces write-buffer-flush-interval in every run of a
// drill, so that segment boundaries never depend on the wall clock.
const flushInterval = time.Hour

func (o *Options) defaults() {
	if o.Faults == nil {
		o.Faults = Faults()
	}
	if o.Parallel <= 0 {
		o.Parallel = 2
	}
	if o.Planner == nil {
		o.Planner = replay.PlanRecovery
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
}

// settings returns the runtime.Options.Settings hook of a run with fault f.
func settings(f Fault) func(*runtime.Settings) {
	return func(s *runtime.Settings) {
		s.WriteBufferFlushInterval = flushInterval
		if f == FaultSlowWorkers {
			s.WorkerRecoveryTimeout = workerRecoveryTimeout
		}
	}
}
