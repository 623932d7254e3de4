package extender

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"time"

	"github.com/schedkit/schedkit/framework"
	"github.com/schedkit/schedkit/framework/api"
	fwruntime "github.com/schedkit/schedkit/framework/runtime"
)

// Server defaults.
const (
	DefaultMaxRequestBytes = 64 << 20
	DefaultRequestTimeout  = 10 * time.Second
	DefaultShutdownTimeout = 10 * time.Second
)

// ServerConfig configures a Server.
type ServerConfig struct {
	// Framework holds the plugins the server runs: PreFilter and Filter
	// for the filter verb, PreScore, Score and NormalizeScore (with the
	// profile's weights) for the prioritize verb. Its extenders, if any,
	// are not called. Required.
	Framework *fwruntime.Framework
	// Cluster is the view the plugins read. Required.
	Cluster *Cluster
	// FilterVerb, PrioritizeVerb and BindVerb are the paths served
	// ("/"+verb); defaults "filter", "prioritize" and "bind". The bind verb
	// is served only with a Bind function.
	FilterVerb     string
	PrioritizeVerb string
	BindVerb       string
	// Bind binds a pod for the bind verb (e.g. by creating a Binding in
	// the API server); its error is returned to the scheduler.
	Bind func(ctx context.Context, args BindingArgs) error
	// ScoreRange is the top of the scores the server returns (default
	// MaxPriority = 10): a node's weighted plugin total t out of 100 ×
	// Σweights becomes round(t × ScoreRange / (100 × Σweights)).
	// kube-scheduler (v1.36 and v1.37) does not clamp extender scores, so
	// 100 keeps every point of the plugins' precision (each point then
	// weighs 10 × the extender's weight in the scheduler's total).
	ScoreRange int64
	// MaxRequestBytes bounds a request body (default 64 MiB, about 5,000
	// full nodes with many images); a longer one gets 413.
	MaxRequestBytes int64
	// RequestTimeout bounds the handling of a request (default 10s): the
	// context the plugins and Bind get is cancelled then, and a request
	// still waiting for a free slot gets 503.
	RequestTimeout time.Duration
	// MaxConcurrent bounds the requests handled at once (default
	// 2 × GOMAXPROCS); the others wait for a slot.
	MaxConcurrent int
	// ShutdownTimeout bounds how long Serve waits for requests in flight
	// once its context is cancelled (default 10s).
	ShutdownTimeout time.Duration
}

// Server serves kube-scheduler's extender verbs from schedkit plugins, so a
// stock kube-scheduler can run them (point an extenders entry at it;
// configfile.ExtenderConfigYAML prints one). It is an http.Handler; Serve
// runs it on a listener.
//
//   - filter: PreFilter over the view's nodes, then Filter on each node of
//     the request. A node the view does not know fails unresolvably when
//     named (node-cache mode); sent whole, it is filtered as sent, without
//     pods. The answer uses the request's form: NodeNames or Nodes.
//   - prioritize: PreScore, Score and NormalizeScore over the request's
//     nodes, the weighted total mapped to 0..ScoreRange (nodes the view
//     does not know by name are left out, which scores them 0).
//   - bind: calls ServerConfig.Bind.
//
// Plugins that keep their own state (LoadAwareScheduling's NodeMetrics and
// usage cache) are fed by the caller. A malformed, oversized or wrongly
// typed request gets a 4xx with a message; a plugin error in filter is
// returned in FilterResult.Error (kube-scheduler then fails the pod, or
// skips the extender if ignorable), in prioritize as a 500 (kube-scheduler
// ignores it).
type Server struct {
	cfg ServerConfig
	sem chan struct{}
	sum int64 // Σ |weight| of the score plugins
}

