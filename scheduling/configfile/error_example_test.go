package configfile_test

import (
	"errors"
	"fmt"

	"github.com/schedkit/schedkit/scheduling/configfile"
)

// ExampleFieldError finds the field paths of a configuration's
// errors: Load joins one FieldError per problem.
func ExampleFieldError() {
	_, err := configfile.Load([]byte(`
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
parallelism: 0
profiles:
- schedulerName: a
  percentageOfNodesToScore: 120
`))
	var fe *configfile.FieldError
	if errors.As(err, &fe) {
		fmt.Println("first:", fe.Path())
	}
	var all interface{ Unwrap() []error }
	if errors.As(err, &all) {
		for _, e := range all.Unwrap() {
			if errors.As(e, &fe) {
				fmt.Printf("%s: %s\n", fe.Path(), fe.Detail())
			}
		}
	}
	// Output:
	// first: parallelism
	// parallelism: 0: should be an integer value greater than zero
	// profiles[0].percentageOfNodesToScore: 120: not in valid range [0-100]
}
