package kubeload

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/internal/jsonkeys"
)

// DefaultSchedulerName is the schedulerName of pods that name none.
const DefaultSchedulerName = "default-scheduler"

// Options tune how a dump becomes a cluster.
type Options struct {
	// SchedulerNames are the schedulerNames of the profiles that will
	// schedule the cluster's pending pods. A pending pod naming another
	// scheduler is left out of the dump and reported, as kube-scheduler
	// ignores pods it is not responsible for (its placed pods are kept:
	// they hold resources whoever placed them). Empty means
	// DefaultSchedulerName.
	SchedulerNames []string
	// MaxInputBytes bounds one input (a file, a reader, bytes), counted
	// after gzip decompression: larger input is an error naming the
	// limit, found before more than the limit is read or decompressed.
	// 0 means DefaultMaxInputBytes.
	MaxInputBytes int64
	// MaxReportEntries bounds the distinct ignored-field paths, and the
	// distinct kinds the loader does not read, that the Report lists
	// (each): past it, further ones are counted together, under the path
	// ending in OtherFields and under the kind OtherKinds. 0 means
	// DefaultMaxReportEntries.
	MaxReportEntries int
}

// DefaultMaxReportEntries is the number of distinct ignored-field paths,
// and of distinct unread kinds, a Report lists unless
// Options.MaxReportEntries says otherwise. A dump of a real cluster has
// about a hundred of the former and a few of the latter.
const DefaultMaxReportEntries = 1000

func (o Options) maxReport() int {
	if o.MaxReportEntries > 0 {
		return o.MaxReportEntries
	}
	return DefaultMaxReportEntries
}

// DefaultMaxInputBytes is the largest input a Loader reads unless
// Options.MaxInputBytes says otherwise: 1 GiB, about 100,000 pods as
// `kubectl get -o json` prints them with their managedFields. A gzip
// stream of a few megabytes can decompress to gigabytes: the loader
// measures the decompressed size before it keeps any of it, and refuses a
// stream past the limit having decompressed limit+1 bytes into a
// buffer of a few kilobytes.
const DefaultMaxInputBytes = 1 << 30

func (o Options) maxInput() int64 {
	if o.MaxInputBytes > 0 {
		return o.MaxInputBytes
	}
	return DefaultMaxInputBytes
}

// tooLarge is the error of an input past the limit.
func (o Options) tooLarge(name, what string) error {
	return fmt.Errorf("kubeload: %s: %s more than %d bytes (Options.MaxInputBytes)", name, what, o.maxInput())
}

// readLimited reads r up to the limit: a read error is wrapped with
// prefix, more than the limit is the error tooLarge names. hint, when
// positive, is the expected size (a file's): the buffer is allocated once
// at that size, capped at the limit.
func (o Options) readLimited(r io.Reader, hint int64, name, prefix, what string) ([]byte, error) {
	max := o.maxInput()
	size := int64(512)
	if hint > 0 {
		size = min(hint, max) + 1 // +1: to see the end without growing
	}
	buf := make([]byte, 0, size)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > max {
			return nil, o.tooLarge(name, what)
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, fmt.Errorf("kubeload: %s%w", prefix, err)
		}
	}
}

// gunzip decompresses a gzip stream (of one or more members) of at most
// the limit's decompressed bytes. It decompresses twice: first to count
// the bytes, keeping none and stopping at limit+1, then into one buffer of
// the size counted. The size a gzip trailer records is not used: a
// trailer can claim any size, and the stream's checksum is checked only at
// its end.
func (o Options) gunzip(data []byte, name string) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("kubeload: %s: %w", name, err)
	}
	n, err := readSize(zr, o.maxInput())
	if err != nil {
		return nil, fmt.Errorf("kubeload: %s: %w", name, err)
	}
	if n > o.maxInput() {
		return nil, o.tooLarge(name, "gzip: decompresses to")
	}
	if err := zr.Reset(bytes.NewReader(data)); err != nil {
		return nil, fmt.Errorf("kubeload: %s: %w", name, err)
	}
	out := make([]byte, n)
	if _, err := io.ReadFull(zr, out); err != nil {
		return nil, fmt.Errorf("kubeload: %s: %w", name, err)
	}
	return out, nil
}

