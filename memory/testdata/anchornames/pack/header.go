package pack

import (
	"bytes"
	"encoding/binary"
	"errors"
)

var magic = []byte("PACK")

// ErrBadHeader is returned for a file that does not begin with a pack header.
var ErrBadHeader = errors.New("pack: bad header")

// validateHeader reads the magic signature and the version of a file's
// header before anything else is decoded.
func validateHeader(b []byte) (uint32, error) {
	if len(b) < 8 || !bytes.Equal(b[:4], magic) {
		return 0, ErrBadHeader
	}
	v := binary.BigEndian.Uint32(b[4:8])
	if v != 2 && v != 3 {
		return 0, ErrBadHeader
	}
	return v, nil
}

// Header is the first bytes of a pack file: its magic signature, its
// version and how many objects follow.
type Header struct {
	Version uint32
	Objects uint32
}
