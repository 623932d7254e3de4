package config

import (
	"strings"
	"testing"

	"github.com/schedkit/schedkit/framework"
)

// testArgs stands for a plugin's args type.
type testArgs struct{ Defaulted bool }

type factoryTestPlugin struct{ args testArgs }

func (factoryTestPlugin) Name() string { return "Test" }

func TestNewPlugin(t *testing.T) {
	newPlugin := func(a testArgs, _ framework.Handle) (framework.Plugin, error) {
		return factoryTestPlugin{args: a}, nil
	}
	def := func() testArgs { return testArgs{Defaulted: true} }
	given := testArgs{}
	var nilArgs *testArgs
	for _, tc := range []struct {
		name        string
		args        any
		wantDefault bool
		wantErr     string
	}{
		{"nil means the defaults", nil, true, ""},
		{"nil pointer means the defaults", nilArgs, true, ""},
		{"a value is used as given", given, false, ""},
		{"a pointer is used as given", &given, false, ""},
		{"another type names the plugin and both types", 3, false, "Test: args of type int, want config.testArgs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pl, err := NewPlugin("Test", tc.args, nil, def, newPlugin)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := pl.(factoryTestPlugin).args.Defaulted; got != tc.wantDefault {
				t.Errorf("got the defaults = %v, want %v", got, tc.wantDefault)
			}
		})
	}
}

func TestNoArgs(t *testing.T) {
	if err := NoArgs("NodeName", nil); err != nil {
		t.Errorf("NoArgs(nil) = %v", err)
	}
	if err := NoArgs("NodeName", map[string]any{}); err == nil || err.Error() != "NodeName: takes no args, got map[string]interface {}" {
		t.Errorf("NoArgs(map) = %v", err)
	}
}