// readSize reads r to its end and returns the number of bytes it holds,
// or max+1 having read max+1 bytes.
func readSize(r io.Reader, max int64) (int64, error) {
	var buf [32 << 10]byte
	var n int64
	for n <= max {
		k, err := r.Read(buf[:min(int64(len(buf)), max+1-n)])
		n += int64(k)
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// source locates one object in the input: the file, the document (from 1),
// the item of a List (from 0, -1 when the document is the object) and a
// line (the item's in JSON input, the document's first in YAML input).
type source struct {
	file string
	doc  int
	item int
	line int
	yaml bool
}

func (s source) String() string {
	var b strings.Builder
	if s.yaml {
		fmt.Fprintf(&b, "%s: document %d (line %d)", s.file, s.doc, s.line)
	} else {
		fmt.Fprintf(&b, "%s:%d: document %d", s.file, s.line, s.doc)
	}
	if s.item >= 0 {
		fmt.Fprintf(&b, ", items[%d]", s.item)
	}
	return b.String()
}

// objectKey identifies an object for duplicate detection.
type objectKey struct{ kind, namespace, name string }

// loadedPod is a pod as read, with where it came from and the unmodelled
// features it uses.
type loadedPod struct {
	pod      *api.Pod
	src      source
	features []string
}

// Loader reads kubectl output into a Dump. Read files (or readers) into it
// one after the other, then call Dump once. A Loader is not safe for
// concurrent use.
type Loader struct {
	opts    Options
	kinds   map[string]*kindSpec
	schemas schemas
	paths   map[string]*pathNode
	dec     decoder
	strings map[string]string // interned strings (decoder.text)
	seen    map[objectKey]source
	// topKeys and objKeys check that no object of a document repeats a
	// key (the document's decoder's and its objects' decoder's).
	topKeys, objKeys jsonkeys.Seen

	nodes       []*api.Node
	pods        []loadedPod
	namespaces  []api.Namespace
	services    []api.Service
	controllers []api.WorkloadController
	pdbs        []api.PodDisruptionBudget
	classes     []PriorityClass
	metrics     []*api.NodeMetric
	storage     api.StorageObjects
	dra         api.DRAObjects
	podGroups   []*api.PodGroup
	// kubePodGroups are kube-scheduler's PodGroups (scheduling.k8s.io).
	kubePodGroups []*api.WorkloadPodGroup
	// kubeWorkloads are kube-scheduler's Workloads (scheduling.k8s.io).
	kubeWorkloads []*api.Workload
	templates     []*Template

	documents int
	read      map[string]int
	unknown   map[[2]string]int
	skipped   []ObjectNote
	notes     []ObjectNote
	done      bool

	// otherKinds counts the objects of unread kinds past the report's
	// limit; pathBudget bounds the distinct ignored-field paths.
	otherKinds int
	pathBudget pathBudget
	// nsOrder are the namespaces the objects read name, in the order
	// first named, and nsFirst where (namespaces.go).
	nsOrder []string
	nsFirst map[string]source
}

// NewLoader returns an empty loader.
func NewLoader(opts Options) *Loader { return newLoader(opts, kindSpecs()) }

func newLoader(opts Options, specs []kindSpec) *Loader {
	l := &Loader{opts: opts, kinds: map[string]*kindSpec{}, schemas: schemas{}, paths: map[string]*pathNode{}, strings: map[string]string{},
		seen: map[objectKey]source{}, read: map[string]int{}, unknown: map[[2]string]int{}, pathBudget: pathBudget{left: opts.maxReport()}}
	for _, k := range specs {
		l.kinds[k.group+"/"+k.kind] = &k
		l.paths[k.name()] = newPathRoot(k.feature)
	}
	return l
}

// Load reads the files (JSON or YAML, gzip-compressed or not) into one
// Dump.
func Load(opts Options, paths ...string) (*Dump, error) {
	l := NewLoader(opts)
	for _, p := range paths {
		if err := l.ReadFile(p); err != nil {
			return nil, err
		}
	}
	return l.Dump()
}

// ReadFile reads one file; see Read.
func (l *Loader) ReadFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("kubeload: %w", err)
	}
	defer f.Close()
	var hint int64
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		if st.Size() > l.opts.maxInput() {
			return l.opts.tooLarge(path, "holds")
		}
		hint = st.Size()
	}
	data, err := l.opts.readLimited(f, hint, path, path+": ", "holds")
	if err != nil {
		return err
	}
	return l.ReadBytes(data, path)
}

