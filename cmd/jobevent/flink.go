package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
	gcblob "gocloud.dev/blob"

	"github.com/jobevent/jobevent/pkg/flink"
	"github.com/jobevent/jobevent/pkg/format"
)

// Flink job-events directories as LOG arguments (docs/flink.md): a local
// directory, a file:// URL or a bucket URL whose prefix holds objects named
// events.N is read with package flink, read-only.

// flinkPlanFlag and coordinatorFlag are the side information flags of the
// commands that read a LOG: they matter only for a Flink log, and are a
// usage error on another.
func flinkPlanFlag() cli.Flag {
	return &cli.StringFlag{Name: "flink-plan", Usage: "Flink log: the job's plan JSON (REST GET /jobs/:jobid/plan) in `FILE`, for vertex names and edges"}
}

func coordinatorFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: "coordinator", Usage: "Flink log: the coordinator kind of a vertex, `VERTEX=batch_snapshot|no_batch_snapshot|none` (VERTEX by 32-hex id or name; repeatable)"}
}

// flinkOptions is what the flink flags of a command gave.
type flinkOptions struct {
	opts  flink.Options
	given []string // the flags set, as "--name"
}

// flinkOptionsOf reads --flink-plan and --coordinator. It returns nil when
// neither is set.
func flinkOptionsOf(c *cli.Context) (*flinkOptions, error) {
	fo := &flinkOptions{}
	if file := c.String("flink-plan"); file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("--flink-plan: %w", err)
		}
		plan, err := flink.ParsePlan(data)
		if err != nil {
			return nil, fmt.Errorf("--flink-plan %s: %w", file, err)
		}
		fo.opts.Plan = plan
		fo.given = append(fo.given, "--flink-plan")
	}
	for _, s := range c.StringSlice("coordinator") {
		v, kind, ok := strings.Cut(s, "=")
		switch kind {
		case format.CoordinatorBatchSnapshot, format.CoordinatorNoBatchSnapshot, format.CoordinatorNone:
		default:
			ok = false
		}
		if !ok || v == "" {
			return nil, usagef(c, "bad --coordinator %q: want VERTEX=batch_snapshot|no_batch_snapshot|none", s)
		}
		if fo.opts.Coordinators == nil {
			fo.opts.Coordinators = map[string]string{}
		}
		fo.opts.Coordinators[v] = kind
	}
	if len(fo.opts.Coordinators) > 0 {
		fo.given = append(fo.given, "--coordinator")
	}
	if len(fo.given) == 0 {
		return nil, nil
	}
	return fo, nil
}

// refuse returns the usage error of flink flags given for a log that is
// not a Flink log, nil when none was given.
func (fo *flinkOptions) refuse(arg string) error {
	if fo == nil {
		return nil
	}
	return &usageError{msg: fmt.Sprintf("%s applies to a Flink job-events directory only; %s is not one (no events.N files)", strings.Join(fo.given, " and "), arg)}
}

// flinkCorruptHint ends the error of a corrupt Flink log.
const flinkCorruptHint = "Flink itself would fail to replay this log, delete it and restart the whole job"

// flinkSource is a Flink job-events directory opened as an eventSource.
type flinkSource struct {
	*flink.Source
	log     *flink.Log
	arg     string
	closer  io.Closer // the bucket, nil for a local directory
	notices []format.Notice
}

// Notice kinds of a Flink log, beside format.NoticeTornTail.
const (
	noticeFlinkNote format.NoticeKind = "flink_note" // an assumption of the mapping
	noticeFlinkGap  format.NoticeKind = "flink_gap"  // a numbering gap hides later files
	noticeFlinkName format.NoticeKind = "flink_name" // an events.* name that is no number
)

// Next returns the next event; a corrupt record says what Flink does.
func (s *flinkSource) Next() (format.Event, error) {
	e, err := s.Source.Next()
	if err != nil && err != io.EOF {
		return e, flinkError(s.arg, err)
	}
	return e, err
}

// Notices returns, on the first call, the notes and warnings of the log:
// each is printed once.
func (s *flinkSource) Notices() []format.Notice {
	n := s.notices
	s.notices = nil
	return n
}

