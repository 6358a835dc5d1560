package watch

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Metric names, part of watch's interface (docs/watch.md).
const (
	labelJob      = "job"
	labelJobName  = "job_name"
	labelDecision = "decision"
)

// metrics are watch's Prometheus collectors, on a registry of their own.
// Per-job series carry the job id and name only, and go when the job
// ends: the series grow with the jobs watched, never with their history.
type metrics struct {
	reg         *prometheus.Registry
	subtasks    *prometheus.GaugeVec
	exposure    *prometheus.GaugeVec
	lastEvent   *prometheus.GaugeVec
	lag         *prometheus.GaugeVec
	events      *prometheus.GaugeVec
	stopped     *prometheus.GaugeVec
	inactive    *prometheus.GaugeVec
	failovers   *prometheus.CounterVec
	unpredicted *prometheus.GaugeVec
	jobs        *prometheus.GaugeVec
	polls       prometheus.Counter
	errors      prometheus.Counter
	copied      prometheus.Counter
	pollSeconds prometheus.Gauge
}

func newMetrics() *metrics {
	job := []string{labelJob, labelJobName}
	m := &metrics{
		reg: prometheus.NewRegistry(),
		subtasks: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "jobevent_flink_subtasks",
			Help: "Subtasks by the decision a JobMaster failover now would take (keep, rerun, run): the dry run at the newest event."},
			append(job, labelDecision)),
		exposure: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "jobevent_exposure_bytes",
			Help: "The work a JobMaster failover now would redo: bytes_out of the finished subtasks the dry run reruns."}, job),
		lastEvent: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "jobevent_last_event_age_seconds",
			Help: "Seconds since the job's log last grew, as watch saw it."}, job),
		lag: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "jobevent_archive_lag_bytes",
			Help: "Bytes of the job's job-events not yet in its archive after the last poll."}, job),
		events: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "jobevent_events",
			Help: "Events of the job's log (its last seq)."}, job),
		stopped: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "jobevent_alert_recording_stopped",
			Help: "1 while the job runs (REST says RUNNING) and its log has not grown for longer than the threshold."}, job),
		inactive: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "jobevent_alert_recovery_inactive",
			Help: "1 while the job runs with recovery enabled in its config, yet no job-events appear."}, job),
		failovers: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "jobevent_failovers_total",
			Help: "JobMaster failovers seen (a new master incarnation in the log)."}, job),
		unpredicted: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "jobevent_failover_unpredicted_subtasks",
			Help: "Subtasks that ran again after the last failover although the dry run before it kept them."}, job),
		jobs: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "jobevent_watch_jobs",
			Help: "Jobs watched, by state: running (log present), ended (Flink deleted it; archive completed), log (jobevent logs)."}, []string{"state"}),
		polls:       prometheus.NewCounter(prometheus.CounterOpts{Name: "jobevent_watch_polls_total", Help: "Polls of the sources."}),
		errors:      prometheus.NewCounter(prometheus.CounterOpts{Name: "jobevent_watch_errors_total", Help: "Errors of polls, copies and archive writes."}),
		copied:      prometheus.NewCounter(prometheus.CounterOpts{Name: "jobevent_watch_copied_bytes_total", Help: "Bytes copied from the sources into archives."}),
		pollSeconds: prometheus.NewGauge(prometheus.GaugeOpts{Name: "jobevent_watch_poll_duration_seconds", Help: "How long the last poll took."}),
	}
	m.reg.MustRegister(m.subtasks, m.exposure, m.lastEvent, m.lag, m.events, m.stopped, m.inactive,
		m.failovers, m.unpredicted, m.jobs, m.polls, m.errors, m.copied, m.pollSeconds)
	return m
}

// forget removes every series of one job.
func (m *metrics) forget(id, name string) {
	l := prometheus.Labels{labelJob: id, labelJobName: name}
	for _, v := range []*prometheus.GaugeVec{m.exposure, m.lastEvent, m.lag, m.events, m.stopped, m.inactive, m.unpredicted} {
		v.Delete(l)
	}
	m.subtasks.DeletePartialMatch(l)
	m.failovers.Delete(l)
}
