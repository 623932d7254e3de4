package live

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/schedkit/schedkit/framework/api"
	"github.com/schedkit/schedkit/kube/convert"
	"github.com/schedkit/schedkit/scheduling/kubeload"
	"github.com/schedkit/schedkit/scheduling/whatif"
	"github.com/schedkit/schedkit/scheduling/whatif/whatifjson"
)

// Question is one what-if question about the live cluster, as
// kubectl-schedkit and the scheduler's HTTP endpoint take it.
type Question struct {
	// Command is "place" (Objects are pods, placed in order: CanPlace),
	// "capacity" (Objects is one pod template; Max bounds the replicas,
	// 0: whatif.DefaultMaxReplicas), "drain" (Nodes are drained) or
	// "scale-up" (Objects is one node template).
	Command string
	Objects []runtime.Object
	Nodes   []string
	Max     int
	// Output is "" or "text" for the answer written for people, "json"
	// for a whatifjson document (docs/whatif-json.md), whose explanations
	// list at most JSONNodes nodes each (0: all).
	Output    string
	JSONNodes int
}

// ErrBadQuestion wraps the error of a question that cannot be asked (an
// unknown command, objects of the wrong kind or number).
var ErrBadQuestion = errors.New("bad question")

// Answer answers q on the cluster as it is now and writes the answer for
// people, as kubectl-schedkit prints it, or with Output "json" as a
// whatifjson document. A question that cannot be asked is an error
// wrapping ErrBadQuestion.
func (l *Live) Answer(ctx context.Context, q Question, out io.Writer) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrBadQuestion, q.Command, fmt.Sprintf(format, args...))
	}
	var asJSON bool
	switch q.Output {
	case "", "text":
	case "json":
		asJSON = true
	default:
		return fmt.Errorf("%w: output %q: want text or json", ErrBadQuestion, q.Output)
	}
	if q.JSONNodes < 0 {
		return fmt.Errorf("%w: JSONNodes=%d: must not be negative (0 lists every node)", ErrBadQuestion, q.JSONNodes)
	}
	// answer writes a what-if answer as text (write) or as its document.
	answer := func(w *whatif.WhatIf, write func(io.Writer) error, document func(whatifjson.Options) (*whatifjson.Document, error)) error {
		if !asJSON {
			return write(out)
		}
		doc, err := document(whatifjson.Options{Nodes: q.JSONNodes, KubeVersion: w.Scheduler().KubeVersion()})
		if err != nil {
			return err
		}
		return doc.Write(out)
	}
	switch q.Command {
	case "place":
		var pods []*corev1.Pod
		for _, o := range q.Objects {
			p, ok := o.(*corev1.Pod)
			if !ok {
				return bad("%s is not a Pod", convert.Name(o))
			}
			pods = append(pods, p)
		}
		if len(pods) == 0 {
			return bad("no pods given")
		}
		if asJSON {
			return l.placeJSON(ctx, pods, q.JSONNodes, out)
		}
		vs, err := l.CanPlace(ctx, pods...)
		if err != nil {
			return err
		}
		var b strings.Builder
		for _, v := range vs {
			switch {
			case v.Placed:
				fmt.Fprintf(&b, "%s: fits on %s\n", v.Pod, v.Node)
			case v.NominatedNode != "":
				fmt.Fprintf(&b, "%s: does not fit: %s\n  preemption would nominate %s, evicting %v\n", v.Pod, v.Reason, v.NominatedNode, v.Victims)
			default:
				fmt.Fprintf(&b, "%s: does not fit: %s\n", v.Pod, v.Reason)
			}
		}
		_, err = io.WriteString(out, b.String())
		return err
	case "capacity":
		if len(q.Objects) != 1 {
			return bad("give one pod template")
		}
		kp, ok := q.Objects[0].(*corev1.Pod)
		if !ok {
			return bad("%s is not a Pod", convert.Name(q.Objects[0]))
		}
		p, err := l.podForQuestion(kp)
		if err != nil {
			return bad("%v", err)
		}
		return l.WhatIf(func(w *whatif.WhatIf) error {
			a, err := w.Capacity(ctx, p, whatif.CapacityOptions{Max: q.Max})
			if err != nil {
				return err
			}
			return answer(w, func(out io.Writer) error { return a.Write(out, whatif.ExplainOptions{}) },
				func(o whatifjson.Options) (*whatifjson.Document, error) { return whatifjson.CapacityDocument(a, o) })
		})
	case "drain":
		if len(q.Nodes) == 0 {
			return bad("name the nodes")
		}
		return l.WhatIf(func(w *whatif.WhatIf) error {
			a, err := w.Drain(ctx, q.Nodes, whatif.DrainOptions{})
			if err != nil {
				return err
			}
			return answer(w, a.Write, func(o whatifjson.Options) (*whatifjson.Document, error) { return whatifjson.DrainDocument(a, o) })
		})
	case "scale-up":
		if len(q.Objects) != 1 {
			return bad("give one Node template")
		}
		o, err := convert.Object(kubeload.Options{}, q.Objects[0])
		if err != nil {
			return bad("%v", err)
		}
		n, ok := o.Value.(*api.Node)
		if !ok {
			return bad("%s is not a Node", convert.Name(q.Objects[0]))
		}
		return l.WhatIf(func(w *whatif.WhatIf) error {
			a, err := w.ScaleUp(ctx, n, whatif.ScaleUpOptions{})
			if err != nil {
				return err
			}
			return answer(w, func(out io.Writer) error { return a.Write(out, whatif.ExplainOptions{}) },
				func(o whatifjson.Options) (*whatifjson.Document, error) { return whatifjson.ScaleUpDocument(a, o) })
		})
	}
	return bad("unknown command (place, capacity, drain, scale-up)")
}

