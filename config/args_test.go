package config

import "testing"

// TestArgsFrom: nil and a nil pointer give the default, a value or a
// pointer is taken as given, another type is an error naming the plugin
// and both types.
func TestArgsFrom(t *testing.T) {
	type testArgs struct{ Weight int32 }
	def := func() testArgs { return testArgs{Weight: 1} }
	given := testArgs{Weight: 5}
	for _, tc := range []struct {
		name string
		in   any
		want testArgs
		err  string
	}{
		{"nil", nil, def(), ""},
		{"nil pointer", (*testArgs)(nil), def(), ""},
		{"value", given, given, ""},
		{"pointer", &given, given, ""},
		{"wrong type", "x", testArgs{}, "p: args of type string, want config.testArgs"},
	} {
		got, err := ArgsFrom("p", tc.in, def)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("%s: err = %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
}
