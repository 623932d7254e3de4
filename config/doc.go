// Package config holds the typed arguments of schedkit's plugins, with
// their defaults and validation, in the shape of kube-scheduler's
// pkg/scheduler/apis/config (and Koordinator's LoadAwareSchedulingArgs).
// Both halves of a plugin that spans extension points (the filter half in
// package filter, the score half in package scoring) read the same args
// type from here.
package config
