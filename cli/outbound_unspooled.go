package cli

import (
	"fmt"
	"io"

	"github.com/noora-hooks/noora-hooks/internal/outbound"
)

// unspooledShown is how many of the deliveries that could not be spooled the
// text status lists; --json gives all that were kept.
const unspooledShown = 10

// printUnspooled lists the deliveries that could not be spooled (SPEC §7): a
// full or read-only disk, the spool's bound, a body too large.
func printUnspooled(w io.Writer, last []outbound.Unspooled, total int) {
	if total == 0 {
		return
	}
	fmt.Fprintf(w, "not spooled (dropped): %d deliveries", total)
	if len(last) > unspooledShown {
		last = last[len(last)-unspooledShown:]
		fmt.Fprintf(w, ", the last %d", unspooledShown)
	}
	fmt.Fprintln(w)
	for _, u := range last {
		fmt.Fprintf(w, "  %s %s to %s (delivery %s): %s\n", u.At.UTC().Format(outbound.TimestampLayout), u.Event, u.Target, u.DeliveryID, u.Error)
	}
}
