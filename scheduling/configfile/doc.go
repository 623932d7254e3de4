// Package configfile reads, merges, validates and writes
// KubeSchedulerConfiguration files (kubescheduler.config.k8s.io/v1; v1beta2
// and v1beta3 files are read in the v1 shape), turning one into the
// profiles, registry and options a scheduling.Scheduler runs with, as
// kube-scheduler does at start-up (v1.37 by default, v1.36 with
// WithKubeVersion):
//
//	cfg, err := configfile.LoadFile("config.yaml")
//	s, err := scheduling.New(cluster, cfg.Registry(), cfg.Profiles, cfg.SchedulerOptions()...)
//
// Map of the package:
//
//   - config.go: Configuration (the loaded profiles and scheduler-wide
//     settings, its Registry, SchedulerOptions and Write), Load, LoadFile
//     and the Options (WithPlugins, WithDefaultPlugins,
//     WithWorkloadFeatures, WithStorageCapacityScoring, WithMaxProfiles);
//     the loader that runs the steps below in kube's order.
//   - types.go: the file's wire types, kube's versioned types with
//     pointers for optional fields.
//   - decode.go: strict decoding (unknown fields, wrong types, version
//     differences) and FieldError, every error naming its field path.
//   - merge.go: merging the user's plugin sets with the defaults, multiPoint
//     expansion and score weights (kube's mergePluginSet, expandMultiPointPlugins,
//     getValidScoreWeights).
//   - args.go, pluginargs.go: each plugin's pluginConfig args decoded,
//     defaulted and validated into the typed args of package config;
//     DecodePluginArgs for one plugin's args alone.
//   - profile.go: Configuration.ProfileAs and the per-profile point lists.
//   - workload.go: the workload feature gates' plugins and the placement
//     extension points.
//   - extenders.go: the extenders section (HTTP extenders of
//     scheduling/extender), WithExtenderOptions and ExtenderConfigYAML.
//   - write.go: what kube-scheduler --write-config-to prints
//     (Configuration.Write).
package configfile
