package main

import (
	"fmt"

	"github.com/jobevent/jobevent/internal/progress"
	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/replay"
)

// Claims returns the log's epoch objects as its reader listed them last:
// validate compares them with the events.
func (s *blobSource) Claims() []replay.EpochClaim {
	epochs := s.Reader.Epochs()
	claims := make([]replay.EpochClaim, len(epochs))
	for i, e := range epochs {
		claims[i] = replay.EpochClaim{Epoch: e.Epoch, StartSeq: e.StartSeq, Key: fmt.Sprintf("%s%08x", blob.EpochsDir, uint32(e.Epoch))}
	}
	return claims
}

var _ replay.Claimer = (*blobSource)(nil)

// claimingSource is an eventSource wrapped for progress that still offers
// the epoch objects of the source it wraps.
type claimingSource struct {
	eventSource
	replay.Claimer
}

// validateSource is src as validate reads it: with progress counted into
// p, and its epoch objects, when it has them.
func validateSource(src eventSource, p *progress.Reporter) replay.Source {
	wrapped := withProgress(src, p)
	if c, ok := src.(replay.Claimer); ok {
		return claimingSource{eventSource: wrapped, Claimer: c}
	}
	return wrapped
}
