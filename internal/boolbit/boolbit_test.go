package boolbit

import "testing"

func TestOf(t *testing.T) {
	for _, c := range []struct {
		b    bool
		want uint8
	}{{true, 1}, {false, 0}} {
		if got := Of(c.b); got != c.want {
			t.Errorf("Of(%v) = %d, want %d", c.b, got, c.want)
		}
	}
}
