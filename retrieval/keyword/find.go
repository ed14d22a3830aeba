package keyword

import "bytes"

// byteRank ranks bytes by how common they are in source code, 255 the
// most common (' '), 0 the least. It was counted over the text files of the
// Go distribution's src tree; non-ASCII bytes are all rare there.
const byteRank = "" +
	"\x2a\x34\x33\x32\x31\x30\x3f\x39\x29\xfc\xf9\x28\x27\x26\x25\x24" +
	"\x2f\x23\x22\x21\x2e\x20\x1f\x1e\x1d\x1c\x1b\x1a\x19\x18\x17\x16" +
	"\xff\xb7\xe2\xa2\xa6\xb1\xb4\xb0\xea\xe9\xba\xb5\xf2\xbc\xed\xe8" +
	"\xf1\xe5\xe1\xcf\xd6\xc2\xd5\xbd\xc7\xbe\xe0\xb8\xaf\xe3\xaa\x9f" +
	"\x9d\xd9\xbf\xce\xc8\xd2\xc4\xb9\xb6\xd0\xa4\xab\xc6\xc9\xc3\xd1" +
	"\xcd\xac\xd7\xdc\xd8\xbb\xc5\xb3\xca\xa9\xa5\xc1\xd4\xc0\xa0\xd3" +
	"\xa7\xf8\xdf\xf3\xee\xfe\xf0\xe6\xe4\xf7\xa8\xcc\xf4\xe7\xfa\xf5" +
	"\xeb\xad\xfb\xf6\xfd\xef\xdd\xcb\xec\xde\xb2\xdb\xae\xda\x9c\x15" +
	"\x9b\x96\x99\x5d\x78\x88\x83\x58\x9a\x87\x72\x6a\x86\x47\x7f\x44" +
	"\x7d\x5b\x69\x8a\x92\x98\x73\x8f\x91\x7e\x55\x4d\x90\x93\x7a\x62" +
	"\x5e\x6e\x50\x65\x8e\x7c\x6f\x85\x5f\x95\x7b\x74\x79\x51\x45\x53" +
	"\x57\x8d\x81\x76\x5c\x70\x6b\xa1\x71\x80\x84\x89\x6d\x75\x49\x67" +
	"\x14\x13\xa3\x97\x56\x4b\x12\x3a\x11\x10\x52\x5a\x64\x4c\x94\x82" +
	"\x59\x54\x2d\x43\x0f\x0e\x4a\x3e\x6c\x77\x38\x42\x46\x2c\x3d\x3c" +
	"\x41\x48\x9e\x63\x66\x4e\x8b\x61\x68\x40\x4f\x37\x3b\x36\x2b\x60" +
	"\x8c\x0d\x0c\x0b\x35\x0a\x09\x08\x07\x06\x05\x04\x03\x02\x01\x00"

// finder finds a needle by looking for its rarest byte with
// bytes.IndexByte, which is much faster than bytes.Index when the needle
// starts with a common byte (" *Reader) Read").
type finder struct {
	needle []byte
	rare   byte
	off    int // offset of rare in needle
}

// newFinder returns a finder for needle, which must not be empty.
func newFinder(needle []byte) finder {
	f := finder{needle: needle, rare: needle[0]}
	for i, c := range needle {
		if byteRank[c] < byteRank[f.rare] {
			f.rare, f.off = c, i
		}
	}
	return f
}

// index returns the offset of the first needle in hay, or -1.
func (f *finder) index(hay []byte) int {
	n := len(f.needle)
	if n == 1 {
		return bytes.IndexByte(hay, f.rare)
	}
	// The rare byte of a needle at s is at s+off, with s <= len(hay)-n.
	fails := 0
	for p := 0; p+n <= len(hay); {
		i := bytes.IndexByte(hay[p+f.off:len(hay)-n+f.off+1], f.rare)
		if i < 0 {
			return -1
		}
		s := p + i
		if bytes.Equal(hay[s:s+n], f.needle) {
			return s
		}
		p = s + 1
		// Too many false starts: let bytes.Index do the rest.
		if fails++; fails > 8+p>>5 {
			if j := bytes.Index(hay[p:], f.needle); j >= 0 {
				return p + j
			}
			return -1
		}
	}
	return -1
}
