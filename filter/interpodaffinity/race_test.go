//go:build race

package interpodaffinity

// raceEnabled: the race detector is on (sync.Pool then drops items at
// random, so pooled buffers are not reused reliably).
const raceEnabled = true
