package configfile

import (
	"fmt"
	"strings"
	"testing"
)

// cfgProfiles is a configuration of n profiles named p0, p1, ….
func cfgProfiles(n int) string {
	var b strings.Builder
	b.WriteString(cfgHead + "profiles:\n")
	for i := range n {
		fmt.Fprintf(&b, "- schedulerName: p%d\n", i)
	}
	return b.String()
}

// TestConfigProfileBound: every profile instantiates its plugins, so a
// short file of many profiles costs the loader and the scheduler much: a
// configuration holds at most DefaultMaxProfiles profiles unless
// WithMaxProfiles says otherwise, and past it the error names the
// count, the bound and the option, before any profile is built.
func TestConfigProfileBound(t *testing.T) {
	for _, tc := range []struct {
		name string
		n    int
		opts []Option
		want string // "" loads
	}{
		{"default", DefaultMaxProfiles + 1, nil,
			fmt.Sprintf("configfile: configuration: profiles: %d: more than %d profiles (WithMaxProfiles)", DefaultMaxProfiles+1, DefaultMaxProfiles)},
		{"at the bound", 3, []Option{WithMaxProfiles(3)}, ""},
		{"past the bound", 4, []Option{WithMaxProfiles(3)}, "configfile: configuration: profiles: 4: more than 3 profiles (WithMaxProfiles)"},
		{"bad bound", 1, []Option{WithMaxProfiles(0)}, "configfile: configuration: WithMaxProfiles(0): must be positive"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Load([]byte(cfgProfiles(tc.n)), tc.opts...)
			switch {
			case tc.want == "" && err != nil:
				t.Fatal(err)
			case tc.want == "" && len(c.Profiles) != tc.n:
				t.Fatalf("%d profiles, want %d", len(c.Profiles), tc.n)
			case tc.want != "" && (err == nil || err.Error() != tc.want):
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}
