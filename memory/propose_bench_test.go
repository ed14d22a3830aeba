package memory

import (
	"fmt"
	"path/filepath"
	"testing"
)

// benchTexts returns n corrections about n/5 different subjects, each in
// five wordings.
func benchTexts(n int) []string {
	forms := []string{"never use %s in production code", "don't use %s", "avoid %s()", "Stop calling %s please", "no %s in handlers"}
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(forms[i%len(forms)], fmt.Sprintf("subject%dthing", i/len(forms)))
	}
	return out
}

// BenchmarkMemoryCluster clusters maxClustered corrections: the most one
// Propose clusters.
func BenchmarkMemoryCluster(b *testing.B) {
	cs := memCorrections(benchTexts(maxClustered)...)
	for b.Loop() {
		if got := clusterCorrections(cs); len(got) != maxClustered/5 {
			b.Fatalf("%d clusters", len(got))
		}
	}
}

func BenchmarkMemoryRecordCorrection(b *testing.B) {
	s, err := Open(b.Context(), filepath.Join(b.TempDir(), "memory.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for b.Loop() {
		if _, err := s.RecordCorrection(b.Context(), Correction{Text: "never use panic in production Go code", File: "main.go"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMemoryPropose proposes from 100 open corrections, the
// proposals already stored (the common case of proposing again).
func BenchmarkMemoryPropose(b *testing.B) {
	s, err := Open(b.Context(), filepath.Join(b.TempDir(), "memory.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for _, t := range benchTexts(100) {
		if _, err := s.RecordCorrection(b.Context(), Correction{Text: t}); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if ps, err := s.Propose(b.Context()); err != nil || len(ps) != MaxProposals {
			b.Fatalf("Propose = %d, %v", len(ps), err)
		}
	}
}
