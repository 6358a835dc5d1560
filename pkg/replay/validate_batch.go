package replay

import (
	"errors"
	"io"

	"github.com/jobevent/jobevent/pkg/format"
)

// runBatches is run over a source that hands out batches: the same checks
// in the same order (notices are drained where Next would have returned
// the batch's first event), without copying each event out.
func (v *validator) runBatches(src BatchSource) {
	for !v.stopped {
		batch, err := src.NextBatch()
		v.drainNotices()
		if len(batch) == 0 {
			if errors.Is(err, io.EOF) {
				v.end()
			} else if err != nil {
				v.sourceError(err)
			}
			if err != nil {
				return
			}
			continue
		}
		if v.keyer != nil {
			v.key = v.keyer.Key()
		}
		for i := range batch {
			if v.stopped {
				return
			}
			v.event(&batch[i])
		}
		if err != nil { // a source that returns events with its error
			v.drainNotices()
			if errors.Is(err, io.EOF) {
				v.end()
			} else {
				v.sourceError(err)
			}
			return
		}
	}
}

// ValidateFields are the event fields Validate reads: a source that can
// skip the others (blob.ReaderOptions.Fields) may leave them zero, and
// the findings are the same. The time, the job id, workers, metrics,
// error messages and reasons are not checked; the master's address is
// read to know a Flink log's profile.
const ValidateFields = format.FieldSeq | format.FieldEpoch | format.FieldKind | format.FieldGraph | format.FieldMaster |
	format.FieldRecovering | format.FieldVertex | format.FieldSubtask | format.FieldParallelism |
	format.FieldAttempt | format.FieldPartitions | format.FieldSubtasks | format.FieldCoordinators |
	format.FieldStatus
