// Package config holds what several plugin packages and configuration
// loading share, in the shape of kube-scheduler's
// pkg/scheduler/apis/config (v1.37 is the default release): the plugins'
// names (names.go, the role of kube's plugins/names), the generic args
// helpers (Args, ArgsFrom, NewPlugin, NoArgs), the args vocabulary more
// than one plugin uses (ResourceSpec, UtilizationShapePoint,
// ValidateShape) and Koordinator's LoadAwareScheduling's args, which its
// estimators also receive (estimator.Options.Args). A
// plugin that lives in a home package of its own (filter/<plugin>,
// scoring/<plugin>) keeps its args there; config never imports a home.
package config
