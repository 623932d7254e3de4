package runtime

import "testing"

// TestSizedFilterChunkSize: a loop that stops early sizes its chunks to
// the positions still expected to be needed: on one worker from what the
// positions before the chunk found; on several from the positions done,
// less those already claimed, split among the workers, so that chunks
// under way count as what they are expected to find.
func TestSizedFilterChunkSize(t *testing.T) {
	for _, tc := range []struct {
		name                     string
		width                    int
		stop, found, checked, lo int64
		want                     int
	}{
		{"one worker, nothing found yet: as many as needed", 1, 501, 0, 0, 0, 501},
		{"one worker, a third fit: the rest at that share", 1, 501, 100, 300, 300, 1024},
		{"one worker, most fit", 1, 501, 400, 450, 450, 114},
		{"one worker, at least eight", 1, 501, 500, 500, 500, 8},
		{"two workers, nothing found yet: half of what is needed each", 2, 501, 0, 0, 0, 250},
		{"two workers, a third fit, nothing under way", 2, 501, 100, 300, 300, 601},
		{"two workers, a third fit, 600 positions under way", 2, 501, 100, 300, 900, 301},
		{"two workers, what is under way should do: a worker's chunk", 2, 501, 300, 600, 1700, 64},
		{"sixteen workers, nothing found yet: a worker's chunk each", 16, 501, 0, 0, 0, 64},
		{"two workers, few fit: at most seqChunk", 2, 501, 10, 1000, 1000, seqChunk},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &filterRun{stop: tc.stop, width: tc.width}
			r.found.Store(tc.found)
			r.checked.Store(tc.checked)
			if got := (sizedFilterRun{r}).ChunkSize(int(tc.lo)); got != tc.want {
				t.Errorf("ChunkSize(%d) = %d, want %d", tc.lo, got, tc.want)
			}
		})
	}
}
