package report

import (
	"fmt"
	"strconv"
)

// HumanBytes renders n bytes with a binary unit: "512 B", "55.0 KiB",
// "1.2 GiB". The CLI's tables and the HTML reports share it.
func HumanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return strconv.FormatInt(n, 10) + " B"
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 5; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
