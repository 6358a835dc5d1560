package blob

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/jobevent/jobevent/pkg/format"
)

// checkCovered reads every covered segment of pairs and the segment that
// covers it, and returns a *CorruptError naming the first covered segment
// whose rows differ from the covering segment's rows of the same seqs
// (or that does not decode). Readers skip covered segments unread, so
// such a difference, e.g. an imported duplicate seq written as a segment
// of its own, is found only here. A segment deleted meanwhile (by
// compaction) is passed over. Each covering segment is read once.
func (l *Log) checkCovered(ctx context.Context, pairs []coverPair) error {
	byCover := make(map[string][]SegmentInfo)
	var covers []SegmentInfo
	for _, p := range pairs {
		if _, ok := byCover[p.cover.Key]; !ok {
			covers = append(covers, p.cover)
		}
		byCover[p.cover.Key] = append(byCover[p.cover.Key], p.part)
	}
	for _, cover := range covers {
		rows, err := l.segmentRows(ctx, cover)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		for _, part := range byCover[cover.Key] {
			got, err := l.segmentRows(ctx, part)
			if errors.Is(err, ErrNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			for i := range got {
				want := &rows[got[i].Seq-cover.First]
				if !reflect.DeepEqual(&got[i], want) {
					return &CorruptError{Key: part.Key, Err: fmt.Errorf("covered by %s, but its row of seq %d (%s) differs from the covering segment's (%s)",
						cover.Key, got[i].Seq, got[i].Kind, want.Kind)}
				}
			}
		}
	}
	return nil
}

// segmentRows reads segment s whole and checks its rows against its name.
func (l *Log) segmentRows(ctx context.Context, s SegmentInfo) ([]format.Event, error) {
	data, err := l.store.get(ctx, s.Key)
	if errors.Is(err, errTooLarge) {
		return nil, &CorruptError{Key: s.Key, Err: err}
	}
	if err != nil {
		return nil, err
	}
	return decodePart(s, data, nil)
}
