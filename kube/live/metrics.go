package live

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
)

// MetricsHandler serves the scheduler's metrics in the Prometheus text
// format, under kube-scheduler's names where it has them:
//
//   - scheduler_schedule_attempts_total{profile, result}: scheduling
//     attempts by result ("scheduled" once bound, "unschedulable",
//     "error"), counted when Config.WriteAPI is set (what-if questions are
//     not counted);
//   - scheduler_pending_pods{queue}: pods in the active, backoff and
//     unschedulable queues;
//
// and the feed's own under schedkit_live_: events applied by kind,
// objects refused, applies retried and unmodelled fields seen.
func (l *Live) MetricsHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		var b strings.Builder
		family := func(name, typ, help string) {
			fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, typ)
		}
		family("scheduler_schedule_attempts_total", "counter", "Number of attempts to schedule pods, by the result.")
		if l.writer != nil {
			l.writer.mu.Lock()
			keys := make([][2]string, 0, len(l.writer.attempts))
			for k := range l.writer.attempts {
				keys = append(keys, k)
			}
			slices.SortFunc(keys, func(a, b [2]string) int { return strings.Compare(a[1]+"\x00"+a[0], b[1]+"\x00"+b[0]) })
			for _, k := range keys {
				fmt.Fprintf(&b, "scheduler_schedule_attempts_total{profile=%q,result=%q} %d\n", k[1], k[0], l.writer.attempts[k])
			}
			l.writer.mu.Unlock()
		}
		active, backoff, unschedulable := l.sched.QueueLengths()
		family("scheduler_pending_pods", "gauge", "Number of pending pods, by the queue type.")
		fmt.Fprintf(&b, "scheduler_pending_pods{queue=\"active\"} %d\nscheduler_pending_pods{queue=\"backoff\"} %d\nscheduler_pending_pods{queue=\"unschedulable\"} %d\n",
			active, backoff, unschedulable)
		st := l.Stats()
		family("schedkit_live_events_applied_total", "counter", "Watch events applied to the scheduler, by kind.")
		for _, k := range sortedCounts(st.Applied) {
			fmt.Fprintf(&b, "schedkit_live_events_applied_total{kind=%q} %d\n", k, st.Applied[k])
		}
		family("schedkit_live_objects_rejected", "gauge", "Objects the scheduler does not hold because their conversion failed or it refused them.")
		fmt.Fprintf(&b, "schedkit_live_objects_rejected %d\n", len(st.Rejected))
		family("schedkit_live_apply_retries_total", "counter", "Watch events applied again after an error.")
		fmt.Fprintf(&b, "schedkit_live_apply_retries_total %d\n", st.Retries)
		family("schedkit_live_ignored_fields_total", "counter", "Fields schedkit does not model, seen in the objects read, by kind and path.")
		for _, k := range sortedCounts(st.Ignored) {
			kind, path, _ := strings.Cut(k, " ")
			fmt.Fprintf(&b, "schedkit_live_ignored_fields_total{kind=%q,path=%q} %d\n", kind, path, st.Ignored[k])
		}
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		_, _ = fmt.Fprint(w, b.String())
	})
}

func sortedCounts(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
