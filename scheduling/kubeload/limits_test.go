package kubeload

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/internal/jsonkeys"
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

// TestReportLimit: a dump with very many distinct unknown fields, or
// objects of very many kinds, gives a report of bounded size: past
// Options.MaxReportEntries (DefaultMaxReportEntries when zero) further
// distinct field paths, and kinds, are counted together; the fields that
// mean an unmodelled scheduling feature are still found.
func TestReportLimit(t *testing.T) {
	const n = 3000
	var fields, kinds strings.Builder
	for i := range n {
		fmt.Fprintf(&fields, `"junk%d":%d,`, i, i)
		fmt.Fprintf(&kinds, `{"apiVersion":"example.com/v1","kind":"Kind%d","metadata":{"name":"x"}}`, i)
	}
	dump := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"a"},"spec":{` + fields.String() +
		`"volumes":[{"name":"v","azureFile":{"secretName":"s","shareName":"x"}}],"containers":[{"name":"c"}]}}` + kinds.String()
	for _, tc := range []struct {
		name  string
		max   int
		limit int
	}{{"default", 0, DefaultMaxReportEntries}, {"option", 10, 10}} {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLoader(Options{MaxReportEntries: tc.max})
			if err := l.ReadBytes([]byte(dump), "many.json"); err != nil {
				t.Fatal(err)
			}
			d, err := l.Dump()
			if err != nil {
				t.Fatal(err)
			}
			r := d.Report
			junk, other, otherVolume := 0, 0, 0
			for _, f := range r.Ignored {
				switch {
				case strings.HasPrefix(f.Path, "spec.junk"):
					junk++
				case f.Path == "spec."+OtherFields:
					other = f.Count
				case f.Path == "spec.volumes[]."+OtherFields:
					otherVolume = f.Count
				}
			}
			// The azureFile volume comes after the junk: counted together
			// with the other fields past the limit under its parent's path.
			if junk != tc.limit || other != n-tc.limit || otherVolume != 1 {
				t.Errorf("%d junk rows, %d fields and %d volume fields counted together, want %d, %d and 1", junk, other, otherVolume, tc.limit, n-tc.limit)
			}
			kindRows, otherKinds := 0, 0
			for _, k := range r.Unknown {
				if k.Kind == OtherKinds {
					otherKinds = k.Count
				} else {
					kindRows++
				}
			}
			if kindRows != tc.limit || otherKinds != n-tc.limit {
				t.Errorf("%d kind rows and %d objects of other kinds, want %d and %d", kindRows, otherKinds, tc.limit, n-tc.limit)
			}
			if len(r.Features) != 1 {
				t.Errorf("features %+v: the pod's azureFile volume, past the limit, is lost", r.Features)
			}
			var b strings.Builder
			if err := r.Write(&b, 2); err != nil {
				t.Fatal(err)
			}
			if max := 300 + 2*tc.limit*60; b.Len() > max {
				t.Errorf("report of %d bytes, want at most %d", b.Len(), max)
			}
			if !strings.Contains(b.String(), fmt.Sprintf("limit of %d", tc.limit)) {
				t.Errorf("the printed report does not name the limit:\n%.2000s", b.String())
			}
		})
	}
}

// TestAmountsOutOfRange: a quantity too large for the int64 unit the
// scheduler counts it in (cpu in milli-units, others in units) is an error
// naming the object, the field and the value, not a silent saturation.
func TestAmountsOutOfRange(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"cpu request", podJSON("p", `,"overhead":{"cpu":"1e309"}`), `Pod default/p: spec.overhead.cpu: resource: cpu quantity "1e309": too large`},
		{"cpu as a number", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":1e309}}}]}}`,
			`Pod p: spec.containers[0].resources.requests.cpu: resource: cpu quantity "1e309": too large: cpu is counted in int64 milli-units`},
		{"node memory", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"},"status":{"allocatable":{"memory":"1e19"}}}`,
			`Node n: status.allocatable.memory: resource: memory quantity "10e18": too large: memory is counted in int64 units`},
		{"extended resource", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"},"status":{"capacity":{"nvidia.com/gpu":"99999999999999999999"}}}`,
			`Node n: status.capacity."nvidia.com/gpu": resource: nvidia.com/gpu quantity "99999999999999999999": too large`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := NewLoader(Options{}).ReadBytes([]byte(tc.data), "in")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
	// The largest amounts that fit are read exactly.
	d := load(t, Options{}, "in", `{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"},"status":{"allocatable":{"cpu":"9223372036854775807m","memory":"9223372036854775807"}}}`)
	if a := d.Nodes[0].Status.Allocatable; a["cpu"].MilliValue() != 1<<63-1 || a["memory"].Value() != 1<<63-1 {
		t.Errorf("allocatable %v", a)
	}
}

