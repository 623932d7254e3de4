package oracle

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register" // as kube-scheduler's main
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
)

// runKubeScheduler is kube-scheduler's main (cmd/kube-scheduler/scheduler.go)
// with the given arguments: it exits the process.
func runKubeScheduler(args []string) {
	cmd := app.NewSchedulerCommand()
	cmd.SetArgs(args)
	os.Exit(cli.Run(cmd))
}

// configDoc is one input line of the writeconfig mode.
type configDoc struct {
	Name   string `json:"name"`
	Config string `json:"config"`
}

// writtenConfig is one output line: what kube wrote, or why it refused.
type writtenConfig struct {
	Name    string `json:"name"`
	Written string `json:"written,omitempty"`
	Error   string `json:"error,omitempty"`
}

// runWriteConfig runs, for each document read from stdin, kube-scheduler
// --config=<document> --write-config-to=<file> in a child process (the
// command exits once the file is written, from
// options.LogOrWriteConfig) and prints the file's bytes. The flags that
// are not about the configuration only let the command get that far
// without an API server: --master names an address nothing is asked of
// before the file is written, and --secure-port=0 serves nothing. Output
// lines come in input order. Arguments after the flags are passed on to
// kube-scheduler, e.g. writeconfig -- --feature-gates=StorageCapacityScoring=true.
func runWriteConfig(args []string) {
	fs := flag.NewFlagSet("writeconfig", flag.ExitOnError)
	workers := fs.Int("j", runtime.GOMAXPROCS(0), "documents run at once")
	must(fs.Parse(args))
	extra := fs.Args()
	self, err := os.Executable()
	must(err)
	dir, err := os.MkdirTemp("", "kubeoracle-writeconfig-")
	must(err)
	defer os.RemoveAll(dir)

	var docs []configDoc
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var d configDoc
		must(json.Unmarshal(sc.Bytes(), &d))
		docs = append(docs, d)
	}
	must(sc.Err())

	out := make([]writtenConfig, len(docs))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < *workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				out[i] = kubeWriteConfig(self, filepath.Join(dir, fmt.Sprint(i)), docs[i], extra)
			}
		}()
	}
	for i := range docs {
		next <- i
	}
	close(next)
	wg.Wait()
	enc := json.NewEncoder(os.Stdout)
	for _, o := range out {
		must(enc.Encode(o))
	}
}

func kubeWriteConfig(self, base string, d configDoc, extra []string) writtenConfig {
	in, written := base+".in.yaml", base+".out.yaml"
	defer os.Remove(in)
	defer os.Remove(written)
	must(os.WriteFile(in, []byte(d.Config), 0o600))
	args := append([]string{"kube-scheduler", "--config=" + in, "--write-config-to=" + written,
		"--master=http://127.0.0.1:1", "--secure-port=0"}, extra...)
	cmd := exec.Command(self, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	runErr := cmd.Run()
	b, readErr := os.ReadFile(written)
	if runErr == nil && readErr == nil {
		return writtenConfig{Name: d.Name, Written: string(b)}
	}
	return writtenConfig{Name: d.Name, Error: fmt.Sprintf("%v: %s", runErr, failure(stderr.String()))}
}

// failure picks the command's error out of its log: the line cli.Run
// writes ("command failed" err=...), or else the last line.
func failure(log string) string {
	lines := strings.Split(strings.TrimSpace(log), "\n")
	for _, l := range lines {
		if strings.Contains(l, `"command failed"`) {
			return l
		}
	}
	return lines[len(lines)-1]
}
