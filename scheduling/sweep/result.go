package sweep

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/schedkit/schedkit/scheduling/replay"
)

// Result is what one unit did: one JSON line of a shard's output.
// Every field but the timings (DecisionsPerSecond, WallSeconds) depends
// only on the unit.
type Result struct {
	Unit  string `json:"unit"`
	Index int    `json:"index"`
	Name  string `json:"name"`
	Axes  Axes   `json:"axes"`
	// Nodes and Pods count the cluster's nodes and the unit's pods
	// (initial and arriving).
	Nodes int `json:"nodes"`
	Pods  int `json:"pods"`
	// Placed and Pending count the pods on nodes and the pods not placed
	// when the last pod arrived (the moment the placement metrics are
	// taken); Preempted, Completed, Rejected and Evicted count pods over
	// the whole run.
	Placed    int `json:"placed"`
	Pending   int `json:"pending"`
	Preempted int `json:"preempted"`
	Completed int `json:"completed"`
	Rejected  int `json:"rejected"`
	Evicted   int `json:"evicted"`
	// CPU and Memory summarize the nodes' utilization (requested /
	// allocatable) when the last pod arrived; Imbalance is the mean over
	// nodes of |cpu − memory utilization|.
	CPU       Utilization `json:"cpu"`
	Memory    Utilization `json:"memory"`
	Imbalance float64     `json:"imbalance"`
	// StrandedCPU and StrandedMemory are the shares of free cpu and
	// memory that no further reference pod can use; ReferenceFits is how
	// many reference pods would still fit; EmptyNodes the nodes without
	// pods.
	StrandedCPU    float64 `json:"strandedCPU"`
	StrandedMemory float64 `json:"strandedMemory"`
	ReferenceFits  int64   `json:"referenceFits"`
	EmptyNodes     int     `json:"emptyNodes"`
	// Cycles is the number of scheduling cycles (decisions), and
	// DecisionLog the SHA-256 of the decision log the replay would write
	// (replay.Result.WriteLog): equal hashes, equal decisions.
	Cycles      int    `json:"cycles"`
	DecisionLog string `json:"decisionLog"`
	// DecisionsPerSecond is cycles per second of the replay; WallSeconds
	// the unit's time, building its cluster and workload included.
	DecisionsPerSecond float64 `json:"decisionsPerSecond"`
	WallSeconds        float64 `json:"wallSeconds"`
	// Error, when not empty, is why the unit failed; the other results
	// are then zero.
	Error string `json:"error,omitempty"`
}

// Utilization summarizes one resource's utilization across nodes.
type Utilization struct {
	Mean   float64 `json:"mean"`
	StdDev float64 `json:"stdDev"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// Spread is Max − Min.
func (u Utilization) Spread() float64 { return u.Max - u.Min }

func utilization(u replay.ResourceUtilization) Utilization {
	return Utilization{Mean: u.Mean, StdDev: u.StdDev, Min: u.Min, Max: u.Max}
}

// maxLine bounds one JSON line of a shard's output or a units file.
const maxLine = 1 << 20

// eachLine calls f with every non-empty line of r and where it is
// (name:line).
func eachLine(r io.Reader, name string, f func(line []byte, where string) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	n := 0
	for sc.Scan() {
		n++
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if err := f(line, fmt.Sprintf("%s:%d", name, n)); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%s:%d: a line longer than %d bytes", name, n+1, maxLine)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// strictJSON decodes one JSON value, refusing unknown fields and
// trailing data.
func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}
