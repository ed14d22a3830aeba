package wordvec

import (
	"os"
	"testing"
)

func BenchmarkLoad(b *testing.B) {
	for b.Loop() {
		if _, err := Load(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEmbed40Lines embeds a 40-line Go function.
func BenchmarkEmbed40Lines(b *testing.B) {
	m := load(b)
	fn, err := os.ReadFile("testdata/func40.go.txt")
	if err != nil {
		b.Fatal(err)
	}
	text := string(fn)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		m.Embed(text)
	}
}

func BenchmarkEmbedQuery(b *testing.B) {
	m := load(b)
	b.ReportAllocs()
	for b.Loop() {
		m.Embed("how are users loaded from the database")
	}
}

func BenchmarkNeighbors(b *testing.B) {
	m := load(b)
	m.Neighbors("database", 10) // the row norms, once per Model
	b.ReportAllocs()
	for b.Loop() {
		m.Neighbors("database", 10)
	}
}

// BenchmarkNeighborsFirst includes computing the row norms.
func BenchmarkNeighborsFirst(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		m := load(b)
		b.StartTimer()
		m.Neighbors("database", 10)
	}
}

func BenchmarkDotQuantized(b *testing.B) {
	m := load(b)
	q1 := Quantize(m.Embed("open a database connection"))
	q2 := Quantize(m.Embed("connect to sqlite"))
	for b.Loop() {
		if _, err := DotQuantized(q1, q2); err != nil {
			b.Fatal(err)
		}
	}
}
