// runners-go-report: run `go test -json ...`, then write its output to REPORT and an HMAC-SHA256
// of those exact bytes to REPORT.sig, with the run's one-time key.
//
// Usage: runners-go-report REPORT COMMAND [ARGS...]
//
// The key file (named by RUNNERS_REPORT_KEY_FILE) is read and deleted before the command starts,
// the variable is removed from the command's environment, and this process is made non-dumpable,
// so nothing the tests start (the submission's program) can read the key. A report written or
// rewritten by anything else does not match the signature, and the harness does not trust it.
// The command's exit code is this program's.
package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

const keyEnv = "RUNNERS_REPORT_KEY_FILE"
const prSetDumpable = 4

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: runners-go-report REPORT COMMAND [ARGS...]")
		os.Exit(2)
	}
	var key []byte
	if path := os.Getenv(keyEnv); path != "" {
		key, _ = os.ReadFile(path)
		os.Remove(path)
	}
	os.Unsetenv(keyEnv)
	syscall.RawSyscall(syscall.SYS_PRCTL, prSetDumpable, 0, 0)

	var out bytes.Buffer
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	code := 0
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			fmt.Fprintln(os.Stderr, "runners-go-report:", err)
			os.Exit(127)
		}
		code = exit.ExitCode()
	}
	report := os.Args[1]
	if err := write(report, out.Bytes()); err != nil {
		fmt.Fprintln(os.Stderr, "runners-go-report:", err)
		os.Exit(125)
	}
	if len(key) > 0 {
		mac := hmac.New(sha256.New, key)
		mac.Write(out.Bytes())
		if err := write(report+".sig", []byte(hex.EncodeToString(mac.Sum(nil)))); err != nil {
			fmt.Fprintln(os.Stderr, "runners-go-report:", err)
			os.Exit(125)
		}
	}
	os.Exit(code)
}

// write replaces whatever is at path (a planted file or symlink) with a new file of ours.
func write(path string, data []byte) error {
	os.Remove(path)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