// Read reads what `kubectl get -o json` or `-o yaml` prints, named name in
// messages: one object, a List (kubectl's List or an API list such as
// PodList), a stream of JSON objects, or YAML documents separated by
// "---", each a List or an object, of any mix of kinds; gzip-compressed
// input is recognised by its magic number.
//
// Objects of the kinds the loader knows (Node, Pod, Namespace, Service,
// ReplicaSet, StatefulSet, ReplicationController, PriorityClass,
// PodDisruptionBudget, the storage objects PersistentVolume,
// PersistentVolumeClaim, StorageClass, CSINode, CSIDriver,
// CSIStorageCapacity and VolumeAttachment, scheduler-plugins' and kube's
// PodGroup, kube's Workload, Koordinator's NodeMetric) decode field by field:
// a field schedkit models must hold a valid value (an invalid quantity is
// an error naming the document, the object and the field path), any other
// field is skipped and counted in the report. Objects of other kinds are
// counted and skipped. A key given twice in one object is an error naming
// the document, the object and the key's field path, as kube-apiserver's
// strict field validation refuses it. A duplicate object (same kind,
// namespace and name) is an error naming both places.
func (l *Loader) Read(r io.Reader, name string) error {
	data, err := l.opts.readLimited(r, 0, name, name+": ", "holds")
	if err != nil {
		return err
	}
	return l.ReadBytes(data, name)
}

// ReadBytes is Read on bytes in memory.
func (l *Loader) ReadBytes(data []byte, name string) error {
	if l.done {
		return errors.New("kubeload: Read after Dump")
	}
	if int64(len(data)) > l.opts.maxInput() {
		return l.opts.tooLarge(name, "holds")
	}
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		var err error
		if data, err = l.opts.gunzip(data, name); err != nil {
			return err
		}
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	first := bytes.TrimLeft(data, " \t\r\n")
	switch {
	case len(first) == 0:
		return fmt.Errorf("kubeload: %s: empty input: want kubectl's JSON or YAML output", name)
	case first[0] == '{':
		return l.readJSON(data, name)
	case first[0] == '[':
		return fmt.Errorf("kubeload: %s: a JSON array is not a Kubernetes object (kubectl prints several objects as a List)", name)
	}
	return l.readYAML(data, name)
}

// readJSON reads a stream of JSON objects.
func (l *Loader) readJSON(data []byte, name string) error {
	d := &decoder{data: data}
	lc := &lineCounter{data: data, line: 1}
	for doc := 1; ; doc++ {
		if d.peek() == 0 {
			if doc == 1 {
				return fmt.Errorf("kubeload: %s: no objects", name)
			}
			return nil
		}
		src := source{file: name, doc: doc, item: -1, line: lc.at(d.i)}
		if d.data[d.i] != '{' {
			return fmt.Errorf("kubeload: %s: want a JSON object, got %q", src, d.data[d.i])
		}
		if err := l.readTop(d, src, lc); err != nil {
			return err
		}
	}
}

// lineCounter turns increasing byte offsets into line numbers.
type lineCounter struct {
	data []byte
	off  int
	line int
}

func (c *lineCounter) at(off int) int {
	if off < c.off { // not monotonic: count again from the start
		c.off, c.line = 0, 1
	}
	c.line += bytes.Count(c.data[c.off:off], []byte{'\n'})
	c.off = off
	return c.line
}

// wrapError names where an error happened: the line and column of a JSON
// syntax error (in JSON input), or the source.
func (l *Loader) wrapError(src source, lc *lineCounter, err error) error {
	var se *syntaxError
	if !errors.As(err, &se) {
		return err
	}
	if lc != nil {
		line := lc.at(se.off)
		col := se.off - bytes.LastIndexByte(lc.data[:se.off], '\n')
		return fmt.Errorf("kubeload: %s:%d:%d: invalid JSON: %s", src.file, line, col, se.msg)
	}
	return fmt.Errorf("kubeload: %s: invalid JSON: %w", src, err)
}

// readYAML reads YAML documents, each converted to JSON as kubectl and the
// API server do (sigs.k8s.io/yaml).
func (l *Loader) readYAML(data []byte, name string) error {
	docs := splitYAML(data)
	n := 0
	for i, doc := range docs {
		src := source{file: name, doc: i + 1, item: -1, line: doc.line, yaml: true}
		js, err := yamlToJSON(doc.text, src)
		if err != nil {
			return err
		}
		js = bytes.TrimSpace(js)
		if len(js) == 0 || string(js) == "null" {
			continue // an empty document
		}
		if js[0] != '{' {
			return fmt.Errorf("kubeload: %s: not a Kubernetes object (a YAML %s)", src, jsonKind(js[0]))
		}
		n++
		if err := l.readTop(&decoder{data: js}, src, nil); err != nil {
			return err
		}
	}
	if n == 0 {
		return fmt.Errorf("kubeload: %s: no objects", name)
	}
	return nil
}

