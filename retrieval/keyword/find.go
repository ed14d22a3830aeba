package keyword

import (
	"bytes"
	"math"
)

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

// finder finds the occurrences of a needle in a text by looking for the
// needle's rarest byte with bytes.IndexByte, which is much faster than
// bytes.Index when the needle starts with a common byte (" *Reader) Read").
// Case-insensitive needles (fold: ASCII letters in either case) are found
// by looking for both cases of that byte, preferring a byte that has no
// case; after too many false starts, the rest of the text is lowered into a
// copy and searched with bytes.Index.
type finder struct {
	text   []byte
	needle []byte // in lower case when fold
	fold   bool
	rare   byte // in lower case when fold
	rareUp byte // rare in upper case, when fold and rare is a letter
	off    int  // offset of rare in needle
	// nextLo and nextUp are where rare and rareUp next occur in text (at
	// or after the last place looked at), math.MaxInt for nowhere.
	nextLo, nextUp int
	// lower, once the finder has given up on rare bytes for a fold
	// needle, holds text[lowFrom:] in lower case; lowFrom is -1 before.
	lower   *[]byte
	lowFrom int
}

// newFinder returns a finder of needle, which must not be empty, in text.
// When fold, needle is in lower case and lower is memory the finder may
// use.
func newFinder(text, needle []byte, fold bool, lower *[]byte) *finder {
	f := &finder{text: text, needle: needle, fold: fold, lower: lower, lowFrom: -1, nextLo: -1, nextUp: -1}
	score := func(c byte) byte {
		if fold && 'a' <= c && c <= 'z' {
			return max(byteRank[c], byteRank[c-'a'+'A'])
		}
		return byteRank[c]
	}
	f.rare = needle[0]
	for i, c := range needle {
		if score(c) < score(f.rare) {
			f.rare, f.off = c, i
		}
	}
	if fold && 'a' <= f.rare && f.rare <= 'z' {
		f.rareUp = f.rare - 'a' + 'A'
	}
	return f
}

// next returns the offset in text of the first needle at or after p, or
// -1. p must not be less than in the previous call.
func (f *finder) next(p int) int {
	text, n := f.text, len(f.needle)
	if f.lowFrom >= 0 {
		if j := bytes.Index((*f.lower)[p-f.lowFrom:], f.needle); j >= 0 {
			return p + j
		}
		return -1
	}
	if n == 1 && !f.fold {
		if j := bytes.IndexByte(text[p:], f.rare); j >= 0 {
			return p + j
		}
		return -1
	}
	// The rare byte of a needle at s is at s+off, with s <= len(text)-n.
	end := len(text) - n + f.off + 1
	for start, fails := p, 0; p+n <= len(text); {
		var r int
		if f.rareUp == 0 {
			j := bytes.IndexByte(text[p+f.off:end], f.rare)
			if j < 0 {
				return -1
			}
			r = p + f.off + j
		} else {
			f.nextLo = nextByte(text, f.nextLo, p+f.off, end, f.rare)
			f.nextUp = nextByte(text, f.nextUp, p+f.off, end, f.rareUp)
			if r = min(f.nextLo, f.nextUp); r == math.MaxInt {
				return -1
			}
		}
		s := r - f.off
		if f.equal(text[s : s+n]) {
			return s
		}
		p = s + 1
		// Too many false starts for the distance covered: leave the rest
		// to bytes.Index.
		if fails++; fails > 8+(p-start)>>5 {
			return f.index(p)
		}
	}
	return -1
}

// nextByte returns where c next occurs in text[from:end], given that
// cached is where it was last found (math.MaxInt: not before end; below
// from: to look again).
func nextByte(text []byte, cached, from, end int, c byte) int {
	if cached >= from {
		return cached
	}
	if j := bytes.IndexByte(text[from:end], c); j >= 0 {
		return from + j
	}
	return math.MaxInt
}

// equal reports whether b is the needle (up to ASCII case when fold).
func (f *finder) equal(b []byte) bool {
	if !f.fold {
		return bytes.Equal(b, f.needle)
	}
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != f.needle[i] {
			return false
		}
	}
	return true
}

// index returns the offset in text of the first needle at or after p, or
// -1, with bytes.Index; for a fold needle it lowers text[p:] first, and
// next then uses that copy from then on.
func (f *finder) index(p int) int {
	hay := f.text[p:]
	if f.fold {
		*f.lower = grow(*f.lower, len(hay))
		lowerASCII(*f.lower, hay)
		f.lowFrom = p
		hay = *f.lower
	}
	if j := bytes.Index(hay, f.needle); j >= 0 {
		return p + j
	}
	return -1
}
