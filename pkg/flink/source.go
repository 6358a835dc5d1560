package flink

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"

	"github.com/jobevent/jobevent/pkg/format"
)

// ReasonFlink is the reason of the subtasks_reset events that stand for
// Flink's type 2 records (a failover's resets, outside recovery).
const ReasonFlink = "flink"

// Log is a Flink job-events directory read as a jobevent log: the job
// graph derived from it, and its records as events of jobevent's model.
//
// The mapping: one synthesized job_submitted (seq 1) whose graph holds
// every job vertex the log or the plan names (32-hex JobVertexIDs, in the
// order the log first names them), with edges derived from the inputs of
// each type 3 record; one master_started per JobMaster incarnation (a new
// ExecutionGraphID in the attempt ids of a file's finished records; its
// master is "flink-jobmaster <graph id>"); then, record by record,
// vertex_initialized (type 3), subtask_finished (type 1: the worker is the
// TaskManager's resource id, the counters its IO metrics) followed by a
// snapshot event when the record is a snapshot point (its coordinator
// snapshots by vertex), and subtasks_reset with reason "flink" (type 2).
// Seqs count the events from 1; Flink records no times, so every time is
// zero; a record's place in the files is the source's Key.
type Log struct {
	fsys    fs.FS                        // the directory; nil for records given otherwise (tests)
	records func() (recordReader, error) // a new reader of the records, from the first
	opts    Options
	graph   *format.Graph
	names   map[string]string
	notes   []string
	epochs  map[string]int32 // file -> JobMaster incarnation, from 1
	graphs  []string         // ExecutionGraphID of each incarnation
	warns   []Warning
	count   int64       // records
	cache   *eventCache // the events Open read; nil when it kept none
	accs    []AccumulatorUse
}

// AccumulatorUse is the first record that holds an accumulator of a
// class: the accumulator's name and class, and the record's place.
type AccumulatorUse struct {
	Name, Class string
	File        string
	Offset      int64
}

// Accumulators returns, for each accumulator class the log's records
// hold ("" for a null one aside), its first use, in record order.
func (l *Log) Accumulators() []AccumulatorUse { return l.accs }

// recordReader is what a Log reads its records with: a *Reader.
type recordReader interface {
	Next() (*Record, error)
	Warnings() []Warning
	Close() error
}

// Open reads the job-events directory of fsys once, to derive the job
// graph and the JobMaster incarnations. A record that cannot be decoded is
// a *CorruptError (Flink would fail to replay the log, delete it and
// restart the whole job); torn records and numbering gaps are Warnings.
func Open(fsys fs.FS, opts Options) (*Log, error) {
	l, err := open(func() (recordReader, error) { return NewReader(fsys) }, opts)
	if l != nil {
		l.fsys = fsys
	}
	return l, err
}

// open is Open over any reader of the records.
func open(records func() (recordReader, error), opts Options) (*Log, error) {
	r, err := records()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if opts.Job == "" && opts.Plan != nil && hexID32(opts.Plan.JobID) {
		opts.Job = opts.Plan.JobID // the plan names the job the directory does not
	}
	l := &Log{records: records, opts: opts, epochs: map[string]int32{}}
	g := newGraphBuilder()
	cache := newEventCache()
	seenAcc := map[string]bool{}
	var files []string
	fileGraph := map[string]string{} // file -> graph id of its first finished record
	for {
		rec, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		l.count++
		g.add(rec.Event)
		if cache != nil && !cache.add(rec) {
			cache = nil
		}
		l.noteAccumulators(rec, seenAcc)
		if len(files) == 0 || files[len(files)-1] != rec.File {
			files = append(files, rec.File)
		}
		if f, ok := rec.Event.(*VertexFinished); ok && fileGraph[rec.File] == "" {
			fileGraph[rec.File] = f.AttemptID.ExecutionGraphID.String()
		}
	}
	l.assignEpochs(files, fileGraph)
	l.cache = cache
	l.warns = r.Warnings()
	if l.count == 0 {
		return nil, noRecords(l.warns)
	}
	l.graph, l.names, l.notes, err = g.graph(opts)
	if err != nil {
		return nil, err
	}
	return l, nil
}

// noteAccumulators appends the accumulator classes rec is the first
// record to hold.
func (l *Log) noteAccumulators(rec *Record, seen map[string]bool) {
	f, ok := rec.Event.(*VertexFinished)
	if !ok {
		return
	}
	for _, a := range f.Accumulators {
		if a.Class != "" && !seen[a.Class] {
			seen[a.Class] = true
			l.accs = append(l.accs, AccumulatorUse{Name: a.Name, Class: a.Class, File: rec.File, Offset: rec.Offset})
		}
	}
}

// assignEpochs numbers the JobMaster incarnations: each JobMaster writes
// files of its own, so a file whose finished records carry an
// ExecutionGraphID other than the previous incarnation's starts a new one;
// a file without finished records belongs to the incarnation before it.
func (l *Log) assignEpochs(files []string, fileGraph map[string]string) {
	epoch, cur := int32(1), ""
	for _, f := range files {
		if g := fileGraph[f]; g != "" && g != cur {
			if cur != "" {
				epoch++
			}
			l.graphs = append(l.graphs, g)
			cur = g
		}
		l.epochs[f] = epoch
	}
}

