package logsource

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/jobevent/jobevent/pkg/blob"
	"github.com/jobevent/jobevent/pkg/flink"
	"github.com/jobevent/jobevent/pkg/format"
)

// An archive is what jobevent watch keeps of one Flink job under its
// ROOT (docs/format.md, "Archives"), at <cluster-id>/<job id>/:
//
//	archive.json                        the marker (ArchiveInfo), written once
//	ended.json                          when Flink deleted the job's directory (ArchiveEnd)
//	events/<epoch>-<first>-<last>.parquet  the job's events, each with the time watch first saw it
//	flink/<HA plan file>                Flink's submittedJobGraph*/submittedExecutionPlan*, byte for byte
//	flink/<job id>/job-events/events.N  Flink's job-events files, byte for byte
//	flink/rest/plan.json, config.json   Flink's REST plan and JobManager config, when watch had a REST URL
//
// flink/ is laid out as Flink's HA cluster directory, so the copy reads as
// Flink's own storage does. An archive is read as the Flink log it copies
// (the same reader, the same plan: its dry run equals the dry run on the
// job-events at the same point), with each event's time taken from the
// Parquet events of the same seq, marked observed.
const (
	// ArchiveMarker names an archive's marker object; part of the layout.
	ArchiveMarker = "archive.json"
	// ArchiveEnded names the object written when the job's directory went.
	ArchiveEnded = "ended.json"
	// ArchiveFlinkDir holds the copies of Flink's files, as an HA
	// cluster directory.
	ArchiveFlinkDir = "flink/"
	// ArchiveRESTPlan and ArchiveRESTConfig are the REST answers kept.
	ArchiveRESTPlan   = ArchiveFlinkDir + "rest/plan.json"
	ArchiveRESTConfig = ArchiveFlinkDir + "rest/config.json"
	// ArchiveFormat is the marker's format name.
	ArchiveFormat = "jobevent-watch-archive"
)

// KindArchive is an archive written by jobevent watch.
const KindArchive Kind = KindFlink + 1

// TimesObserved: each event's time is when jobevent watch first saw it,
// not one its engine recorded.
const TimesObserved Times = TimesNone + 1

// ArchiveInfo is the JSON of an archive's marker, part of the layout.
type ArchiveInfo struct {
	Format  string    `json:"format"` // ArchiveFormat
	Version int       `json:"version"`
	Job     string    `json:"job"`     // Flink's job id
	Cluster string    `json:"cluster"` // the HA cluster id
	Source  string    `json:"source"`  // the URL of the job-events directory watched
	Watched string    `json:"watched"` // the URL of the SOURCE it was found under
	Times   string    `json:"times"`   // "observed"
	Created time.Time `json:"created"`
}

// ArchiveEnd is the JSON of ended.json: when watch found the job's
// directory gone.
type ArchiveEnd struct {
	Ended  time.Time `json:"ended"`
	Reason string    `json:"reason"`
}

// JobEventsKey returns the prefix of the job-events copy of job in an
// archive.
func JobEventsKey(job string) string { return ArchiveFlinkDir + job + "/job-events/" }

// ReadArchiveInfo reads an archive's marker at b's prefix; blob.ErrNotFound
// when there is none.
func ReadArchiveInfo(ctx context.Context, b *blob.Bucket) (ArchiveInfo, error) {
	var info ArchiveInfo
	data, err := b.ReadAll(ctx, ArchiveMarker)
	if err != nil {
		return info, err
	}
	if err := json.Unmarshal(data, &info); err != nil || info.Format != ArchiveFormat {
		return info, fmt.Errorf("%s%s: not a jobevent watch archive marker", b.URL(), ArchiveMarker)
	}
	if info.Version != 1 {
		return info, fmt.Errorf("%s%s: archive version %d, this jobevent reads version 1", b.URL(), ArchiveMarker, info.Version)
	}
	return info, nil
}

// archiveSource is an archive: the Flink log of its copied files, with
// observed times.
type archiveSource struct {
	*flinkSource
	times   *blob.Reader // nil when no event has its time yet
	next    format.Event // the times reader's next event, valid when have
	have    bool
	info    Info
	notices []format.Notice
}

var _ WithTimes = (*archiveSource)(nil)

func openArchive(ctx context.Context, r *resolved, o Options) (Source, error) {
	ai, err := ReadArchiveInfo(ctx, r.bucket)
	if err != nil {
		r.close()
		return nil, err
	}
	fo := FlinkOptions{}
	if o.Flink != nil {
		fo = *o.Flink
	}
	if fo.Plan == nil {
		if fo.Plan, err = archivePlan(ctx, r.bucket); err != nil {
			r.close()
			return nil, err
		}
	}
	fr := &resolved{arg: r.arg, kind: KindFlink, bucket: r.bucket.Sub(JobEventsKey(ai.Job)), root: r.root, job: ai.Job, ha: r.bucket.Sub(ArchiveFlinkDir)}
	o.Flink = &fo
	src, err := openFlink(ctx, fr, o)
	if err != nil {
		return nil, err
	}
	s := &archiveSource{flinkSource: src.(*flinkSource), info: Info{Arg: r.arg, URL: r.bucket.URL(), Kind: KindArchive, Job: ai.Job}}
	s.notices = append(s.flinkSource.Notices(), format.Notice{Kind: NoticeFlinkNote,
		Message: "archive of jobevent watch: event times are when watch first saw each event (observed), not Flink's; Flink records none"})
	if ok, err := r.bucket.Log().Exists(ctx); err == nil && ok {
		if s.times, err = r.bucket.Log().NewReader(ctx, blob.ReaderOptions{}); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// archivePlan reads the REST plan an archive keeps; nil when it has none.
func archivePlan(ctx context.Context, b *blob.Bucket) (*flink.JobPlan, error) {
	data, err := b.ReadAll(ctx, ArchiveRESTPlan)
	if errors.Is(err, blob.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return flink.ParsePlan(data)
}

func (s *archiveSource) Info() Info   { return s.info }
func (s *archiveSource) Times() Times { return TimesObserved }

// Next returns the next event of the copied files, with the time of the
// archived event of the same seq (zero when watch has not timed it yet).
func (s *archiveSource) Next() (format.Event, error) {
	e, err := s.flinkSource.Next()
	if err != nil || s.times == nil {
		return e, err
	}
	for !s.have || s.next.Seq < e.Seq {
		t, terr := s.times.Next()
		if terr == io.EOF {
			s.times.Close()
			s.times = nil
			return e, nil
		}
		if terr != nil {
			return e, terr
		}
		s.next, s.have = t, true
	}
	if s.next.Seq == e.Seq {
		e.Time = s.next.Time
	}
	return e, nil
}

func (s *archiveSource) Notices() []format.Notice {
	n := append(s.notices, s.flinkSource.Notices()...)
	s.notices = nil
	if s.times != nil {
		n = append(n, s.times.Notices()...)
	}
	return n
}

func (s *archiveSource) Close() error {
	if s.times != nil {
		s.times.Close()
	}
	return s.flinkSource.Close()
}

func (s *archiveSource) readOnly(context.Context) error {
	return &ReadOnlyError{Arg: s.info.Arg, Why: "is an archive of jobevent watch: it records what Flink did, and jobevent cannot run Flink's job; use --dry-run"}
}