func jsonKind(c byte) string {
	switch c {
	case '[':
		return "list"
	case '"':
		return "string"
	}
	return "scalar"
}

// yamlDoc is one YAML document and the line it starts on.
type yamlDoc struct {
	text []byte
	line int
}

// splitYAML splits a YAML stream at "---" lines (a "..." line ends a
// document).
func splitYAML(data []byte) []yamlDoc {
	var docs []yamlDoc
	cur := yamlDoc{line: 1}
	start := 0
	line := 1
	flush := func(end int) {
		cur.text = data[start:end]
		docs = append(docs, cur)
	}
	for off := 0; off < len(data); {
		end := bytes.IndexByte(data[off:], '\n')
		next := len(data)
		if end >= 0 {
			end += off
			next = end + 1
		} else {
			end = len(data)
		}
		text := bytes.TrimRight(data[off:end], "\r")
		switch {
		case bytes.HasPrefix(text, []byte("---")) && (len(text) == 3 || text[3] == ' ' || text[3] == '\t'):
			flush(off)
			cur = yamlDoc{line: line}
			start = off + 3 // what follows "---" on its line belongs to the new document
		case string(text) == "...":
			flush(off)
			cur = yamlDoc{line: line + 1}
			start = next
		}
		off = next
		line++
	}
	flush(len(data))
	return docs
}

func isListKind(kind string) bool { return strings.HasSuffix(kind, "List") }

// readTop reads the top-level object at d.i — an object or a List — and
// leaves d after it. kubectl prints apiVersion and kind first in every
// object, so an object is decoded in one pass; a List (whose kind follows
// its items) is walked once to find its kind, then its items are decoded
// one pass each.
func (l *Loader) readTop(d *decoder, src source, lc *lineCounter) error {
	start := d.i
	err := l.readTopKeys(d, src, lc)
	if errors.Is(err, errDuplicateKey) {
		return checkDuplicates(d.data, start, src, lc)
	}
	return err
}

// readTopKeys is readTop with every object's keys checked for one given
// twice (errDuplicateKey).
func (l *Loader) readTopKeys(d *decoder, src source, lc *lineCounter) error {
	l.documents++
	start := d.i
	l.topKeys.Reset(d.data)
	d.seen = &l.topKeys
	if apiVersion, kind, ok := peekEnvelope(d.data, start); ok && !isListKind(kind) {
		return l.wrapError(src, lc, l.readObjectAt(d, apiVersion, kind, src))
	}
	var apiVersion, kind string
	items := -1
	err := d.entries(func(key []byte) error {
		switch string(key) {
		case "apiVersion", "kind":
			return d.envelopeField(key, &apiVersion, &kind)
		case "items":
			items = d.i
			return d.skipFast()
		}
		_, err := d.skip()
		return err
	})
	switch {
	case err != nil:
		if _, ok := err.(*syntaxError); ok {
			return l.wrapError(src, lc, err)
		}
		return fmt.Errorf("kubeload: %s: %w", src, err)
	case kind == "":
		return fmt.Errorf("kubeload: %s: not a Kubernetes object: no kind", src)
	case !isListKind(kind):
		end := d.i
		d.i = start
		if err := l.readObjectAt(d, apiVersion, kind, src); err != nil {
			return l.wrapError(src, lc, err)
		}
		d.i = end
		return nil
	case items < 0:
		return fmt.Errorf("kubeload: %s: %s without items", src, kind)
	}
	end := d.i
	d.i = items
	if err := l.readItems(d, src, lc, apiVersion, kind); err != nil {
		return l.wrapError(src, lc, err)
	}
	d.i = end
	return nil
}

