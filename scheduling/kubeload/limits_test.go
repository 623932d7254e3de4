package kubeload

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gzipOf compresses data.
func gzipOf(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestInputLimit: one input is bounded after decompression, so that a
// small gzip stream of gigabytes of spaces is refused with an error naming
// the limit instead of being read whole; input at the limit is read.
func TestInputLimit(t *testing.T) {
	const max = 64 << 10
	node := []byte(fmt.Sprintf(nodeJSON, "n1"))
	atLimit := append(bytes.Repeat([]byte(" "), max-len(node)), node...)
	pastLimit := append([]byte(" "), atLimit...)
	dir := t.TempDir()
	file := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	want := fmt.Sprintf("more than %d bytes (Options.MaxInputBytes)", max)
	for _, tc := range []struct {
		name string
		read func(l *Loader) error
		want string // "" reads
	}{
		{"gzip bomb", func(l *Loader) error {
			return l.ReadBytes(gzipOf(t, bytes.Repeat([]byte(" "), 100*max)), "bomb.json.gz")
		}, "bomb.json.gz: gzip: decompresses to " + want},
		{"gzip past the limit", func(l *Loader) error { return l.ReadBytes(gzipOf(t, pastLimit), "z.json.gz") }, "z.json.gz: gzip: decompresses to " + want},
		{"gzip at the limit", func(l *Loader) error { return l.ReadBytes(gzipOf(t, atLimit), "z.json.gz") }, ""},
		{"reader past the limit", func(l *Loader) error { return l.Read(bytes.NewReader(pastLimit), "r.json") }, "r.json: holds " + want},
		{"reader at the limit", func(l *Loader) error { return l.Read(bytes.NewReader(atLimit), "r.json") }, ""},
		{"file past the limit", func(l *Loader) error { return l.ReadFile(file("big.json", pastLimit)) }, "big.json: holds " + want},
		{"gzip file past the limit", func(l *Loader) error { return l.ReadFile(file("big.json.gz", gzipOf(t, pastLimit))) }, "big.json.gz: gzip: decompresses to " + want},
		{"file at the limit", func(l *Loader) error { return l.ReadFile(file("ok.json", atLimit)) }, ""},
		{"bytes past the limit", func(l *Loader) error { return l.ReadBytes(pastLimit, "b.json") }, "b.json: holds " + want},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLoader(Options{MaxInputBytes: max})
			err := tc.read(l)
			switch {
			case tc.want == "" && err != nil:
				t.Fatal(err)
			case tc.want == "":
				if d, err := l.Dump(); err != nil || len(d.Nodes) != 1 {
					t.Fatalf("dump %v, %v", d, err)
				}
			case err == nil || !strings.Contains(err.Error(), tc.want):
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
	if DefaultMaxInputBytes != 1<<30 {
		t.Errorf("DefaultMaxInputBytes = %d, the documented 1 GiB is %d", DefaultMaxInputBytes, 1<<30)
	}
	// The default applies when the option is zero.
	if got := (Options{}).maxInput(); got != DefaultMaxInputBytes {
		t.Errorf("default limit %d", got)
	}
}
