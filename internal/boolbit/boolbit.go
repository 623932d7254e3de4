// Package boolbit turns a bool into a number without a branch, for the
// per-node loops that count or pack verdicts: the compiler makes Of a
// flag set (SETcc), and several flags can be or'ed as bytes before one
// widening.
package boolbit

// Of is 1 for true and 0 for false.
func Of(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}