// readItems reads the items array of a List at d.i. Items of an API list
// (PodList, ...) carry no kind or apiVersion: they take the list's.
func (l *Loader) readItems(d *decoder, src source, lc *lineCounter, apiVersion, kind string) error {
	if d.peek() == 'n' && d.literal("null") {
		return nil
	}
	if d.peek() != '[' {
		return fmt.Errorf("kubeload: %s: %s items: want an array, got %s", src, kind, d.kindName())
	}
	return d.elements(func(item int) error {
		isrc := src
		isrc.item = item
		if d.peek() != '{' {
			return fmt.Errorf("kubeload: %s: want an object, got %s", isrc, d.kindName())
		}
		start := d.i
		if lc != nil {
			isrc.line = lc.at(start)
		}
		iv, ik, ok := peekEnvelope(d.data, start)
		if !ok {
			if _, err := d.skip(); err != nil {
				return err
			}
			var err error
			if iv, ik, err = scanEnvelope(d.data[start:d.i]); err != nil {
				return fmt.Errorf("kubeload: %s: %w", isrc, err)
			}
			d.i = start
		}
		if ik == "" && kind != "List" {
			ik, iv = strings.TrimSuffix(kind, "List"), apiVersion
		}
		if ik == "" {
			return fmt.Errorf("kubeload: %s: not a Kubernetes object: no kind", isrc)
		}
		return l.readObjectAt(d, iv, ik, isrc)
	})
}

// readObjectAt decodes the object at d.i, of a known kind, and adds it;
// objects of other kinds are skipped and counted. d is left after it.
func (l *Loader) readObjectAt(d *decoder, apiVersion, kind string, src source) error {
	group, version := splitAPIVersion(apiVersion)
	ks := l.kinds[group+"/"+kind]
	if ks == nil || !slices.Contains(ks.versions, version) {
		k := [2]string{shortText(apiVersion), shortText(kind)}
		if _, ok := l.unknown[k]; ok || len(l.unknown) < l.opts.maxReport() {
			l.unknown[k]++
		} else {
			l.otherKinds++
		}
		_, err := d.skip()
		return err
	}
	start := d.i
	obj := ks.newObj()
	l.objKeys.Reset(d.data)
	l.dec = decoder{data: d.data, i: start, path: l.dec.path[:0], features: l.dec.features[:0], scratch: l.dec.scratch, strings: l.strings,
		seen: &l.objKeys, budget: &l.pathBudget}
	v := reflect.ValueOf(obj).Elem()
	name := ks.name()
	err := l.dec.decode(v, l.schemas.of(v.Type()), l.paths[name])
	d.i = l.dec.i
	if err != nil {
		if _, ok := err.(*syntaxError); ok {
			return err
		}
		return objectError(src, name, d.data, start, err)
	}
	l.read[name]++
	if err := ks.add(l, obj, src); err != nil {
		return objectError(src, name, d.data, start, err)
	}
	return nil
}

func splitAPIVersion(apiVersion string) (group, version string) {
	if g, v, ok := strings.Cut(apiVersion, "/"); ok {
		return g, v
	}
	return "", apiVersion
}

// objectError names the object at start that an error is about (as far as
// its metadata can be read).
func objectError(src source, kind string, data []byte, start int, err error) error {
	name := shortText(objectName(data, start))
	if name == "" {
		name = "(unnamed)"
	}
	return fmt.Errorf("kubeload: %s: %s %s: %w", src, kind, name, err)
}

// objectName reads metadata.namespace/name of the object at start, as far
// as the JSON is well formed; "" when it cannot.
func objectName(data []byte, start int) string {
	d := &decoder{data: data, i: start}
	var name, ns string
	found := errors.New("found")
	_ = d.entries(func(key []byte) error {
		if string(key) != "metadata" {
			_, err := d.skip()
			return err
		}
		if err := d.entries(func(key []byte) error {
			k := string(key)
			if (k == "name" || k == "namespace") && d.peek() == '"' {
				b, err := d.str()
				if k == "name" {
					name = string(b)
				} else {
					ns = string(b)
				}
				return err
			}
			_, err := d.skip()
			return err
		}); err != nil {
			return err
		}
		return found
	})
	if ns != "" && name != "" {
		return ns + "/" + name
	}
	return name
}

// claim records an object's identity; a second object with the same kind,
// namespace and name is an error naming the first.
func (l *Loader) claim(kind, namespace, name string, src source) error {
	k := objectKey{kind, namespace, name}
	if first, dup := l.seen[k]; dup {
		return fmt.Errorf("duplicate %s: first read at %s", kind, first)
	}
	l.seen[k] = src
	l.noteNamespace(namespace, src)
	return nil
}

func (l *Loader) skip(src source, kind, object, reason, detail string) {
	l.skipped = append(l.skipped, ObjectNote{Source: src.String(), Kind: kind, Object: object, Reason: reason, Detail: detail})
}

func (l *Loader) note(src source, kind, object, reason, detail string) {
	l.notes = append(l.notes, ObjectNote{Source: src.String(), Kind: kind, Object: object, Reason: reason, Detail: detail})
}
