package lsp

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// progress reports long work to the editor with work done progress
// ($/progress begin, report, end), when the editor supports it; otherwise
// it does nothing. The token is created without holding up the work: what
// happens before the editor accepts it is summed up in the first report,
// and work that ended before then is still begun and ended, so that the
// editor says it is done (an index already up to date takes milliseconds).
type progress struct {
	s     *Server
	ctx   context.Context
	title string

	mu     sync.Mutex
	token  *protocol.ProgressToken // set once the editor accepted it
	ended  bool
	endMsg string // end's message
	last   time.Time
	pct    uint32
	done   int
	total  int
}

// startProgress begins reporting work under a title. When cancel is not
// nil the editor may cancel the work.
func (s *Server) startProgress(ctx context.Context, title string, cancel context.CancelFunc) *progress {
	p := &progress{s: s, ctx: ctx, title: title}
	s.mu.Lock()
	supported := s.caps.Window != nil && s.caps.Window.WorkDoneProgress
	s.mu.Unlock()
	if !supported {
		return p
	}
	go func() {
		token := protocol.NewProgressToken(fmt.Sprintf("anchorage-%d", time.Now().UnixNano()))
		// Not the work's context: work that ends before the editor
		// answers would cancel the request and leave a token dangling.
		cctx, stop := context.WithTimeout(s.bg, 10*time.Second)
		defer stop()
		if err := s.client.WorkDoneProgressCreate(cctx, &protocol.WorkDoneProgressCreateParams{Token: *token}); err != nil {
			s.log.Debug("window/workDoneProgress/create failed", zap.Error(err))
			return
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.ended {
			p.token = token
			p.send(&protocol.WorkDoneProgressBegin{Kind: protocol.WorkDoneProgressKindBegin, Title: title, Percentage: 0})
			p.send(&protocol.WorkDoneProgressEnd{Kind: protocol.WorkDoneProgressKindEnd, Message: p.endMsg})
			p.token = nil
			return
		}
		p.token = token
		if cancel != nil {
			s.mu.Lock()
			s.progressCancels[token.String()] = cancel
			s.mu.Unlock()
		}
		p.send(&protocol.WorkDoneProgressBegin{Kind: protocol.WorkDoneProgressKindBegin, Title: title, Percentage: 0, Cancellable: cancel != nil})
		if p.total > 0 {
			p.sendReport()
		}
	}()
	return p
}

// report records the files done and sends the share, at most every 100 ms.
func (p *progress) report(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.total = done, total
	if p.token == nil || total == 0 {
		return
	}
	pct := uint32(done * 100 / total)
	if done != total && (time.Since(p.last) < 100*time.Millisecond || pct == p.pct) {
		return
	}
	p.sendReport()
}

func (p *progress) sendReport() {
	p.last, p.pct = time.Now(), uint32(p.done*100/p.total)
	p.send(&progressReport{
		Kind: protocol.WorkDoneProgressKindReport, Percentage: p.pct,
		Message: fmt.Sprintf("%d/%d files", p.done, p.total),
	})
}

// progressReport is protocol.WorkDoneProgressReport with the percentage
// always sent: the library's omitempty drops 0 %, and a report without a
// percentage tells the editor the work has none.
type progressReport struct {
	Kind       protocol.WorkDoneProgressKind `json:"kind"`
	Message    string                        `json:"message,omitempty"`
	Percentage uint32                        `json:"percentage"`
}

// end sends the end of the work with a closing message.
func (p *progress) end(message string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ended, p.endMsg = true, message
	if p.token == nil {
		return
	}
	p.send(&protocol.WorkDoneProgressEnd{Kind: protocol.WorkDoneProgressKindEnd, Message: message})
	p.s.mu.Lock()
	delete(p.s.progressCancels, p.token.String())
	p.s.mu.Unlock()
	p.token = nil
}

// send writes one $/progress notification; p.mu is held.
func (p *progress) send(value any) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(p.ctx), 5*time.Second)
	defer cancel()
	if err := p.s.client.Progress(ctx, &protocol.ProgressParams{Token: *p.token, Value: value}); err != nil {
		p.s.log.Debug("$/progress failed", zap.Error(err))
	}
}

// workDoneProgressCancel cancels the work the editor asked to cancel
// (indexing: what was indexed so far stays, the rest waits for the next
// refresh).
func (s *Server) workDoneProgressCancel(ctx context.Context, p *protocol.WorkDoneProgressCancelParams) error {
	s.mu.Lock()
	cancel := s.progressCancels[p.Token.String()]
	s.mu.Unlock()
	if cancel == nil {
		s.log.Debug("cancel for unknown progress", zap.Any("token", p.Token))
		return nil
	}
	s.info("indexing cancelled by the editor")
	cancel()
	return nil
}
