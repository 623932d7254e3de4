package framework

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestDocsNameTheDefaultRelease: wherever the docs say which
// kube-scheduler release runs when none is chosen (the scheduler's loop,
// the what-if questions, the configuration loader), they name
// DefaultKubeVersion. Each statement must be found, so that a rewording
// cannot drop it from the check unnoticed.
func TestDocsNameTheDefaultRelease(t *testing.T) {
	var files []string
	for _, pattern := range []string{"../README.md", "../docs/*.md", "../examples/*/README.md"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	docs := map[string]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs[f] = string(data)
	}
	// Each statement captures the release it names.
	for _, statement := range []string{
		`runs kube-scheduler (v1\.\d+)'s scheduling loop`,
		`questions run kube-scheduler (v1\.\d+)'s scheduling cycles`,
		`all on by default\s+as in kube-scheduler (v1\.\d+)`,
		`merged with the defaults exactly as\s+kube-scheduler (v1\.\d+) merges them`,
		"`cfg.Write\\(w\\)` prints, byte for byte, what kube-scheduler (v1\\.\\d+)",
	} {
		re := regexp.MustCompile(statement)
		found := 0
		for f, text := range docs {
			for _, m := range re.FindAllStringSubmatch(text, -1) {
				found++
				if m[1] != DefaultKubeVersion.String() {
					t.Errorf("%s: %q names %s, but the default release is %s", f, m[0], m[1], DefaultKubeVersion)
				}
			}
		}
		if found == 0 {
			t.Errorf("no doc says %q", statement)
		}
	}
}
