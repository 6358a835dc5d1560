package runtime

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jobevent/jobevent/pkg/blob"
)

// Setting keys of a job spec's settings section. They are Flink's keys where
// Flink has one (Flink 1.20 batch job recovery and adaptive batch
// scheduler), so that a Flink operator finds the knob under the name they
// know.
const (
	KeyRecoveryEnabled          = "execution.batch.job-recovery.enabled"
	KeySnapshotMinPause         = "execution.batch.job-recovery.snapshot.min-pause"
	KeyWorkerRecoveryTimeout    = "execution.batch.job-recovery.previous-worker.recovery.timeout"
	KeyWriteBufferSize          = "job-event.store.write-buffer.size"
	KeyWriteBufferFlushInterval = "job-event.store.write-buffer.flush-interval"
	KeyWriteRetryAttempts       = "job-event.store.write-retry.attempts"
	KeyMaxVertices              = "job-event.limits.max-vertices"
	KeyMaxSplits                = "job-event.limits.max-splits"
	KeyMaxSubpartitions         = "job-event.limits.max-subpartitions"
	KeyBytesPerTask             = "execution.batch.adaptive.auto-parallelism.avg-data-volume-per-task"
	KeyDefaultMaxParallelism    = "execution.batch.adaptive.auto-parallelism.max-parallelism"
	KeyRestartStrategy          = "restart-strategy.type"
	KeyRestartAttempts          = "restart-strategy.fixed-delay.attempts"
	KeyRestartDelay             = "restart-strategy.fixed-delay.delay"
	KeyHeartbeatInterval        = "heartbeat.interval"
	KeyHeartbeatTimeout         = "heartbeat.timeout"
)

// Restart strategies (the values of restart-strategy.type).
const (
	RestartFixedDelay = "fixed-delay"
	RestartNone       = "none"
)

// Settings are the tunables of a job. DefaultSettings returns Flink's
// defaults; a spec's settings section overrides them key by key.
type Settings struct {
	// RecoveryEnabled reports whether a recovering master reuses the
	// progress recorded in the log. When false, --resume restarts every
	// subtask in a new epoch (the log is still written: it is the
	// product).
	RecoveryEnabled bool
	// SnapshotMinPause is the least time between two snapshot events of
	// the source coordinators; a snapshot is always taken when a
	// batch_snapshot source vertex finishes.
	SnapshotMinPause time.Duration
	// WorkerRecoveryTimeout is how long a recovering master waits for the
	// workers of the previous epoch to report the partitions they hold.
	WorkerRecoveryTimeout time.Duration
	// WriteBufferSize is the pending event bytes that trigger a flush of
	// the event log.
	WriteBufferSize int
	// WriteBufferFlushInterval is the longest an appended event waits
	// before it is flushed.
	WriteBufferFlushInterval time.Duration
	// WriteRetryAttempts is how many times the master tries to upload a
	// segment before the failure is persistent and the master exits
	// (backoff from 100 ms doubling to 10 s between attempts; an attempt
	// against a bucket that does not answer takes up to 20 s).
	WriteRetryAttempts int
	// BytesPerTask is the input volume one subtask of an auto vertex is
	// given when its parallelism is decided.
	BytesPerTask int64
	// DefaultMaxParallelism bounds auto vertices that name no
	// max_parallelism.
	DefaultMaxParallelism int32
	// RestartStrategy is RestartFixedDelay or RestartNone.
	RestartStrategy string
	// RestartAttempts is how many failovers the fixed-delay strategy
	// allows in one job before the job fails.
	RestartAttempts int
	// RestartDelay is the pause before a failed subtask is deployed again.
	RestartDelay time.Duration
	// HeartbeatInterval is how often a master rewrites its epoch's
	// heartbeat object, and how often workers ping their master.
	HeartbeatInterval time.Duration
	// HeartbeatTimeout is the heartbeat age after which a standby master
	// takes over, and the silence after which a master gives a worker up.
	HeartbeatTimeout time.Duration
	// MaxVertices bounds the vertices of a job.
	MaxVertices int
	// MaxSplits bounds the splits one source declares up front (the
	// sequence source's splits): its assignment state is snapshotted.
	MaxSplits int
	// MaxSubpartitions bounds the slices consumers fetch, summed over the
	// edges: producers × consumers for all_to_all, the larger of the two
	// for pointwise, an auto vertex counted at its max_parallelism.
	MaxSubpartitions int64
}