// NewServer checks cfg and fills in its defaults.
func NewServer(cfg ServerConfig) (*Server, error) {
	if cfg.Framework == nil {
		return nil, errors.New("extender: NewServer: ServerConfig.Framework is nil")
	}
	if cfg.Cluster == nil {
		return nil, errors.New("extender: NewServer: ServerConfig.Cluster is nil")
	}
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	def(&cfg.FilterVerb, "filter")
	def(&cfg.PrioritizeVerb, "prioritize")
	def(&cfg.BindVerb, "bind")
	if cfg.ScoreRange == 0 {
		cfg.ScoreRange = MaxPriority
	}
	if cfg.MaxRequestBytes == 0 {
		cfg.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.MaxConcurrent == 0 {
		cfg.MaxConcurrent = 2 * runtime.GOMAXPROCS(0)
	}
	if cfg.ShutdownTimeout == 0 {
		cfg.ShutdownTimeout = DefaultShutdownTimeout
	}
	for _, c := range []struct {
		name string
		v    int64
	}{{"ScoreRange", cfg.ScoreRange}, {"MaxRequestBytes", cfg.MaxRequestBytes}, {"RequestTimeout", int64(cfg.RequestTimeout)},
		{"MaxConcurrent", int64(cfg.MaxConcurrent)}, {"ShutdownTimeout", int64(cfg.ShutdownTimeout)}} {
		if c.v < 0 {
			return nil, fmt.Errorf("extender: NewServer: ServerConfig.%s=%d: must not be negative", c.name, c.v)
		}
	}
	s := &Server{cfg: cfg, sem: make(chan struct{}, cfg.MaxConcurrent)}
	for _, name := range cfg.Framework.Profile().Score {
		w := cfg.Framework.ScoreWeight(name)
		s.sum += max(w, -w)
	}
	return s, nil
}

// Serve serves on ln until ctx is cancelled, then shuts down gracefully:
// no new connections, requests in flight get up to ShutdownTimeout. It
// returns nil after a shutdown, else the error that stopped it.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: s.cfg.RequestTimeout,
		ReadTimeout:       s.cfg.RequestTimeout,
		WriteTimeout:      2 * s.cfg.RequestTimeout,
		IdleTimeout:       90 * time.Second,
		MaxHeaderBytes:    64 << 10,
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	err := hs.Shutdown(sctx)
	if serr := <-done; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}

// httpError is an answer other than 200.
type httpError struct {
	code int
	msg  string
}

func (e *httpError) Error() string { return e.msg }

// ServeHTTP answers one extender call.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var handle func(context.Context, *bodyReader) (any, error)
	switch r.URL.Path {
	case "/" + s.cfg.FilterVerb:
		handle = s.filter
	case "/" + s.cfg.PrioritizeVerb:
		handle = s.prioritize
	case "/" + s.cfg.BindVerb:
		if s.cfg.Bind != nil {
			handle = s.bind
		}
	}
	if handle == nil {
		http.Error(w, fmt.Sprintf("no extender verb at %q", r.URL.Path), http.StatusNotFound)
		return
	}
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "extender calls are POST requests", http.StatusMethodNotAllowed)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.RequestTimeout)
	defer cancel()
	select {
	case s.sem <- struct{}{}:
		defer func() { <-s.sem }()
	case <-ctx.Done():
		http.Error(w, "too many concurrent extender calls", http.StatusServiceUnavailable)
		return
	}
	body := &bodyReader{r: http.MaxBytesReader(w, r.Body, s.cfg.MaxRequestBytes), n: r.ContentLength}
	if body.n > s.cfg.MaxRequestBytes {
		body.n = -1 // let MaxBytesReader refuse it
	}
	out, err := s.run(ctx, handle, body)
	if err != nil {
		var he *httpError
		if !errors.As(err, &he) {
			he = &httpError{code: http.StatusInternalServerError, msg: err.Error()}
		}
		http.Error(w, he.msg, he.code)
		return
	}
	b, err := json.Marshal(out)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	_, _ = w.Write(b)
}

