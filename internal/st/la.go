package st

import (
	"sync"
	"time"

	fw "github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/builder"
)

// NodeMetricWrapper is builder.NodeMetricWrapper.
type NodeMetricWrapper = builder.NodeMetricWrapper

// MakeNodeMetric is builder.MakeNodeMetric.
func MakeNodeMetric(name string) *NodeMetricWrapper { return builder.MakeNodeMetric(name) }

// LAClock is a settable fake clock, safe for concurrent use.
type LAClock struct {
	mu  sync.Mutex
	now time.Time
}

// NewLAClock returns a clock reading now.
func NewLAClock(now time.Time) *LAClock { return &LAClock{now: now} }

// Now returns the clock's time.
func (c *LAClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

// Set moves the clock to t.
func (c *LAClock) Set(t time.Time) { c.mu.Lock(); c.now = t; c.mu.Unlock() }

// LAHandle is a minimal framework.Handle with a given clock.
type LAHandle struct{ C fw.Clock }

// Clock returns the handle's clock.
func (h LAHandle) Clock() fw.Clock { return h.C }

// Parallelism returns 1.
func (h LAHandle) Parallelism() int { return 1 }
