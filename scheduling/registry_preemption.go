package scheduling

import "github.com/schedkit/schedkit/config"

// defaultPostFilter lists the default PostFilter plugins.
func defaultPostFilter() []string { return []string{config.DefaultPreemptionName} }
