package watch

import (
	"fmt"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Handler serves /metrics (the Prometheus text format) and /healthz (200
// while polls succeed on time, 503 otherwise). Safe for concurrent use
// with Poll.
func (w *Watcher) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(w.m.reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", func(rw http.ResponseWriter, _ *http.Request) {
		w.mu.Lock()
		last, err := w.lastPoll, w.pollErr
		w.mu.Unlock()
		switch {
		case last.IsZero():
			http.Error(rw, "no poll yet", http.StatusServiceUnavailable)
		case w.opts.Now().Sub(last) > 3*w.opts.Interval+restTimeout:
			http.Error(rw, fmt.Sprintf("last poll %s ago", w.opts.Now().Sub(last).Round(time.Second)), http.StatusServiceUnavailable)
		case err != nil:
			http.Error(rw, "last poll: "+err.Error(), http.StatusServiceUnavailable)
		default:
			fmt.Fprintln(rw, "ok")
		}
	})
	return mux
}

// updateGauges sets every per-job series from the jobs' last plans.
func (w *Watcher) updateGauges() {
	w.mu.Lock()
	defer w.mu.Unlock()
	var running, ended float64
	for _, j := range w.jobs {
		if j.ended {
			ended++
			continue
		}
		if !j.exp.planned {
			continue
		}
		running++
		l := prometheus.Labels{labelJob: j.id, labelJobName: j.name}
		w.setExposure(l, &j.exp)
		w.m.lag.With(l).Set(float64(j.lagBytes))
		stopped := j.restState == "RUNNING" && w.age(j.exp.lastGrowth) > w.opts.StaleAfter.Seconds()
		if stopped && !j.alertStopped {
			w.logf("alert: job %s (%s) is RUNNING but its log has not grown for %s: Flink may have stopped recording events (after a write error it records no more)", j.id, j.name, w.opts.Now().Sub(j.exp.lastGrowth).Round(time.Second))
		}
		j.alertStopped = stopped
		w.m.stopped.With(l).Set(b2f(stopped))
	}
	for _, j := range w.logs {
		if j.exp.planned {
			w.setExposure(prometheus.Labels{labelJob: j.id, labelJobName: ""}, &j.exp)
		}
	}
	w.m.jobs.WithLabelValues("running").Set(running)
	w.m.jobs.WithLabelValues("ended").Set(ended)
	w.m.jobs.WithLabelValues("log").Set(float64(len(w.logs)))
}

func (w *Watcher) setExposure(l prometheus.Labels, x *exposure) {
	for d, n := range map[string]int{"keep": x.summary.Keep, "rerun": x.summary.Rerun, "run": x.summary.Run} {
		w.m.subtasks.MustCurryWith(l).WithLabelValues(d).Set(float64(n))
	}
	w.m.exposure.With(l).Set(float64(x.bytes))
	w.m.lastEvent.With(l).Set(w.age(x.lastGrowth))
	w.m.events.With(l).Set(float64(x.lastSeq))
	w.m.unpredicted.With(l).Set(float64(x.unpredicted))
	c := w.m.failovers.With(l)
	// The counter follows the failovers seen; it never goes down.
	for x.countedFailovers < x.failovers {
		c.Inc()
		x.countedFailovers++
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
