//go:build unix && !linux

package runner

// adoptOrphans does nothing here: macOS and the BSDs have no
// PR_SET_CHILD_SUBREAPER that an unprivileged process can use (FreeBSD's
// procctl(PROC_REAP_ACQUIRE) exists, but is not wired in yet). A process a
// hook moved out of its process group (setsid) is re-parented to init and
// is not killed when the hook ends; everything left in the group still is.
func adoptOrphans() bool { return false }

// adoptedChildren finds nothing: without a subreaper no orphan is adopted.
func adoptedChildren(int) []int { return nil }
