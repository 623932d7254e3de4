// Package exampletest runs an example program's main function as a process
// of its own, so that the example's tests can check its exit code and what
// it prints: the test binary starts itself again with an environment
// variable that makes TestMain call main instead of the tests.
package exampletest

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

const env = "SCHEDKIT_EXAMPLE_MAIN"

// Main runs the example's main and exits 0 when the test binary was started
// by Run, and the tests otherwise. Call it from TestMain.
func Main(m *testing.M, main func()) {
	if os.Getenv(env) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// Run runs the example's main (through Main) with the command-line args and
// returns its exit code and output.
func Run(t testing.TB, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), env+"=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("running %v: %v", args, err)
	}
	return code, out.String(), errb.String()
}

// CheckNoFlags checks the command line of an example that takes no flags:
// -h and -help print usage (which must contain "usage: name") and exit 0;
// an unknown flag or an argument exits 2 and prints the usage; none of them
// runs the program (prints on stdout).
func CheckNoFlags(t *testing.T, name, usage string) {
	t.Helper()
	if !strings.Contains(usage, "usage: "+name+"\n") {
		t.Fatalf("usage %q does not begin with %q", usage, "usage: "+name)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-h"}, 0, ""},
		{[]string{"-help"}, 0, ""},
		{[]string{"-x"}, 2, "flag provided but not defined: -x\n"},
		{[]string{"extra"}, 2, name + `: unexpected arguments ["extra"]` + "\n"},
	} {
		code, stdout, stderr := Run(t, tc.args...)
		if code != tc.code || stdout != "" || stderr != tc.want+usage {
			t.Errorf("%s %v: exit %d, stdout %q, stderr %q; want exit %d, no output, and stderr %q",
				name, tc.args, code, stdout, stderr, tc.code, tc.want+usage)
		}
	}
}