// run calls handle, turning a panic into a 500.
func (s *Server) run(ctx context.Context, handle func(context.Context, *bodyReader) (any, error), body *bodyReader) (out any, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, &httpError{code: http.StatusInternalServerError, msg: fmt.Sprintf("extender: internal error: %v", p)}
		}
	}()
	return handle(ctx, body)
}

// decode reads the body, one JSON value and nothing after it, into v: a
// value of the wrong type is an error, an unknown field is ignored (a
// kube-scheduler sends whole v1.Pods, with fields schedkit does not model).
func decode(body *bodyReader, v any) error {
	b, err := body.readAll()
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return &httpError{code: http.StatusRequestEntityTooLarge, msg: fmt.Sprintf("request body larger than %d bytes", tooBig.Limit)}
		}
		return &httpError{code: http.StatusBadRequest, msg: "reading the request: " + err.Error()}
	}
	if err := json.Unmarshal(b, v); err != nil {
		return &httpError{code: http.StatusBadRequest, msg: "decoding the request: " + err.Error()}
	}
	return nil
}

// bodyReader is a request body of a known length (-1 when unknown).
type bodyReader struct {
	r io.Reader
	n int64
}

// readAll reads the whole body, in one buffer of the announced length
// when there is one (no regrowing for a large body).
func (b *bodyReader) readAll() ([]byte, error) {
	if b.n <= 0 {
		return io.ReadAll(b.r)
	}
	buf := make([]byte, b.n)
	if _, err := io.ReadFull(b.r, buf); err != nil {
		return nil, err
	}
	return buf, nil
}

// request is a decoded filter or prioritize call.
type request struct {
	args  Args
	pod   *framework.PodInfo
	snap  *framework.Snapshot
	nodes []*framework.NodeInfo // in request order; nil entries are unknown names
	names []string
}

func (s *Server) readArgs(body *bodyReader) (*request, error) {
	rq := &request{snap: s.cfg.Cluster.Snapshot()}
	if err := decode(body, &rq.args); err != nil {
		return nil, err
	}
	a := &rq.args
	if a.Pod == nil {
		return nil, &httpError{code: http.StatusBadRequest, msg: "Pod: required"}
	}
	pi, err := framework.NewPodInfo(a.Pod)
	if err != nil {
		return nil, &httpError{code: http.StatusBadRequest, msg: "Pod: " + err.Error()}
	}
	rq.pod = pi
	switch {
	case a.NodeNames != nil:
		rq.names = *a.NodeNames
		rq.nodes = make([]*framework.NodeInfo, len(rq.names))
		for i, name := range rq.names {
			rq.nodes[i], _ = rq.snap.Get(name)
		}
	case a.Nodes != nil:
		rq.names = make([]string, len(a.Nodes.Items))
		rq.nodes = make([]*framework.NodeInfo, len(a.Nodes.Items))
		for i := range a.Nodes.Items {
			n := &a.Nodes.Items[i]
			rq.names[i] = n.Name
			if ni, ok := rq.snap.Get(n.Name); ok {
				rq.nodes[i] = ni
				continue
			}
			ni, err := framework.NewNodeInfo(n)
			if err != nil {
				return nil, &httpError{code: http.StatusBadRequest, msg: fmt.Sprintf("Nodes.items[%d]: %v", i, err)}
			}
			rq.nodes[i] = ni
		}
	default:
		return nil, &httpError{code: http.StatusBadRequest, msg: "one of Nodes and NodeNames is required"}
	}
	return rq, nil
}

// timedOut is the answer to a call that outlasted RequestTimeout.
func timedOut(ctx context.Context, verb string) error {
	return &httpError{code: http.StatusServiceUnavailable, msg: fmt.Sprintf("extender: %s: %v", verb, context.Cause(ctx))}
}

// notInView is the reason of a node named in a call that the view lacks.
const notInView = "node(s) not in the extender's cluster view"