// placeJSON answers a place question as a whatifjson document: the pods
// placed in order on one fork (whatif.WhatIf.PlaceAll), each with its
// explanation, and for a pod schedkit cannot read, why not, as CanPlace
// reports it.
func (l *Live) placeJSON(ctx context.Context, pods []*corev1.Pod, nodes int, out io.Writer) error {
	converted := make([]*api.Pod, 0, len(pods))
	failed := map[int]whatifjson.Pod{}
	for i, kp := range pods {
		p, err := l.podForQuestion(kp)
		if err != nil {
			ns := kp.Namespace
			if ns == "" {
				ns = "default"
			}
			failed[i] = whatifjson.Pod{Pod: ns + "/" + kp.Name, Error: err.Error()}
			continue
		}
		converted = append(converted, p)
	}
	return l.WhatIf(func(w *whatif.WhatIf) error {
		var answers []*whatif.PlaceAnswer
		if len(converted) > 0 {
			var err error
			if answers, err = w.PlaceAll(ctx, converted); err != nil {
				return err
			}
		}
		doc, err := whatifjson.PlaceDocument(answers, whatifjson.Options{Nodes: nodes, KubeVersion: w.Scheduler().KubeVersion()})
		if err != nil {
			return err
		}
		all := make([]whatifjson.Pod, 0, len(pods))
		for i := range pods {
			if p, ok := failed[i]; ok {
				all = append(all, p)
				continue
			}
			all, doc.Place = append(all, doc.Place[0]), doc.Place[1:]
		}
		doc.Place = all
		return doc.Write(out)
	})
}

// ReadObjects decodes the typed objects of YAML or JSON documents (several
// allowed, separated by "---"), as kubectl reads -f files.
func ReadObjects(r io.Reader) ([]runtime.Object, error) {
	var objs []runtime.Object
	yr := utilyaml.NewYAMLReader(bufio.NewReader(r))
	for {
		doc, err := yr.Read()
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		o, _, err := scheme.Codecs.UniversalDeserializer().Decode(doc, nil, nil)
		if err != nil {
			return nil, err
		}
		objs = append(objs, o)
	}
}

// WhatIfHandler serves the what-if questions over HTTP, the endpoint of
// schedkit-scheduler's --http-address (under /whatif/): POST /place, /capacity?max=N and
// /scale-up with the objects (YAML or JSON) as the body, POST /drain?node=A&node=B;
// the answer is text/plain, as kubectl-schedkit prints it, or with o=json
// a whatifjson document (application/json; json-nodes=N bounds the nodes
// each explanation lists). A question that cannot be asked is 400, a
// failure 500. Nothing is written to the API server.
func (l *Live) WhatIfHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "POST a question", http.StatusMethodNotAllowed)
			return
		}
		q := Question{Command: strings.Trim(r.URL.Path, "/"), Nodes: r.URL.Query()["node"]}
		if m := r.URL.Query().Get("max"); m != "" {
			n, err := strconv.Atoi(m)
			if err != nil || n < 0 {
				http.Error(w, fmt.Sprintf("max=%q: want a count", m), http.StatusBadRequest)
				return
			}
			q.Max = n
		}
		switch q.Output = r.URL.Query().Get("o"); q.Output {
		case "", "text", "json":
		default:
			http.Error(w, fmt.Sprintf("o=%q: want text or json", q.Output), http.StatusBadRequest)
			return
		}
		if m := r.URL.Query().Get("json-nodes"); m != "" {
			n, err := strconv.Atoi(m)
			if err != nil || n < 0 {
				http.Error(w, fmt.Sprintf("json-nodes=%q: want a count", m), http.StatusBadRequest)
				return
			}
			q.JSONNodes = n
		}
		objs, err := ReadObjects(http.MaxBytesReader(w, r.Body, 8<<20))
		if err != nil {
			http.Error(w, "reading the objects: "+err.Error(), http.StatusBadRequest)
			return
		}
		q.Objects = objs
		var b bytes.Buffer
		if err := l.Answer(r.Context(), q, &b); err != nil {
			code := http.StatusInternalServerError
			if errors.Is(err, ErrBadQuestion) {
				code = http.StatusBadRequest
			}
			http.Error(w, err.Error(), code)
			return
		}
		if q.Output == "json" {
			w.Header().Set("Content-Type", "application/json")
		} else {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		}
		_, _ = w.Write(b.Bytes())
	})
}
