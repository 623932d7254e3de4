//go:build race

package main

// raceDetector is set in builds with the race detector, where decoding and
// questioning the 4,600-pod sample takes minutes instead of seconds.
const raceDetector = true
