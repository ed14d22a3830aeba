// Package embedding turns texts into vectors through a Provider: an
// embedding server the user runs (Ollama, or any server speaking OpenAI's
// /v1/embeddings), or the built-in GloVe word vectors of package wordvec.
//
// HTTP providers are off by default: nothing here touches the network
// unless a Config names a server. Every vector should be stored with the
// Stamp of the provider that built it, so that a change of model is seen
// and the vectors rebuilt rather than compared across models.
package embedding

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/anchorage-dev/anchorage/retrieval/wordvec"
)

// Provider computes embeddings. Implementations are safe for concurrent
// use.
type Provider interface {
	// Model names the model that built the vectors; stored with them so
	// that a change of model re-embeds.
	Model() string
	// Embed returns one vector per text, in order, all of one length.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Kinds of provider, for Config.Kind.
const (
	// KindOllama is an Ollama server: POST {URL}/api/embed.
	KindOllama = "ollama"
	// KindOpenAI is a server speaking OpenAI's embeddings API: POST
	// {URL}/v1/embeddings (OpenAI, llama.cpp, vLLM, LM Studio, LiteLLM…).
	KindOpenAI = "openai"
	// KindWordVec is the built-in GloVe word vectors (package wordvec):
	// offline, no URL, no model to choose.
	KindWordVec = "wordvec"
)

// Defaults for Config fields left zero.
const (
	// DefaultOllamaURL is where Ollama listens unless told otherwise.
	DefaultOllamaURL = "http://localhost:11434"
	// DefaultTimeout bounds each HTTP request.
	DefaultTimeout = 60 * time.Second
	// DefaultBatchSize is the number of texts sent in one request.
	DefaultBatchSize = 64
	// MaxBatchSize is the largest batch accepted (OpenAI's limit of
	// inputs per request).
	MaxBatchSize = 2048
	// MaxResponseBytes caps the size of one response body read.
	MaxResponseBytes = 64 << 20
)

// ErrDisabled is returned by New for a Config without a Kind: embedding
// providers are opt-in.
var ErrDisabled = errors.New("embedding: no provider configured")

// Config chooses and configures a provider.
type Config struct {
	// Kind is "ollama", "openai" or "wordvec"; empty means disabled.
	Kind string `json:"kind"`
	// URL is the server's base URL, e.g. http://localhost:11434 for
	// Ollama or https://api.openai.com for OpenAI; a trailing /api
	// (Ollama) or /v1 (OpenAI) is accepted too. Ollama defaults to
	// DefaultOllamaURL; an OpenAI-compatible server must be named, so
	// that no code leaves the machine unless the user says where to.
	URL string `json:"url,omitempty"`
	// Model is the embedding model the server runs, e.g.
	// "nomic-embed-text" or "text-embedding-3-small"; required for HTTP
	// providers.
	Model string `json:"model,omitempty"`
	// APIKeyEnv names an environment variable holding an API key, sent
	// as "Authorization: Bearer <key>". It is read once, by New.
	APIKeyEnv string `json:"api_key_env,omitempty"`
	// APIKey is an API key given directly; APIKeyEnv is preferred, since
	// configuration files get shared. Setting both is an error.
	APIKey string `json:"api_key,omitempty"`
	// Timeout bounds each request; 0 means DefaultTimeout.
	Timeout time.Duration `json:"timeout,omitempty"`
	// BatchSize is the largest number of texts per request; 0 means
	// DefaultBatchSize.
	BatchSize int `json:"batch_size,omitempty"`
}

// New returns the provider cfg describes, after checking cfg. It returns
// ErrDisabled when cfg.Kind is empty. It makes no request: a server that
// is down or lacks the model shows at the first Embed.
func New(cfg Config) (Provider, error) {
	switch cfg.Kind {
	case "":
		return nil, ErrDisabled
	case KindWordVec:
		if cfg.URL != "" || cfg.Model != "" || cfg.APIKey != "" || cfg.APIKeyEnv != "" {
			return nil, errors.New("embedding: wordvec: the built-in model takes no url, model or API key")
		}
		m, err := wordvec.Load()
		if err != nil {
			return nil, fmt.Errorf("embedding: %w", err)
		}
		return NewWordVec(m), nil
	case KindOllama, KindOpenAI:
		return newHTTP(cfg)
	}
	return nil, fmt.Errorf("embedding: unknown provider kind %q (want %q, %q or %q)", cfg.Kind, KindOllama, KindOpenAI, KindWordVec)
}

// newHTTP checks cfg for an HTTP provider and builds it.
func newHTTP(cfg Config) (*httpProvider, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("embedding: %s: "+format, append([]any{cfg.Kind}, args...)...)
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, fail("model is required (the embedding model the server runs)")
	}
	raw := cfg.URL
	if raw == "" {
		if cfg.Kind != KindOllama {
			return nil, fail("url is required (for example https://api.openai.com or http://localhost:8080)")
		}
		raw = DefaultOllamaURL
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fail("url: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fail("url %q: scheme must be http or https", u.Redacted())
	}
	if u.Host == "" {
		return nil, fail("url %q has no host", u.Redacted())
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fail("url %q: a base URL takes no query or fragment", u.Redacted())
	}
	if cfg.Timeout < 0 {
		return nil, fail("timeout %v is negative", cfg.Timeout)
	}
	if cfg.BatchSize < 0 || cfg.BatchSize > MaxBatchSize {
		return nil, fail("batch size %d, want 1..%d (or 0 for %d)", cfg.BatchSize, MaxBatchSize, DefaultBatchSize)
	}
	key := cfg.APIKey
	if cfg.APIKeyEnv != "" {
		if key != "" {
			return nil, fail("set api_key or api_key_env, not both")
		}
		if !validEnvName(cfg.APIKeyEnv) {
			return nil, fail("api_key_env %q is not an environment variable name", cfg.APIKeyEnv)
		}
		key = os.Getenv(cfg.APIKeyEnv)
		if key == "" {
			return nil, fail("api_key_env: environment variable %s is not set", cfg.APIKeyEnv)
		}
	}
	if strings.ContainsAny(key, "\r\n") {
		return nil, fail("API key contains a line break")
	}

	p := &httpProvider{
		kind:        cfg.Kind,
		model:       cfg.Model,
		apiKey:      key,
		timeout:     cfg.Timeout,
		batch:       cfg.BatchSize,
		maxResponse: MaxResponseBytes,
	}
	if p.timeout == 0 {
		p.timeout = DefaultTimeout
	}
	if p.batch == 0 {
		p.batch = DefaultBatchSize
	}
	base := strings.TrimRight(u.String(), "/")
	switch cfg.Kind {
	case KindOllama:
		p.endpoint = strings.TrimSuffix(base, "/api") + "/api/embed"
		p.encode, p.decode = encodeRequest, decodeOllama
	case KindOpenAI:
		p.endpoint = strings.TrimSuffix(base, "/v1") + "/v1/embeddings"
		p.encode, p.decode = encodeOpenAIRequest, decodeOpenAI
	}
	return p, nil
}

// validEnvName reports whether s is a portable environment variable name.
func validEnvName(s string) bool {
	for i, c := range s {
		if !(c == '_' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return s != ""
}

// Stamp names the model that built a provider's vectors, as
// "<kind>:<model>" (for example "ollama:nomic-embed-text" or
// "wordvec:glove-6b-100d-62k-041a92ee"), for storing with the vectors.
// A provider of this package has a kind; for any other it is the Model.
func Stamp(p Provider) string {
	if k, ok := p.(interface{ Kind() string }); ok {
		return k.Kind() + ":" + p.Model()
	}
	return p.Model()
}
