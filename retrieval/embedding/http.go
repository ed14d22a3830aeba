package embedding

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"
)

// httpProvider is an embedding server reached over HTTP; encode and
// decode speak its wire format.
type httpProvider struct {
	kind        string
	model       string
	endpoint    string
	apiKey      string
	timeout     time.Duration
	batch       int
	maxResponse int64
	client      http.Client

	encode func(model string, texts []string) ([]byte, error)
	// decode returns the n vectors of a response body.
	decode func(body []byte, n int) ([][]float32, error)
}

// Model returns the configured model name.
func (p *httpProvider) Model() string { return p.model }

// Kind returns "ollama" or "openai".
func (p *httpProvider) Kind() string { return p.kind }

// Embed sends texts in batches of the configured size, one request at a
// time, each bounded by the configured timeout and by ctx. All vectors
// must have one length, across batches too.
func (p *httpProvider) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += p.batch {
		end := min(start+p.batch, len(texts))
		vecs, err := p.embedBatch(ctx, texts[start:end])
		if err != nil {
			if end-start < len(texts) {
				return nil, fmt.Errorf("embedding: %s: texts %d..%d of %d: %w", p.kind, start, end-1, len(texts), err)
			}
			return nil, fmt.Errorf("embedding: %s: %w", p.kind, err)
		}
		if len(out) > 0 && len(vecs[0]) != len(out[0]) {
			return nil, fmt.Errorf("embedding: %s: texts %d..%d: vectors of %d dimensions after %d", p.kind, start, end-1, len(vecs[0]), len(out[0]))
		}
		out = append(out, vecs...)
	}
	return out, nil
}

// StatusError is a server's answer other than 2xx.
type StatusError struct {
	// StatusCode is the HTTP status code, e.g. 404.
	StatusCode int
	// Status is the status line, e.g. "404 Not Found".
	Status string
	// Body is the start of the response body: whitespace collapsed, at
	// most 512 bytes, followed by "…" when cut.
	Body string
}

func (e *StatusError) Error() string {
	if e.Body == "" {
		return "server answered " + e.Status
	}
	return fmt.Sprintf("server answered %s: %s", e.Status, e.Body)
}

// maxErrorBody caps how much of an error response a StatusError keeps.
const maxErrorBody = 512

func (p *httpProvider) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	body, err := p.encode(p.model, texts)
	if err != nil {
		return nil, fmt.Errorf("encoding request: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "anchorage")
	if p.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+p.apiKey)
	}
	resp, err := p.client.Do(req)
	if err != nil {
		// The url.Error names the method and URL; a deadline shows as
		// context.DeadlineExceeded through errors.Is.
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		excerpt, _ := io.ReadAll(io.LimitReader(resp.Body, 4*maxErrorBody))
		return nil, fmt.Errorf("POST %s: %w", p.endpoint, &StatusError{
			StatusCode: resp.StatusCode,
			Status:     resp.Status,
			Body:       cleanExcerpt(excerpt),
		})
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, p.maxResponse+1))
	if err != nil {
		return nil, fmt.Errorf("POST %s: reading response: %w", p.endpoint, err)
	}
	if int64(len(data)) > p.maxResponse {
		return nil, fmt.Errorf("POST %s: response larger than %d bytes", p.endpoint, p.maxResponse)
	}
	vecs, err := p.decode(data, len(texts))
	if err != nil {
		return nil, fmt.Errorf("POST %s: %w", p.endpoint, err)
	}
	return vecs, nil
}

// cleanExcerpt makes the start of a response body fit for an error
// message: valid UTF-8, whitespace collapsed, cut to maxErrorBody bytes
// with an ellipsis.
func cleanExcerpt(b []byte) string {
	cut := len(b) >= 4*maxErrorBody // the body may go on
	s := strings.Join(strings.Fields(strings.ToValidUTF8(string(b), "\uFFFD")), " ")
	if len(s) > maxErrorBody {
		cut = true
		s = s[:maxErrorBody]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
	}
	if cut {
		s += "…"
	}
	return s
}

// checkVectors checks that vecs holds n vectors of one non-zero length
// with finite values.
func checkVectors(vecs [][]float32, n int) error {
	if len(vecs) != n {
		return fmt.Errorf("got %d vectors for %d texts", len(vecs), n)
	}
	for i, v := range vecs {
		if len(v) == 0 {
			return fmt.Errorf("vector %d is empty", i)
		}
		if len(v) != len(vecs[0]) {
			return fmt.Errorf("vector %d has %d dimensions, vector 0 has %d", i, len(v), len(vecs[0]))
		}
		for j, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return fmt.Errorf("vector %d has a non-finite value at %d", i, j)
			}
		}
	}
	return nil
}

// embedRequest is the request body of both wire formats.
type embedRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
	// EncodingFormat asks OpenAI-compatible servers for JSON numbers
	// rather than base64.
	EncodingFormat string `json:"encoding_format,omitempty"`
}

func encodeRequest(model string, texts []string) ([]byte, error) {
	return json.Marshal(embedRequest{Model: model, Input: texts})
}

func encodeOpenAIRequest(model string, texts []string) ([]byte, error) {
	return json.Marshal(embedRequest{Model: model, Input: texts, EncodingFormat: "float"})
}

// decodeJSON decodes one JSON value from data into v, refusing trailing
// data.
func decodeJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("decoding response: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("decoding response: data after the JSON value")
	}
	return nil
}

// ollamaResponse is Ollama's answer to POST /api/embed.
type ollamaResponse struct {
	Model      string      `json:"model"`
	Embeddings [][]float32 `json:"embeddings"`
}

// decodeOllama decodes an Ollama /api/embed response for n texts.
func decodeOllama(data []byte, n int) ([][]float32, error) {
	var r ollamaResponse
	if err := decodeJSON(data, &r); err != nil {
		return nil, err
	}
	if r.Embeddings == nil {
		return nil, errors.New("response has no \"embeddings\"")
	}
	if err := checkVectors(r.Embeddings, n); err != nil {
		return nil, err
	}
	return r.Embeddings, nil
}

// openAIResponse is the answer to POST /v1/embeddings.
type openAIResponse struct {
	Data []struct {
		Index     *int      `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
	Model string `json:"model"`
}

// decodeOpenAI decodes an OpenAI /v1/embeddings response for n texts,
// putting the vectors in the order of their "index".
func decodeOpenAI(data []byte, n int) ([][]float32, error) {
	var r openAIResponse
	if err := decodeJSON(data, &r); err != nil {
		return nil, err
	}
	if r.Data == nil {
		return nil, errors.New("response has no \"data\"")
	}
	if len(r.Data) != n {
		return nil, fmt.Errorf("got %d vectors for %d texts", len(r.Data), n)
	}
	vecs := make([][]float32, n)
	for i, d := range r.Data {
		if d.Index == nil {
			return nil, fmt.Errorf("data[%d] has no index", i)
		}
		k := *d.Index
		if k < 0 || k >= n {
			return nil, fmt.Errorf("data[%d] has index %d, want 0..%d", i, k, n-1)
		}
		if vecs[k] != nil {
			return nil, fmt.Errorf("data[%d] repeats index %d", i, k)
		}
		if d.Embedding == nil {
			return nil, fmt.Errorf("data[%d] has no embedding", i)
		}
		vecs[k] = d.Embedding
	}
	if err := checkVectors(vecs, n); err != nil {
		return nil, err
	}
	return vecs, nil
}
