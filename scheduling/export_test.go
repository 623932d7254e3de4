package scheduling

import "github.com/schedkit/schedkit/framework"

// OptionSettings applies opts to an empty Scheduler and returns the
// settings they set, for the external tests of packages that build
// options (configfile's SchedulerOptions).
func OptionSettings(opts ...Option) (parallelism int, pctToScore int32, q QueueOptions, extenders []framework.Extender) {
	s := &Scheduler{}
	for _, o := range opts {
		o(s)
	}
	return s.parallelism, s.pctToScore, s.queueOpts, s.extenders
}