// DefaultSettings returns the default settings: Flink 1.20's defaults for
// the keys Flink has.
func DefaultSettings() Settings {
	return Settings{
		RecoveryEnabled:          true,
		SnapshotMinPause:         3 * time.Minute,
		WorkerRecoveryTimeout:    30 * time.Second,
		WriteBufferSize:          1 << 20,
		WriteBufferFlushInterval: time.Second,
		WriteRetryAttempts:       10,
		BytesPerTask:             16 << 20,
		DefaultMaxParallelism:    128,
		RestartStrategy:          RestartFixedDelay,
		RestartAttempts:          3,
		RestartDelay:             time.Second,
		HeartbeatInterval:        2 * time.Second,
		HeartbeatTimeout:         10 * time.Second,
		MaxVertices:              10_000,
		MaxSplits:                1 << 16,
		MaxSubpartitions:         1 << 22,
	}
}

// settingKeys lists the known keys, for "unknown setting" messages.
var settingKeys = []string{
	KeyRecoveryEnabled, KeySnapshotMinPause, KeyWorkerRecoveryTimeout,
	KeyWriteBufferSize, KeyWriteBufferFlushInterval, KeyWriteRetryAttempts, KeyBytesPerTask,
	KeyDefaultMaxParallelism, KeyRestartStrategy, KeyRestartAttempts,
	KeyRestartDelay, KeyHeartbeatInterval, KeyHeartbeatTimeout,
	KeyMaxVertices, KeyMaxSplits, KeyMaxSubpartitions,
}

// Set assigns one setting from its textual value, as it appears in a spec
// or on a command line.
func (s *Settings) Set(key, value string) error {
	var err error
	switch key {
	case KeyRecoveryEnabled:
		s.RecoveryEnabled, err = strconv.ParseBool(strings.TrimSpace(value))
		if err != nil {
			err = fmt.Errorf("want true or false, got %q", value)
		}
	case KeySnapshotMinPause:
		s.SnapshotMinPause, err = ParseDuration(value)
	case KeyWorkerRecoveryTimeout:
		s.WorkerRecoveryTimeout, err = ParseDuration(value)
	case KeyWriteBufferFlushInterval:
		s.WriteBufferFlushInterval, err = positive(ParseDuration(value))
	case KeyRestartDelay:
		s.RestartDelay, err = ParseDuration(value)
	case KeyHeartbeatInterval:
		s.HeartbeatInterval, err = positive(ParseDuration(value))
	case KeyHeartbeatTimeout:
		s.HeartbeatTimeout, err = positive(ParseDuration(value))
	case KeyWriteBufferSize:
		var n int64
		n, err = ParseSize(value)
		if err == nil && (n <= 0 || n > math.MaxInt32) {
			err = fmt.Errorf("want a size between 1 byte and 2 GiB, got %q", value)
		}
		s.WriteBufferSize = int(n)
	case KeyBytesPerTask:
		s.BytesPerTask, err = ParseSize(value)
		if err == nil && s.BytesPerTask <= 0 {
			err = fmt.Errorf("want a positive size, got %q", value)
		}
	case KeyDefaultMaxParallelism:
		var n int64
		n, err = strconv.ParseInt(strings.TrimSpace(value), 10, 32)
		if err != nil || n <= 0 {
			err = fmt.Errorf("want a positive number, got %q", value)
		}
		s.DefaultMaxParallelism = int32(n)
	case KeyRestartStrategy:
		v := strings.TrimSpace(value)
		switch v {
		case RestartFixedDelay, "fixeddelay", "fixed_delay":
			s.RestartStrategy = RestartFixedDelay
		case RestartNone, "off", "disable":
			s.RestartStrategy = RestartNone
		default:
			err = fmt.Errorf("want %q or %q, got %q", RestartFixedDelay, RestartNone, value)
		}
	case KeyWriteRetryAttempts:
		var n int64
		n, err = strconv.ParseInt(strings.TrimSpace(value), 10, 32)
		if err != nil || n < 1 || n > 1000 {
			err = fmt.Errorf("want a number from 1 to 1000, got %q", value)
		}
		s.WriteRetryAttempts = int(n)
	case KeyMaxVertices, KeyMaxSplits, KeyMaxSubpartitions:
		var n int64
		n, err = strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if err != nil || n < 1 || (key != KeyMaxSubpartitions && n > math.MaxInt32) {
			err = fmt.Errorf("want a positive number, got %q", value)
		}
		switch key {
		case KeyMaxVertices:
			s.MaxVertices = int(n)
		case KeyMaxSplits:
			s.MaxSplits = int(n)
		default:
			s.MaxSubpartitions = n
		}
	case KeyRestartAttempts:
		var n int64
		n, err = strconv.ParseInt(strings.TrimSpace(value), 10, 32)
		if err != nil || n < 0 {
			err = fmt.Errorf("want a number ≥ 0, got %q", value)
		}
		s.RestartAttempts = int(n)
	default:
		known := append([]string(nil), settingKeys...)
		sort.Strings(known)
		return fmt.Errorf("unknown setting (known: %s)", strings.Join(known, ", "))
	}
	return err
}

