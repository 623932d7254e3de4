//go:build !race

package interpodaffinity

const raceEnabled = false
