package memory

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestAnchorOpposite(t *testing.T) {
	tests := []struct {
		rule, name string
		want       float64
	}{
		// The rule verifies; Sign does the other half.
		{"A signature of the wrong length fails verification", "Sign", 1},
		{"A signature of the wrong length fails verification", "Verify", 0},
		{"A signature of the wrong length fails verification", "verifySignature", 0},
		// The contrast clause counts: the rule is about writing.
		{"Check the frame length fits before finishing it, instead of writing a corrupt header", "ReadFrameHeader", 1},
		{"Check the frame length fits before finishing it, instead of writing a corrupt header", "endWrite", 0},
		// A rule that speaks of both halves has no opposite.
		{"Pause the protocol when the buffer is full and resume it once it drains", "pause_writing", 0},
		{"Pause the protocol when the buffer is full and resume it once it drains", "resume_reading", 0},
		// No verb of the table in the rule.
		{"Bound the length of every header string", "ReadHeader", 0},
		{"Decode both forms of a claim", "UnmarshalJSON", 0},
		{"Decode both forms of a claim", "EncodeClaim", 1},
		{"Close the file in a deferred function", "", 0},
	}
	for _, tt := range tests {
		rq := analyzeAnchorRule(tt.rule)
		if got := rq.opposite(tt.name); got != tt.want {
			t.Errorf("%q: opposite(%q) = %v, want %v", tt.rule, tt.name, got, tt.want)
		}
	}
}

func TestAnchorOption(t *testing.T) {
	const leeway = "Allow the configured leeway on exp and nbf so small clock differences do not reject a valid token"
	tests := []struct {
		rule, name string
		want       float64
	}{
		{leeway, "WithTimeFunc", 1},
		{leeway, "WithLeeway", 0}, // the option the rule is about
		{leeway, "SetInterrupt", 1},
		{leeway, "set_debug", 1},
		{leeway, "verifyNotBefore", 0},
		{leeway, "withLock", 0}, // a helper, not an option
		{leeway, "With", 0},
		{leeway, "Settings", 0},
		{"The start method may be set only once", "set_start_method", 0},
	}
	for _, tt := range tests {
		rq := analyzeAnchorRule(tt.rule)
		if got := rq.option(tt.name); got != tt.want {
			t.Errorf("%q: option(%q) = %v, want %v", tt.rule, tt.name, got, tt.want)
		}
	}
}

func TestAnchorTestsAsVerb(t *testing.T) {
	tests := []struct {
		rule       string
		aboutTests bool
	}{
		{"Every error we return wraps a sentinel, so callers can test for it with errors.Is", false},
		{"Remember to test whether the key is set", false},
		{"Fuzz tests for parsers are seeded with a real fixture", true},
		{"Round-trip tests decode a fixture and encode it again", true},
		{"Tests must be able to test for leaks", true}, // one noun is enough
		{"Close the file in a deferred function", false},
	}
	for _, tt := range tests {
		if got := analyzeAnchorRule(tt.rule).aboutTests; got != tt.aboutTests {
			t.Errorf("%q: aboutTests = %v, want %v", tt.rule, got, tt.aboutTests)
		}
	}
}

// TestAnchorOppositeVerb anchors a rule about verifying in a workspace
// where the signing method's Sign shares as many of the rule's words as
// its Verify: the verb decides, and Verify is the example.
func TestAnchorOppositeVerb(t *testing.T) {
	root := t.TempDir()
	const src = `package sig

import "errors"

// ErrLength is the error of a signature of the wrong length.
var ErrLength = errors.New("sig: signature of the wrong length")

// Method is an ECDSA signing method.
type Method struct{ keySize int }

// Sign returns the signature of payload.
func (m *Method) Sign(payload []byte) ([]byte, error) {
	sig := make([]byte, 2*m.keySize)
	copy(sig, payload)
	if len(sig) != 2*m.keySize {
		return nil, ErrLength
	}
	return sig, nil
}

// Verify returns an error unless sig is the signature of payload.
func (m *Method) Verify(payload, sig []byte) error {
	if len(sig) != 2*m.keySize {
		return ErrLength
	}
	for i := range payload {
		if payload[i] != sig[i] {
			return errors.New("sig: mismatch")
		}
	}
	return nil
}
`
	if err := os.WriteFile(filepath.Join(root, "sig.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	a := NewAnchorer(openEvalIndex(t, root, ""))
	const rule = "An ECDSA signature must be exactly twice the key size long; any other length fails verification"
	res, err := a.FindAnchor(context.Background(), rule, AnchorOptions{Scope: "language:go"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Candidates) < 2 || res.Candidates[0].Symbol != "Method.Verify" {
		t.Fatalf("candidates of %q = %+v, want Method.Verify first", rule, res.Candidates)
	}
}

// FuzzAnchorRuleVerbs analyses any rule text and any symbol name: the
// verb and option features stay 0 or 1, a rule with a verb of the table
// names its family, and nothing panics.
func FuzzAnchorRuleVerbs(f *testing.F) {
	f.Add("A signature of the wrong length fails verification", "Sign")
	f.Add("Allow the configured leeway, instead of writing; callers can test for it", "WithTimeFunc")
	f.Add("", "")
	f.Add("set_x With WithWith tests test", "set_")
	f.Add("Décoder les données \u00e9", "décoder_Données")
	f.Fuzz(func(t *testing.T, rule, name string) {
		rq := analyzeAnchorRule(rule)
		for _, v := range []float64{rq.opposite(name), rq.option(name)} {
			if v != 0 && v != 1 {
				t.Fatalf("%q, %q: feature %v, want 0 or 1", rule, name, v)
			}
		}
		for f := range rq.verbs {
			if len(anchorVerbTable().opposites[f]) == 0 {
				t.Errorf("%q: verb family %q has no opposite", rule, f)
			}
		}
		if rq.aboutTests && anchorTestsAsVerb(rule) {
			t.Errorf("%q: about tests although every test in it is a verb", rule)
		}
	})
}
