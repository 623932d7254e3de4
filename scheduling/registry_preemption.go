package scheduling

// defaultPostFilter lists the default PostFilter plugins; DefaultPreemption
// joins when it is registered (see preemption.go).
func defaultPostFilter() []string { return nil }