func (s *Server) filter(ctx context.Context, body *bodyReader) (any, error) {
	rq, err := s.readArgs(body)
	if err != nil {
		return nil, err
	}
	res := &FilterResult{FailedNodes: FailedNodesMap{}, FailedAndUnresolvableNodes: FailedNodesMap{}}
	fail := func(name string, st *framework.Status) {
		if st.Code() == framework.UnschedulableAndUnresolvable {
			res.FailedAndUnresolvableNodes[name] = st.Message()
		} else {
			res.FailedNodes[name] = st.Message()
		}
	}
	fw := s.cfg.Framework
	state := framework.NewCycleState()
	defer state.Release()
	state.SetSnapshot(rq.snap)
	preRes, st, withNodes := fw.RunPreFilterPlugins(ctx, state, rq.pod)
	var absent *framework.Status
	switch {
	case st.IsRejected():
		absent = st
	case !st.IsSuccess():
		res.Error = st.Message()
		return res, nil
	case !preRes.AllNodes():
		absent = framework.NewStatus(framework.UnschedulableAndUnresolvable, fmt.Sprintf("node(s) didn't satisfy plugin(s) %v", withNodes))
	}
	var passed []int
	for i, ni := range rq.nodes {
		name := rq.names[i]
		switch {
		case ni == nil:
			res.FailedAndUnresolvableNodes[name] = notInView
			continue
		case st.IsRejected():
			fail(name, absent)
			continue
		case !preRes.AllNodes():
			if _, ok := preRes.NodeNames[name]; !ok {
				fail(name, absent)
				continue
			}
		}
		if i%64 == 0 && ctx.Err() != nil {
			return nil, timedOut(ctx, "filter")
		}
		fs := fw.RunFilterPlugins(ctx, state, rq.pod, ni)
		switch {
		case fs.IsSuccess():
			passed = append(passed, i)
		case fs.IsRejected():
			fail(name, fs)
		default:
			res.Error = fs.Message()
			return res, nil
		}
	}
	if ctx.Err() != nil { // the plugins may have cut their work short
		return nil, timedOut(ctx, "filter")
	}
	if rq.args.NodeNames != nil {
		names := make([]string, len(passed))
		for k, i := range passed {
			names[k] = rq.names[i]
		}
		res.NodeNames = &names
	} else {
		res.Nodes = &NodeList{Items: make([]api.Node, len(passed))}
		for k, i := range passed {
			res.Nodes.Items[k] = rq.args.Nodes.Items[i]
		}
	}
	return res, nil
}

func (s *Server) prioritize(ctx context.Context, body *bodyReader) (any, error) {
	rq, err := s.readArgs(body)
	if err != nil {
		return nil, err
	}
	known := make([]*framework.NodeInfo, 0, len(rq.nodes))
	for _, ni := range rq.nodes {
		if ni != nil {
			known = append(known, ni)
		}
	}
	out := make(HostPriorityList, len(known))
	if len(known) == 0 || s.sum == 0 {
		for i, ni := range known {
			out[i].Host = ni.Name()
		}
		return out, nil
	}
	state := framework.NewCycleState()
	defer state.Release()
	state.SetSnapshot(rq.snap)
	totals, err := s.cfg.Framework.ScoreNodes(ctx, state, rq.pod, known)
	if err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, timedOut(ctx, "prioritize")
	}
	scale := float64(s.cfg.ScoreRange) / float64(framework.MaxNodeScore*s.sum)
	for i, ni := range known {
		v := int64(math.Round(float64(totals[i]) * scale))
		out[i] = framework.HostPriority{Host: ni.Name(), Score: min(max(v, 0), s.cfg.ScoreRange)}
	}
	return out, nil
}

func (s *Server) bind(ctx context.Context, body *bodyReader) (any, error) {
	var a BindingArgs
	if err := decode(body, &a); err != nil {
		return nil, err
	}
	if a.PodName == "" || a.Node == "" {
		return nil, &httpError{code: http.StatusBadRequest, msg: "PodName and Node: required"}
	}
	res := &BindingResult{}
	if err := s.cfg.Bind(ctx, a); err != nil {
		res.Error = err.Error()
	}
	return res, nil
}
