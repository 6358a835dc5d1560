package flink

import (
	"io"
	"os"
	"reflect"
	"testing"

	"github.com/jobevent/jobevent/internal/flinkfixture"
	"github.com/jobevent/jobevent/pkg/format"
)

// TestEvents_CacheEqualsReread: the events Open keeps give, key for key,
// the events that reading the files again gives, on every real Flink run
// (failovers and several JobMaster incarnations among them).
func TestEvents_CacheEqualsReread(t *testing.T) {
	runs, err := flinkfixture.All(flinkfixture.Root())
	if err != nil || len(runs) == 0 {
		t.Skip("no real Flink runs")
	}
	for _, run := range runs {
		t.Run(run.Key(), func(t *testing.T) {
			l, err := Open(os.DirFS(run.JobEvents), Options{})
			if err != nil {
				t.Skip(err)
			}
			if l.cache == nil {
				t.Fatalf("Open kept no events of a log of %d records", l.count)
			}
			cached := allEvents(t, l)
			l.cache = nil
			if reread := allEvents(t, l); !reflect.DeepEqual(cached, reread) {
				t.Fatalf("cached events differ from the events read again:\n%v\nwant\n%v", cached, reread)
			}
		})
	}
}

type keyedEvent struct {
	Key string
	E   format.Event
}

func allEvents(t *testing.T, l *Log) []keyedEvent {
	t.Helper()
	src, err := l.Events()
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var out []keyedEvent
	for {
		e, err := src.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, keyedEvent{src.Key(), e})
	}
}
