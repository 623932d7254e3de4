// Package gcmark keeps a garbage collection marking, for benchmarks that
// measure what a cycle costs while one does: a program that embeds the
// library allocates on its own, and during marking every pointer stored
// into scanned memory goes through the write barrier.
package gcmark

import "runtime"

// Start runs garbage collections back to back on another goroutine, so
// that one is marking nearly all the time, and returns the function that
// stops them and waits for the last to end.
func Start() (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-quit:
				return
			default:
				runtime.GC()
			}
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}
