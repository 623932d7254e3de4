package configfile

import (
	"bytes"
	"encoding/json"
	"fmt"

	"sigs.k8s.io/yaml"
)

// DecodePluginArgs decodes one plugin's args in their
// kubescheduler.config.k8s.io/v1 form (what a pluginConfig entry holds
// under args), YAML or JSON, without a whole KubeSchedulerConfiguration:
// apiVersion and kind (<Plugin>Args) are optional, fields are strict (an
// unknown field or a value of the wrong type is an error), durations are
// strings such as "5m". The args are defaulted and validated as Load
// defaults and validates them (NodeResourcesFit's and LoadAwareScheduling's
// too, which Load checks only for enabled plugins), and returned as
// the plugin's typed args (noderesources.NodeResourcesFitArgs,
// config.LoadAwareSchedulingArgs, …, or the DefaultArgs type of a plugin
// given with WithPlugins), ready for framework.Profile.Args. Empty
// data gives the defaults. A plugin that takes no args gives nil (its data
// must be empty or {}). Errors name the field under "args", e.g.
// args.usageThresholds.cpu: 120: must be within [0,100].
func DecodePluginArgs(plugin string, data []byte, opts ...Option) (any, error) {
	l, err := newLoader(opts)
	if err != nil {
		return nil, err
	}
	if err := l.init(); err != nil {
		return nil, err
	}
	fail := func(err error) (any, error) { return nil, fmt.Errorf("configfile: %s args: %w", plugin, err) }
	var raw json.RawMessage
	if len(bytes.TrimSpace(data)) > 0 {
		j, err := yaml.YAMLToJSONStrict(data)
		if err != nil {
			return fail(fmt.Errorf("decoding: %w", err))
		}
		raw = j
	}
	a, err := l.decodeArgs("", plugin, raw)
	if err != nil {
		return fail(err)
	}
	if a.verr != nil {
		return fail(a.verr)
	}
	if _, registered := l.specs[plugin]; !registered {
		return fail(fmt.Errorf("plugin %q is not among the plugins given (WithPlugins)", plugin))
	}
	return a.value, nil
}
