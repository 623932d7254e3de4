package cel

import "sync"

// Cache compiles each selector once in the Stored environment (the
// scheduler's) and keeps the program, or the compile error, for as long as
// the cache lives. Kubernetes keeps the last ten programs in an LRU cache
// and compiles again on a miss; the answers are the same, as compiling is
// deterministic. Cache is safe for concurrent use.
type Cache struct {
	compiler *Compiler
	mu       sync.RWMutex
	entries  map[string]cacheEntry
}

type cacheEntry struct {
	prog *Program
	err  error
}

// NewCache returns an empty cache over compiler.
func NewCache(compiler *Compiler) *Cache {
	return &Cache{compiler: compiler, entries: make(map[string]cacheEntry)}
}

// Get returns the compiled selector, compiling it on first use.
func (c *Cache) Get(expression string) (*Program, error) {
	c.mu.RLock()
	e, ok := c.entries[expression]
	c.mu.RUnlock()
	if ok {
		return e.prog, e.err
	}
	prog, err := c.compiler.Compile(expression, Stored, false)
	c.mu.Lock()
	if prev, ok := c.entries[expression]; ok {
		c.mu.Unlock()
		return prev.prog, prev.err
	}
	c.entries[expression] = cacheEntry{prog, err}
	c.mu.Unlock()
	return prog, err
}

// Len returns the number of selectors compiled so far.
func (c *Cache) Len() int {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return len(c.entries)
}

// Compiler returns the compiler the cache compiles with, whose NewInput
// prepares devices for the cache's programs.
func (c *Cache) Compiler() *Compiler { return c.compiler }