// TestErrorEchoIsBounded: a huge value or name in the input is named in an
// error by its first bytes and its length.
func TestErrorEchoIsBounded(t *testing.T) {
	huge := strings.Repeat("9", 1_000_000)
	long := strings.Repeat("n", 1_000_000)
	for _, tc := range []struct{ name, data, want string }{
		{"quantity", podJSON("p", `,"overhead":{"cpu":"`+huge+`"}`), `spec.overhead.cpu: resource: quantity "99999`},
		{"number", podJSON("p", `,"priority":`+huge), `spec.priority: number 99999`},
		{"name", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + long + `"},"spec":{"overhead":{"cpu":"x"}}}`, `Pod nnnnn`},
		{"kind", `{"apiVersion":"v1","kind":"` + long + `","metadata":{"name":"x"}}`, ``},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := NewLoader(Options{})
			err := l.ReadBytes([]byte(tc.data), "in")
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				d, _ := l.Dump()
				var b strings.Builder
				if err := d.Report.Write(&b, 2); err != nil || b.Len() > 400 {
					t.Fatalf("report of %d bytes (%v): %.400s", b.Len(), err, b.String())
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || len(err.Error()) > 400 {
				t.Fatalf("error of %d bytes: %.400s\nwant it to contain %q", len(fmt.Sprint(err)), err, tc.want)
			}
		})
	}
}

// TestNestingLimit: JSON nested deeper than 10,000 levels (encoding/json's
// and go-yaml's limit) is an error naming the limit: the decoder recurses
// per level, and a few megabytes of "[" would otherwise grow its stack to
// the runtime's limit and crash the program.
func TestNestingLimit(t *testing.T) {
	for _, n := range []int{jsonkeys.MaxDepth - 10, jsonkeys.MaxDepth + 1, 200_000} {
		dump := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"junk":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}}`
		err := NewLoader(Options{}).ReadBytes([]byte(dump), "deep.json")
		if n < jsonkeys.MaxDepth {
			if err != nil {
				t.Errorf("depth %d: %v", n, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "deep.json:1:") || !strings.Contains(err.Error(), "nested deeper than 10000") {
			t.Errorf("depth %d: error %v", n, err)
		}
	}
}

// allocatedBy returns the bytes the heap allocated while f ran.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestGzipMemoryIsBounded: a gzip stream that decompresses past the limit
// is refused having allocated a small fraction of the limit, and the size
// a gzip trailer records is never trusted: a stream of a hundred bytes
// whose trailer claims 4 GiB allocates no more than an honest one. An
// input within the limit is decompressed into one buffer of its size.
func TestGzipMemoryIsBounded(t *testing.T) {
	const max = 64 << 20
	bomb := gzipOf(t, bytes.Repeat([]byte(" "), 4*max))
	node := []byte(fmt.Sprintf(nodeJSON, "n1"))
	liar := gzipOf(t, node)
	copy(liar[len(liar)-4:], []byte{0xff, 0xff, 0xff, 0xff})
	bigNode := append(bytes.Repeat([]byte(" "), max/2), node...)
	for _, tc := range []struct {
		name    string
		data    []byte
		want    string // "" reads
		maxHeap uint64
	}{
		{"bomb", bomb, fmt.Sprintf("gzip: decompresses to more than %d bytes", max), max / 16},
		{"lying trailer", liar, "gzip: invalid checksum", max / 16},
		{"within the limit", gzipOf(t, bigNode), "", uint64(len(bigNode)) + max/16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			heap := allocatedBy(func() { err = NewLoader(Options{MaxInputBytes: max}).ReadBytes(tc.data, "z.json.gz") })
			switch {
			case tc.want == "" && err != nil:
				t.Fatal(err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if heap > tc.maxHeap {
				t.Errorf("reading %d bytes of gzip allocated %d bytes, want at most %d (limit %d)", len(tc.data), heap, tc.maxHeap, max)
			}
		})
	}
}

// byteCount is a writer that counts the bytes written to it.
type byteCount int64

func (c *byteCount) Write(p []byte) (int, error) { *c += byteCount(len(p)); return len(p), nil }

// TestGunzipStopsPastTheLimit: the size of a gzip stream is found by
// reading limit+1 decompressed bytes of a stream past the limit, and not
// one more; a stream within the limit decompresses into a buffer of
// exactly its size.
func TestGunzipStopsPastTheLimit(t *testing.T) {
	const max = 1 << 20
	opts := Options{MaxInputBytes: max}
	for _, size := range []int{0, max, max + 1, 10 * max} {
		data := gzipOf(t, bytes.Repeat([]byte("x"), size))
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		var read byteCount
		n, err := readSize(io.TeeReader(zr, &read), max)
		if want := min(int64(size), max+1); int64(read) != want || n != want || err != nil {
			t.Errorf("%d bytes: size %d, %v, having read %d bytes, want %d", size, n, err, read, want)
		}
		out, err := opts.gunzip(data, "z.gz")
		switch {
		case size <= max && (err != nil || len(out) != size || cap(out) != size):
			t.Errorf("%d bytes: got %d (cap %d), %v", size, len(out), cap(out), err)
		case size > max && (err == nil || !strings.Contains(err.Error(), "z.gz: gzip: decompresses to more than 1048576 bytes (Options.MaxInputBytes)")):
			t.Errorf("%d bytes: error %v", size, err)
		}
	}
}
