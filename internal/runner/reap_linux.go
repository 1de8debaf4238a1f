package runner

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER of prctl(2) (Linux 3.4).
const prSetChildSubreaper = 36

// adoptOrphans makes this process a child subreaper: a descendant whose
// parent dies is re-parented to us instead of to init, so a hook's escaped
// processes can be found and killed (reap.go). It fails only on kernels
// older than 3.4 (false), which then keep the group kill alone.
func adoptOrphans() bool {
	_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0)
	return errno == 0
}

// adoptedChildren lists the children of process self: every thread's
// children (an orphan is adopted by one of our threads), from
// /proc/self/task/*/children, else by scanning every /proc/<pid>/stat.
func adoptedChildren(self int) []int {
	files, _ := filepath.Glob("/proc/self/task/*/children")
	if len(files) > 0 {
		var out []int
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			for _, field := range strings.Fields(string(data)) {
				if pid, err := strconv.Atoi(field); err == nil {
					out = append(out, pid)
				}
			}
		}
		return out
	}
	return scanProc(self)
}

// scanProc finds the processes whose parent is self in /proc/<pid>/stat, for
// kernels built without /proc/<pid>/task/<tid>/children.
func scanProc(self int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(s[i+1:])
		if len(fields) > 1 {
			if ppid, err := strconv.Atoi(fields[1]); err == nil && ppid == self {
				out = append(out, pid)
			}
		}
	}
	return out
}