// durationKeys are the settings that hold a duration.
var durationKeys = map[string]bool{
	KeySnapshotMinPause: true, KeyWorkerRecoveryTimeout: true, KeyWriteBufferFlushInterval: true,
	KeyRestartDelay: true, KeyHeartbeatInterval: true, KeyHeartbeatTimeout: true,
}

// unitlessDuration returns an error when key is a duration setting whose
// value is a number without a unit (0 aside, which needs none), nil
// otherwise. ParseDuration reads such a number as milliseconds, Flink's
// default unit, which is rarely what "heartbeat.interval: 2" means: a spec
// being submitted must say the unit (LoadSpec).
func unitlessDuration(key, value string) error {
	v := strings.TrimSpace(value)
	n, err := strconv.ParseFloat(v, 64)
	if !durationKeys[key] || err != nil || n == 0 {
		return nil
	}
	return fmt.Errorf("%s has no unit; write %ss or %sms", v, v, strconv.FormatFloat(n*1000, 'f', -1, 64))
}

func positive(d time.Duration, err error) (time.Duration, error) {
	if err == nil && d <= 0 {
		return 0, fmt.Errorf("want a positive duration, got %v", d)
	}
	return d, err
}

// ParseDuration parses a duration as Go writes it ("3m", "1.5s") or as
// Flink does ("3 min", "30 s", "500 ms"); a plain number is milliseconds,
// Flink's default unit.
func ParseDuration(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if d, err := time.ParseDuration(t); err == nil {
		if d < 0 {
			return 0, fmt.Errorf("want a duration ≥ 0, got %q", s)
		}
		return d, nil
	}
	num, unit := splitNumber(t)
	if num == "" {
		return 0, fmt.Errorf("want a duration such as 30s or \"3 min\", got %q", s)
	}
	n, err := strconv.ParseFloat(num, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("want a duration such as 30s or \"3 min\", got %q", s)
	}
	var u time.Duration
	switch strings.ToLower(unit) {
	case "", "ms", "milli", "millis", "millisecond", "milliseconds":
		u = time.Millisecond
	case "us", "µs", "micro", "micros", "microsecond", "microseconds":
		u = time.Microsecond
	case "ns", "nano", "nanos", "nanosecond", "nanoseconds":
		u = time.Nanosecond
	case "s", "sec", "secs", "second", "seconds":
		u = time.Second
	case "m", "min", "mins", "minute", "minutes":
		u = time.Minute
	case "h", "hour", "hours":
		u = time.Hour
	case "d", "day", "days":
		u = 24 * time.Hour
	default:
		return 0, fmt.Errorf("unknown duration unit %q in %q", unit, s)
	}
	d := n * float64(u)
	if d >= math.MaxInt64 {
		return 0, fmt.Errorf("duration %q out of range (at most %v)", s, time.Duration(math.MaxInt64))
	}
	return time.Duration(d), nil
}

// ParseSize parses a memory size: a plain number of bytes, or a number
// with a unit as Flink writes them ("1mb", "16 MiB", "64k", "2 gb"; the
// units are powers of 1024, as in Flink).
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	num, unit := splitNumber(t)
	if num == "" {
		return 0, fmt.Errorf("want a size such as 1mb or 65536, got %q", s)
	}
	n, err := strconv.ParseFloat(num, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("want a size such as 1mb or 65536, got %q", s)
	}
	var u float64
	switch strings.ToLower(unit) {
	case "", "b", "bytes":
		u = 1
	case "k", "kb", "kib", "kibibytes":
		u = 1 << 10
	case "m", "mb", "mib", "mebibytes":
		u = 1 << 20
	case "g", "gb", "gib", "gibibytes":
		u = 1 << 30
	case "t", "tb", "tib", "tebibytes":
		u = 1 << 40
	default:
		return 0, fmt.Errorf("unknown size unit %q in %q", unit, s)
	}
	v := n * u
	if v > math.MaxInt64/2 {
		return 0, fmt.Errorf("size %q out of range", s)
	}
	return int64(v), nil
}

// splitNumber splits "3 min" into "3" and "min".
func splitNumber(s string) (num, unit string) {
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	return s[:i], strings.TrimSpace(s[i:])
}

// retryPolicy is the event log writer's retry policy of these settings.
func (s *Settings) retryPolicy() blob.RetryPolicy {
	return blob.RetryPolicy{Attempts: s.WriteRetryAttempts}
}
