package wordvec

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// SplitWords splits text into lower-case words the way a programmer reads
// code: at every character that is neither a letter nor a digit, at
// lower-to-upper case changes (camelCase, PascalCase), before the last
// capital of an acronym (HTTPServer → http, server; parseURL → parse, url;
// plural acronyms stay whole: URLs → urls) and between letters and digits
// (utf8 → utf, 8). Words longer than 64 bytes (hashes, base64) are left
// out.
func SplitWords(text string) []string {
	var out []string
	eachWord(text, func(w string, parts []int) {
		if len(parts) == 0 {
			out = append(out, lower(w))
			return
		}
		start := 0
		for _, p := range parts {
			out = append(out, lower(w[start:p]))
			start = p
		}
		out = append(out, lower(w[start:]))
	})
	return out
}

// class is what a rune counts as when splitting identifiers.
type class uint8

const (
	other class = iota
	lowerLetter
	upperLetter
	digit
)

func classify(r rune) class {
	switch {
	case r < utf8.RuneSelf:
		switch {
		case 'a' <= r && r <= 'z':
			return lowerLetter
		case 'A' <= r && r <= 'Z':
			return upperLetter
		case '0' <= r && r <= '9':
			return digit
		}
		return other
	case unicode.IsUpper(r) || unicode.IsTitle(r):
		return upperLetter
	case unicode.IsLetter(r) || unicode.Is(unicode.Mn, r):
		return lowerLetter // letters without case count as lower-case
	case unicode.IsDigit(r):
		return digit
	}
	return other
}

// eachWord calls fn for each word of text, before lower-casing, with the
// byte offsets (within the word) of its letter–digit boundaries: "utf8"
// comes as ("utf8", [3]), so that a caller can first look the whole word
// up and fall back to its parts. parts is reused between calls.
func eachWord(text string, fn func(word string, parts []int)) {
	var parts []int
	// start is the byte offset of the current word, or -1 between words.
	start := -1
	var prev, prev2 class // classes of the two runes before i
	prevStart := 0        // byte offset of the rune before i
	emit := func(end int) {
		if start >= 0 && end-start <= maxWordLen {
			fn(text[start:end], parts)
		}
		start = -1
		parts = parts[:0]
	}
	for i, r := range text {
		c := classify(r)
		if c == other {
			emit(i)
			prev, prev2 = other, other
			continue
		}
		if start < 0 {
			start = i
		} else {
			switch {
			case prev == lowerLetter && c == upperLetter,
				prev == digit && c == upperLetter:
				emit(i)
				start = i
			case prev == upperLetter && c == lowerLetter && prev2 == upperLetter &&
				!pluralAcronym(text, i, r):
				// HTTPServer: the S begins a new word.
				emit(prevStart)
				start = prevStart
			case (prev == digit) != (c == digit):
				parts = append(parts, i-start)
			}
		}
		prev2, prev = prev, c
		prevStart = i
	}
	emit(len(text))
}

// pluralAcronym reports whether the lower-case r at i is the s of a plural
// acronym such as URLs or IDs: an s that ends the word.
func pluralAcronym(text string, i int, r rune) bool {
	if r != 's' {
		return false
	}
	if i+1 >= len(text) {
		return true
	}
	next, _ := utf8.DecodeRuneInString(text[i+1:])
	return classify(next) != lowerLetter
}

// lower lower-cases w, without allocating when it is lower-case ASCII.
func lower(w string) string {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c >= utf8.RuneSelf || ('A' <= c && c <= 'Z') {
			return strings.ToLower(w)
		}
	}
	return w
}

// appendLower appends w lower-cased to dst.
func appendLower(dst []byte, w string) []byte {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= utf8.RuneSelf {
			return append(dst[:len(dst)-i], strings.ToLower(w)...)
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}
