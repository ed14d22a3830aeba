package budget

import (
	"unicode"
	"unicode/utf8"
)

// The estimator mirrors the pre-tokenizer of OpenAI's cl100k_base encoding:
// it splits text at the same places (words with one leading space or
// symbol, runs of one to three digits, runs of punctuation, runs of
// whitespace), and almost every such piece is one token. Only long words
// and long runs of punctuation, and letters outside ASCII, are estimated.
// Costs are in units of 1/unit token; the constants below were fitted
// against cl100k_base on Go and Python standard library sources (see
// TestEstimatorError in the bpe package for the measured error).
const (
	unit = 8

	// freeLetters is how many letters of one part of a word (split at
	// case changes: "FindByID" is Find, By, ID) the piece's first token
	// covers; every further letter costs extraLetter.
	freeLetters = 8
	extraLetter = 2
	// leadCost is the extra cost of a word led by a symbol or a tab
	// rather than a space ("_name", ".Close", "\treturn").
	leadCost = 2
	// extraPunct is the cost of every symbol of a run after its first.
	extraPunct = 1
	// cjkLetter is the cost of a Han, Kana or Hangul letter, otherLetter
	// that of any other letter outside ASCII, and otherSymbol that of a
	// symbol outside ASCII or a byte that is not UTF-8.
	cjkLetter   = 9
	otherLetter = 4
	otherSymbol = 8
)

// Estimator estimates how many tokens a text takes, without a vocabulary:
// it splits the text where a byte-pair tokenizer would (code, prose and
// other scripts alike) and estimates each piece. It is fast (tens of
// megabytes a second, some 20 times the exact tokenizer) and needs no
// data; see the package documentation for its error. The zero value is
// ready to use and safe for concurrent use.
type Estimator struct{}

// Estimate returns the estimated number of tokens in text.
func Estimate(text string) int { return Estimator{}.Count(text) }

// Count returns the estimated number of tokens in text.
func (Estimator) Count(text string) int {
	total := 0
	scan(text, func(_, cost int) bool {
		total += cost
		return true
	})
	return (total + unit - 1) / unit
}

// PrefixLen returns the length in bytes of the longest prefix of text
// that ends between two pieces and that Count estimates at most maxTokens
// tokens. It is 0 when maxTokens is not positive.
func (Estimator) PrefixLen(text string, maxTokens int) int {
	if maxTokens <= 0 {
		return 0
	}
	limit, total, n := maxTokens*unit, 0, 0
	scan(text, func(end, cost int) bool {
		if total+cost > limit {
			return false
		}
		total += cost
		n = end
		return true
	})
	return n
}

// scan splits text into the pieces of the cl100k_base pre-tokenizer and
// calls emit with the end offset and estimated cost of each, until emit
// returns false.
func scan(text string, emit func(end, cost int) bool) {
	for i := 0; i < len(text); {
		end, cost := piece(text, i)
		if !emit(end, cost) {
			return
		}
		i = end
	}
}

// piece returns the end and cost of the piece starting at i, following the
// alternatives of cl100k_base's pattern in order:
//
//	(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//	 ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
func piece(text string, i int) (end, cost int) {
	r, w := decode(text, i)
	if r == '\'' {
		if n := contraction(text[i+1:]); n > 0 {
			return i + 1 + n, unit
		}
	}
	if isLetter(r) {
		return word(text, i, 0)
	}
	if r != '\r' && r != '\n' && !isNumber(r) && i+w < len(text) {
		if next, _ := decode(text, i+w); isLetter(next) {
			lead := leadCost
			if r == ' ' {
				lead = 0
			}
			return word(text, i+w, lead)
		}
	}
	if isNumber(r) {
		end = i + w
		for n := 1; n < 3 && end < len(text); n++ {
			next, nw := decode(text, end)
			if !isNumber(next) {
				break
			}
			end += nw
		}
		return end, unit
	}
	if isPunct(r) {
		return punct(text, i)
	}
	if r == ' ' && i+1 < len(text) {
		if next, _ := decode(text, i+1); isPunct(next) {
			return punct(text, i+1)
		}
	}
	return space(text, i)
}

// contraction returns the length of the English contraction suffix ('s,
// 're, …) that s starts with, after the apostrophe, or 0.
func contraction(s string) int {
	lower := func(k int) byte {
		if k >= len(s) {
			return 0
		}
		return s[k] | 0x20
	}
	switch c := lower(0); {
	case c == 's' || c == 't' || c == 'm' || c == 'd':
		return 1
	case c == 'r' && lower(1) == 'e', c == 'v' && lower(1) == 'e', c == 'l' && lower(1) == 'l':
		return 2
	}
	return 0
}

// word returns the end and cost of the run of letters starting at i.
func word(text string, i, lead int) (end, cost int) {
	cost = lead
	part, prev := 0, rune(0) // letters in the current ASCII part; previous letter
	for end = i; end < len(text); {
		r, w := decode(text, end)
		if !isLetter(r) {
			break
		}
		switch {
		case r >= utf8.RuneSelf:
			if isCJK(r) {
				cost += cjkLetter
			} else {
				cost += otherLetter
			}
			part = 0
		case part == 0 || isUpper(r) && isLower(prev) || isUpper(r) && isUpper(prev) && end+1 < len(text) && isLower(rune(text[end+1])):
			// A new part: a lower-case letter after an upper-case one
			// ("HTTPServer" is HTTP, Server) or any start.
			cost += unit
			part = 1
		default:
			if part++; part > freeLetters {
				cost += extraLetter
			}
		}
		prev = r
		end += w
	}
	return end, cost
}

// punct returns the end and cost of the run of symbols starting at i,
// with the line breaks that follow it.
func punct(text string, i int) (end, cost int) {
	n := 0
	for end = i; end < len(text); {
		r, w := decode(text, end)
		if !isPunct(r) {
			break
		}
		switch {
		case r >= utf8.RuneSelf:
			cost += otherSymbol
		case n == 0:
			cost += unit
		default:
			cost += extraPunct
		}
		n++
		end += w
	}
	if cost < unit {
		cost = unit
	}
	for end < len(text) && (text[end] == '\n' || text[end] == '\r') {
		end++
	}
	return end, cost
}

// space returns the end and cost of the whitespace piece starting at i:
// up to the last line break of the run, else the run but its last
// character when something follows (that character leads the next piece).
func space(text string, i int) (end, cost int) {
	lastBreak, last := -1, i
	for end = i; end < len(text); {
		r, w := decode(text, end)
		if !isSpace(r) {
			break
		}
		if r == '\n' || r == '\r' {
			lastBreak = end + w
		}
		last = end
		end += w
	}
	switch {
	case lastBreak > 0:
		return lastBreak, unit
	case end < len(text) && last > i:
		return last, unit
	}
	return end, unit
}

// decode returns the rune at i and its width; a byte that is not UTF-8 is
// utf8.RuneError of width 1.
func decode(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

func isLetter(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r|0x20 && r|0x20 <= 'z'
	}
	return unicode.IsLetter(r)
}

func isNumber(r rune) bool {
	if r < utf8.RuneSelf {
		return '0' <= r && r <= '9'
	}
	return unicode.IsNumber(r)
}

func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || '\t' <= r && r <= '\r'
	}
	return unicode.IsSpace(r)
}

func isPunct(r rune) bool { return !isSpace(r) && !isLetter(r) && !isNumber(r) }

func isUpper(r rune) bool { return 'A' <= r && r <= 'Z' }

func isLower(r rune) bool { return 'a' <= r && r <= 'z' }

func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}