// Close closes the files and the bucket.
func (s *flinkSource) Close() error {
	err := s.Source.Close()
	if s.closer != nil {
		if cerr := s.closer.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// flinkError adds to a Flink log's error the log's name and, for a record
// Flink fails on, what Flink does with the log.
func flinkError(arg string, err error) error {
	if flink.IsCorrupt(err) {
		return fmt.Errorf("%s: corrupt Flink log: %w; %s", arg, err, flinkCorruptHint)
	}
	return fmt.Errorf("%s: %w", arg, err)
}

// openFlinkSource opens arg as a Flink log when it is one. It returns
// nil, nil when arg is not a Flink job-events directory.
func openFlinkSource(ctx context.Context, arg string, fo *flinkOptions) (*flinkSource, error) {
	fsys, closer, err := flinkFS(ctx, arg)
	if fsys == nil || err != nil {
		return nil, err
	}
	var opts flink.Options
	if fo != nil {
		opts = fo.opts
	}
	if dir, ok := localDir(arg); ok && opts.Job == "" {
		opts.Job = flink.JobOfDir(dir)
	} else if u, err := url.Parse(arg); err == nil && opts.Job == "" {
		opts.Job = flink.JobOfDir(u.Query().Get("prefix"))
	}
	l, err := flink.Open(fsys, opts)
	if err == nil {
		var src *flink.Source
		if src, err = l.Events(); err == nil {
			notices := append(flinkNotices(l), unmatchedCoordinators(l, opts.Coordinators)...)
			return &flinkSource{Source: src, log: l, arg: arg, closer: closer, notices: notices}, nil
		}
	}
	if closer != nil {
		closer.Close()
	}
	return nil, flinkError(arg, err)
}

// flinkNotices turns the notes and warnings of l into notices.
func flinkNotices(l *flink.Log) []format.Notice {
	var out []format.Notice
	for _, n := range l.Notes() {
		out = append(out, format.Notice{Kind: noticeFlinkNote, Message: "Flink log: " + n})
	}
	for _, w := range l.Warnings() {
		n := format.Notice{Key: w.File, Message: w.Msg}
		switch w.Kind {
		case flink.WarnTorn, flink.WarnSkipped:
			n.Kind = format.NoticeTornTail
			n.Message = fmt.Sprintf("offset %d: %s", w.Offset, w.Msg)
		case flink.WarnGap:
			n.Kind = noticeFlinkGap
		default:
			n.Kind = noticeFlinkName
		}
		out = append(out, n)
	}
	return out
}

// flinkFileName is the name of a job-events file: events.N.
var flinkFileName = regexp.MustCompile(`^events\.[0-9]+$`)

// flinkFS returns the job-events directory arg names as an fs.FS, or nil
// when arg is no Flink log: a directory (bare path or file:// URL) or a
// bucket prefix holding an object named events.N. A bucket that cannot be
// opened or listed here is left to the log reader, which reports it.
func flinkFS(ctx context.Context, arg string) (fs.FS, io.Closer, error) {
	dir, isLocal := localDir(arg)
	if isLocal {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return nil, nil, nil
		}
		for _, e := range entries {
			if flinkFileName.MatchString(e.Name()) {
				return os.DirFS(dir), nil, nil
			}
		}
		return nil, nil, nil
	}
	u, err := url.Parse(arg)
	if err != nil || (u.Scheme != "s3" && u.Scheme != "gs" && u.Scheme != "azblob") {
		return nil, nil, nil
	}
	b, err := gcblob.OpenBucket(ctx, arg)
	if err != nil {
		return nil, nil, nil
	}
	// OpenBucket applied the prefix parameter: list the bucket's root.
	it := b.List(&gcblob.ListOptions{Prefix: flink.FilePrefix, Delimiter: "/"})
	for {
		obj, err := it.Next(ctx)
		if err != nil {
			break
		}
		if !obj.IsDir && flinkFileName.MatchString(obj.Key) {
			b.SetIOFSCallback(func() (context.Context, *gcblob.ReaderOptions) { return ctx, nil })
			return b, b, nil
		}
	}
	b.Close()
	return nil, nil, nil
}

// localDir returns the directory of a bare path or a file:// URL (with its
// prefix parameter), and whether arg is one.
func localDir(arg string) (string, bool) {
	if !strings.Contains(arg, "://") {
		return arg, true
	}
	u, err := url.Parse(arg)
	if err != nil || u.Scheme != "file" {
		return "", false
	}
	return filepath.Join(filepath.FromSlash(u.Path), filepath.FromSlash(u.Query().Get("prefix"))), true
}

// isFlinkLog reports whether arg is a Flink job-events directory.
func isFlinkLog(ctx context.Context, arg string) bool {
	fsys, closer, _ := flinkFS(ctx, arg)
	if closer != nil {
		closer.Close()
	}
	return fsys != nil
}

// errFlinkReplay refuses replay without --dry-run on a Flink log.
var errFlinkReplay = errors.New("is a Flink job-events directory: Flink recovers its own job (a new JobMaster replays this log); jobevent cannot. Use --dry-run to see what Flink will keep and rerun; to keep the log after Flink deletes it, import it (jobevent import FLINK_DIR LOG)")

// checkFlinkFollow refuses --follow on a Flink log: its files are read as
// they are, once.
func checkFlinkFollow(s *flinkSource, o sourceOptions) (eventSource, error) {
	if o.follow {
		s.Close()
		return nil, &usageError{msg: s.arg + ": --follow needs a jobevent log; a Flink job-events directory is read as it is"}
	}
	return s, nil
}

// diffFlinkOptions gives the flink flags of diff to whichever of its two
// logs is a Flink log; with neither, they are a usage error.
func diffFlinkOptions(c *cli.Context) (a, b sourceOptions, err error) {
	fo, err := flinkOptionsOf(c)
	if err != nil || fo == nil {
		return a, b, err
	}
	fa, fb := isFlinkLog(c.Context, c.Args().Get(0)), isFlinkLog(c.Context, c.Args().Get(1))
	if !fa && !fb {
		return a, b, fo.refuse(c.Args().Get(0))
	}
	if fa {
		a.flink = fo
	}
	if fb {
		b.flink = fo
	}
	return a, b, nil
}

// unmatchedCoordinators warns about --coordinator values that name no
// vertex of the log (by id, or by name from --flink-plan): they change
// nothing, and are never silently ignored.
func unmatchedCoordinators(l *flink.Log, kinds map[string]string) []format.Notice {
	known := map[string]bool{}
	for _, v := range l.Graph().Vertices {
		known[v.ID] = true
	}
	for _, n := range l.Names() {
		known[n] = true
	}
	var out []format.Notice
	for v := range kinds {
		if !known[v] {
			out = append(out, format.Notice{Kind: noticeFlinkNote, Message: fmt.Sprintf("--coordinator %s=%s names no vertex of the log (by 32-hex id, or by name from --flink-plan): it changes nothing", v, kinds[v])})
		}
	}
	slices.SortFunc(out, func(a, b format.Notice) int { return strings.Compare(a.Message, b.Message) })
	return out
}

// refuseFlinkWrites wraps a command that writes to its log (cancel,
// compact, run and master with --events) so that it refuses a Flink
// job-events directory: jobevent never writes next to Flink's files.
func refuseFlinkWrites(cmd *cli.Command) *cli.Command {
	inner := cmd.Action
	cmd.Action = func(c *cli.Context) error {
		logs := []string{c.Args().First()}
		if c.IsSet("events") {
			logs = []string{c.String("events")}
		} else if cmd.Name == "run" || cmd.Name == "master" {
			logs = nil // their LOG is a default under ./jobevents
		}
		for _, l := range logs {
			if l != "" && isFlinkLog(c.Context, l) {
				return usagef(c, "%s is a Flink job-events directory: %s would write next to Flink's files, and jobevent only reads them (docs/flink.md)", l, cmd.Name)
			}
		}
		return inner(c)
	}
	return cmd
}
