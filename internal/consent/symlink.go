package consent

import (
	"fmt"
	"os"
	"path/filepath"
)

// maxLinks bounds how many symbolic links a write follows (Linux's own
// limit, ELOOP).
const maxLinks = 40

// linkTarget is the file a write to path must replace: path itself, or, when
// path is a symbolic link (a dotfiles checkout linking ~/.noora/config.yaml,
// say), the file it points to, followed link by link even when that file does
// not exist yet. Renaming over the link would turn it into a regular file and
// leave the user's real file behind, unchanged.
func linkTarget(path string) (string, error) {
	p := path
	for range maxLinks {
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return p, nil
		}
		target, err := os.Readlink(p)
		if err != nil {
			return "", fmt.Errorf("write %s: follow link: %w", path, err)
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(p), target)
		}
		p = target
	}
	return "", fmt.Errorf("write %s: more than %d symbolic links", path, maxLinks)
}