// ErrNoEvents reports a job-events directory without a single record to
// read: empty, or whose records are all torn or behind a numbering gap.
var ErrNoEvents = errors.New("jobevent/flink: no record to read in the job-events directory")

// noRecords says why a directory gave no record: empty, or torn or gapped,
// naming the file the first warning is about.
func noRecords(warns []Warning) error {
	for _, w := range warns {
		switch w.Kind {
		case WarnTorn:
			return fmt.Errorf("%w: torn, not empty: %s (Flink has nothing to recover from it)", ErrNoEvents, w)
		case WarnGap:
			return fmt.Errorf("%w: gapped, not empty: %s (Flink has nothing to recover from it)", ErrNoEvents, w)
		}
	}
	return fmt.Errorf("%w: empty (Flink has nothing to recover from it)", ErrNoEvents)
}

// Graph returns the job graph derived from the log and the plan.
func (l *Log) Graph() *format.Graph { return l.graph }

// Names returns the vertex names the plan gave, by vertex id.
func (l *Log) Names() map[string]string { return l.names }

// Notes returns what the mapping had to assume, one line each: coordinator
// kinds the log cannot tell, producers inferred without a plan, wiring it
// could only approximate. Callers print them as warnings.
func (l *Log) Notes() []string { return l.notes }

// Warnings returns what reading the files reported: torn records and
// numbering gaps, as Flink's reader would meet them.
func (l *Log) Warnings() []Warning { return l.warns }

// Records returns how many records the log holds.
func (l *Log) Records() int64 { return l.count }

// Events returns a source of the log's events: those Open read, or, for a
// log of more events than it keeps, the files read again.
func (l *Log) Events() (*Source, error) {
	s := &Source{log: l, job: l.opts.Job, epoch: 1}
	if l.cache == nil {
		r, err := l.records()
		if err != nil {
			return nil, err
		}
		s.r = r
	}
	s.pending = []format.Event{
		{Kind: format.KindJobSubmitted, Graph: l.graph},
		{Kind: format.KindMasterStarted, Master: l.master(1)},
	}
	return s, nil
}

func (l *Log) master(epoch int32) string {
	if int(epoch) <= len(l.graphs) {
		return format.FlinkMasterPrefix + " " + l.graphs[epoch-1]
	}
	return format.FlinkMasterPrefix
}

// Source streams the events of a Flink log in order (replay.Source).
// Its memory does not grow with the log. It is not safe for concurrent
// use.
type Source struct {
	log     *Log
	r       recordReader
	job     string
	seq     int64
	epoch   int32
	pending []format.Event
	keyFile string // where the last record was: file, "" before the first
	keyOff  int64
	next    int            // of the cached record to return next, when s.r is nil
	buf     []format.Event // the pending events of a cached record
}

// Next returns the next event, io.EOF after the last, or a *CorruptError.
func (s *Source) Next() (format.Event, error) {
	for len(s.pending) == 0 {
		if s.r == nil {
			if !s.nextCached() {
				return format.Event{}, io.EOF
			}
			continue
		}
		rec, err := s.r.Next()
		if err != nil {
			return format.Event{}, err
		}
		s.keyFile, s.keyOff = rec.File, rec.Offset
		s.pending = s.mapRecord(rec.File, appendRecordEvents(nil, rec.Event, plainNames{}))
	}
	e := s.pending[0]
	s.pending = s.pending[1:]
	s.seq++
	e.Seq, e.Epoch, e.Job = s.seq, s.epoch, s.job
	return e, nil
}

// Key returns where the last event came from: "events.3@1234" (file and
// byte offset of its record), or "" for a synthesized event.
func (s *Source) Key() string {
	if s.keyFile == "" {
		return ""
	}
	return s.keyFile + "@" + strconv.FormatInt(s.keyOff, 10)
}

// Close releases the open file.
func (s *Source) Close() error {
	if s.r == nil {
		return nil
	}
	return s.r.Close()
}

// nextCached makes the events of the next cached record pending; it
// reports false after the last.
func (s *Source) nextCached() bool {
	c := s.log.cache
	if s.next >= c.n {
		return false
	}
	rec := c.record(s.next)
	file := c.files[rec.file]
	s.keyFile, s.keyOff = file, rec.off
	s.buf = c.appendEvents(s.buf[:0], s.next)
	s.pending = s.mapRecord(file, s.buf)
	s.next++
	return true
}

// mapRecord returns the events of one record of file, opening a new
// incarnation with its master_started when the record's file starts one.
func (s *Source) mapRecord(file string, events []format.Event) []format.Event {
	if e := s.log.epochs[file]; e > s.epoch {
		s.epoch = e
		return append([]format.Event{{Kind: format.KindMasterStarted, Master: s.log.master(e), Recovering: true}}, events...)
	}
	return events
}

// JobOfDir returns the job id of a job-events directory path
// (<storageDir>/<cluster-id>/<job id>/job-events), "" when the path does
// not end so.
func JobOfDir(path string) string {
	path = strings.TrimRight(strings.ReplaceAll(path, "\\", "/"), "/")
	i := strings.LastIndex(path, "/")
	if i < 0 || !strings.HasPrefix(path[i+1:], "job-events") {
		return ""
	}
	parent := path[:i]
	if j := strings.LastIndex(parent, "/"); j >= 0 {
		parent = parent[j+1:]
	}
	if hexID32(parent) {
		return parent
	}
	return ""
}
