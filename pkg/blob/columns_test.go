package blob

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/jobevent/jobevent/pkg/format"
)

// traceColumns reads the log with a ColumnReader and returns what a
// caller sees, as trace does for events: each call's notices, then its
// rows as the events they are (projected on fields), then the error that
// ended the read. The differential tests (decode_test.go) compare it with
// the reference event reader on intact, damaged, fenced and covered logs.
func traceColumns(t *testing.T, ctx context.Context, l *Log, opts ReaderOptions, fields format.Fields) []string {
	t.Helper()
	r, err := l.NewColumnReader(ctx, opts)
	if err != nil {
		return []string{"open: " + err.Error()}
	}
	defer r.Close()
	var out []string
	for {
		c, err := r.Next()
		for _, n := range r.Notices() {
			out = append(out, fmt.Sprintf("notice %+v", n))
		}
		if err != nil {
			return append(out, "end: "+err.Error())
		}
		if c.Len() == 0 {
			t.Fatal("columns: no rows without an error")
		}
		for _, e := range columnEvents(c) {
			j, err := json.Marshal(e.Project(fields))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, r.Key()+" "+string(j))
		}
	}
}

// columnEvents returns the rows of c as events with the fields of its
// columns set.
func columnEvents(c *format.Columns) []format.Event {
	out := make([]format.Event, c.Len())
	for i := range out {
		e := &out[i]
		e.Seq, e.Epoch = c.Seq[i], c.Epoch[i]
		if c.Time != nil {
			e.Time = time.Unix(0, c.Time[i]).UTC()
		}
		for _, p := range []struct {
			col []int32
			v   *int32
		}{{c.Subtask, &e.Subtask}, {c.Parallelism, &e.Parallelism}, {c.Attempt, &e.Attempt}} {
			if p.col != nil {
				*p.v = p.col[i]
			}
		}
		for _, p := range []struct {
			col []int64
			v   *int64
		}{{c.RecordsIn, &e.RecordsIn}, {c.RecordsOut, &e.RecordsOut}, {c.BytesIn, &e.BytesIn}, {c.BytesOut, &e.BytesOut}} {
			if p.col != nil {
				*p.v = p.col[i]
			}
		}
	}
	return out
}

// readColumnsAll reads a log with a ColumnReader projected on fs, and
// with the event reader, and requires the same rows, notices and error.
func checkColumnsAgree(t *testing.T, l *Log, fs format.Fields) {
	t.Helper()
	want, wantNotices, wantErr := readAll(t, l, ReaderOptions{Fields: fs, inline: true})
	r, err := l.NewColumnReader(context.Background(), ReaderOptions{Fields: fs})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var got []format.Event
	var notices []format.Notice
	for {
		c, err := r.Next()
		notices = append(notices, r.Notices()...)
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			if fmt.Sprint(err) != fmt.Sprint(wantErr) {
				t.Fatalf("err = %v, want %v", err, wantErr)
			}
			break
		}
		got = append(got, columnEvents(c)...)
	}
	fields := fs | format.FieldSeq | format.FieldEpoch
	for i := range want {
		want[i] = want[i].Project(fields)
	}
	assertEvents(t, got, want)
	if g, w := fmt.Sprintf("%+v", notices), fmt.Sprintf("%+v", wantNotices); g != w {
		t.Fatalf("notices:\n got %s\nwant %s", g, w)
	}
}

func TestNewColumnReader_Fields(t *testing.T) {
	l := memLog(t)
	writeLog(t, l, numbered(genEvents(10, 1), 1, 1), 5)
	for _, fs := range []format.Fields{format.FieldKind, format.FieldVertex | format.FieldBytesOut, format.AllFields} {
		if _, err := l.NewColumnReader(ctx, ReaderOptions{Fields: fs}); err == nil {
			t.Fatalf("%s: no error", fs)
		}
	}
	if _, err := l.sub("nothing/").NewColumnReader(ctx, ReaderOptions{}); !errors.Is(err, ErrNoLog) {
		t.Fatalf("an empty prefix: err = %v, want ErrNoLog", err)
	}
}
