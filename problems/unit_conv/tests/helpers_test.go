package hiddentests

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// run executes the submission's program (built by the harness) with args.
func run(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(os.Getenv("RUNNERS_ENTRYPOINT"), args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatalf("cannot run the program: %v", err)
	}
	return out.String(), errOut.String(), code
}

func expectOutput(t *testing.T, want string, args ...string) {
	t.Helper()
	out, errOut, code := run(t, args...)
	if code != 0 || out != want+"\n" {
		t.Fatalf("unitconv %s: got %q (stderr %q, exit %d), want %q", strings.Join(args, " "), out, errOut, code, want)
	}
}

func expectError(t *testing.T, prefix string, args ...string) {
	t.Helper()
	out, errOut, code := run(t, args...)
	if code != 2 || out != "" || !strings.HasPrefix(errOut, prefix) {
		t.Fatalf("unitconv %s: got stdout %q stderr %q exit %d, want exit 2 and stderr starting %q",
			strings.Join(args, " "), out, errOut, code, prefix)
	}
}
