package drill

import (
	"testing"
	"time"
)

// BenchmarkRun_WideEveryPoint drills every crash point of the ~200-event
// job of testdata/drill/wide.yaml with one fault per iteration's drill,
// and reports the cost per case:
//
//	go test ./pkg/runtime/drill -run XXX -bench WideEveryPoint -benchtime 1x
func BenchmarkRun_WideEveryPoint(b *testing.B) {
	for _, f := range []Fault{FaultMaster, FaultDouble} {
		b.Run(string(f), func(b *testing.B) {
			var cases int
			start := time.Now()
			for i := 0; i < b.N; i++ {
				res := drillJob(b, "drill/wide.yaml", Options{Faults: []Fault{f}})
				cases += len(res.Cases)
			}
			b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(cases), "ms/case")
			b.ReportMetric(float64(cases)/float64(b.N), "cases/op")
		})
	}
}
