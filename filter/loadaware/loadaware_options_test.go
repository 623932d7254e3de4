package loadaware

import (
	"strings"
	"testing"

	"github.com/schedkit/schedkit/config"
)

// WithSource shares a usage cache between two plugins (as between
// two profiles): the second reads, and Reserve updates, the first's cache.
func TestLoadAwareSchedulingWithSource(t *testing.T) {
	a, err := newLoadAwareScheduling(config.DefaultLoadAwareSchedulingArgs(), nil)
	if err != nil {
		t.Fatal(err)
	}
	cache := a.Cache()
	if cache == nil {
		t.Fatal("a plugin built without options has no cache of its own")
	}
	b, err := FactoryWith(WithSource(cache))(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.(*LoadAwareScheduling).Cache(); got != cache {
		t.Errorf("WithSource: the plugin's cache is %p, want the shared %p", got, cache)
	}
	if _, err := newLoadAwareScheduling(config.DefaultLoadAwareSchedulingArgs(), nil, WithSource(nil)); err == nil || !strings.Contains(err.Error(), "nil usage source") {
		t.Errorf("WithSource(nil): err = %v", err)
	}
}
