;;; eglot-check.el --- the README's eglot configuration against a real anchorage serve  -*- lexical-binding: t; -*-
;;
;; Run by editors/emacs/test/run.sh:
;;   ANCHORAGE_BIN=... ANCHORAGE_DATA=... ANCHORAGE_ROOT=... ANCHORAGE_RESULT=... \
;;     emacs --batch -l eglot-check.el
;;
;; ANCHORAGE_ROOT is a copy of testdata/sampleapp whose memory (in
;; ANCHORAGE_DATA) was seeded by run.sh: rule 1 anchored on db.Open in
;; internal/db/db.go, proposal 2 pending at the top of api/handlers.go.
;; Writes "ok <check>" or "FAIL <check>: ..." lines to ANCHORAGE_RESULT and
;; exits non-zero on a failure.

(require 'package)
(package-initialize)
(require 'eglot)
(require 'flymake)

(defvar anchorage-result-lines nil)
(defvar anchorage-failed nil)

(defun anchorage-emit (fmt &rest args)
  (let ((line (apply #'format fmt args)))
    (push line anchorage-result-lines)
    (princ (concat "[eglot] " line "\n") #'external-debugging-output)))

(defun anchorage-ok (name detail)
  (anchorage-emit "ok %s" name)
  (anchorage-emit "   %s" (replace-regexp-in-string "\n" " / " detail)))

(defun anchorage-fail (name detail)
  (setq anchorage-failed t)
  (anchorage-emit "FAIL %s: %s" name (replace-regexp-in-string "\n" " / " (format "%s" detail))))

(defun anchorage-finish ()
  (with-temp-file (getenv "ANCHORAGE_RESULT")
    (insert (mapconcat #'identity (reverse anchorage-result-lines) "\n") "\n"))
  (kill-emacs (if anchorage-failed 1 0)))

(defun anchorage-wait (seconds pred)
  "Wait up to SECONDS for PRED, serving the server's messages meanwhile."
  (let ((deadline (+ (float-time) seconds)) (v nil))
    (while (and (not (setq v (funcall pred))) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    v))

;; Emacs 28 has no Go mode: a minimal one, named as go-mode is, so that
;; eglot sends languageId "go".
(unless (fboundp 'go-mode)
  (define-derived-mode go-mode prog-mode "Go"))
(add-to-list 'auto-mode-alist '("\\.go\\'" . go-mode))

;; The README's configuration as written there (run.sh extracts it), then
;; its program pointed at the test's binary and data directory.
(load (getenv "ANCHORAGE_README_EL") nil t)
(let ((entry (seq-find (lambda (e) (equal (cdr e) '("anchorage" "serve"))) eglot-server-programs)))
  (unless entry
    (anchorage-fail "readme" "the README's form added no (\"anchorage\" \"serve\") entry to eglot-server-programs")
    (anchorage-finish))
  (setcdr entry (list (getenv "ANCHORAGE_BIN") "--data-dir" (getenv "ANCHORAGE_DATA") "serve")))

(defvar anchorage-root (file-name-as-directory (getenv "ANCHORAGE_ROOT")))

(defun anchorage-visit (rel)
  (find-file (expand-file-name rel anchorage-root))
  ;; As the README's hook does; eglot-ensure connects after the command
  ;; (post-command-hook), which a batch session runs by hand.
  (eglot-ensure)
  (run-hooks 'post-command-hook)
  (anchorage-wait 20 (lambda () (and (eglot-current-server) eglot--managed-mode))))

(defun anchorage-command (server command &rest args)
  (jsonrpc-request server :workspace/executeCommand
                   `(:command ,command :arguments ,(vconcat args))))

(defun anchorage-run ()
  (setq eglot-sync-connect 10 eglot-autoshutdown t)
  ;; Wait for the index (the CLI built it when seeding).
  (anchorage-visit "internal/db/db.go")
  (let ((server (eglot-current-server)))
    (unless server
      (anchorage-fail "connect" "eglot did not connect")
      (anchorage-finish))
    (let ((caps (eglot--capabilities server)))
      (let ((missing (seq-remove (lambda (k) (plist-get caps k))
                                 '(:hoverProvider :codeActionProvider :codeLensProvider :executeCommandProvider
                                                  :workspaceSymbolProvider :documentSymbolProvider :callHierarchyProvider))))
        (if missing
            (anchorage-fail "capabilities" (format "missing %S in %S" missing caps))
          (anchorage-ok "capabilities"
                        (format "%s: hover, codeAction, codeLens, executeCommand (%d commands), workspace/document symbols, call hierarchy"
                                (eglot--project-nickname server)
                                (length (plist-get (plist-get caps :executeCommandProvider) :commands)))))))
    (anchorage-wait 30 (lambda ()
                         (let* ((st (anchorage-command server "anchorage.index.status"))
                                (f (aref (plist-get st :folders) 0)))
                           (and (eq (plist-get f :indexing) :json-false) (> (plist-get f :files) 1)))))

    ;; Hover over Open in `func Open(` shows the rule anchored there.
    (goto-char (point-min))
    (re-search-forward "^func \\(Open\\)(")
    (goto-char (match-beginning 1))
    (let* ((hover (jsonrpc-request server :textDocument/hover (eglot--TextDocumentPositionParams)))
           (contents (plist-get hover :contents))
           (text (if (stringp contents) contents (plist-get contents :value))))
      (if (and text (string-match-p "Wrap errors with context using fmt.Errorf and %w" text))
          (anchorage-ok "hover" (substring text 0 (min 160 (length text))))
        (anchorage-fail "hover" (format "%S" hover))))

    ;; Code lenses (eglot does not show them, but the server answers).
    (let* ((lenses (jsonrpc-request server :textDocument/codeLens
                                    `(:textDocument ,(eglot--TextDocumentIdentifier))))
           (lens (and (> (length lenses) 0) (aref lenses 0)))
           (resolved (and lens (jsonrpc-request server :codeLens/resolve lens)))
           (title (plist-get (plist-get resolved :command) :title)))
      (if (and title (string-prefix-p "⚓ 1 rule: Wrap errors" title))
          (anchorage-ok "codelens" (format "line %d: %s" (1+ (plist-get (plist-get (plist-get lens :range) :start) :line)) title))
        (anchorage-fail "codelens" (format "%S" lenses))))

    ;; Routed search through the server's command.
    (let* ((res (anchorage-command server "anchorage.search" '(:query "who calls FindByID")))
           (results (plist-get res :results)))
      (if (and (> (length results) 0) (equal (plist-get res :strategy) "structural"))
          (anchorage-ok "search" (format "%s: %d results, first %s:%s"
                                         (plist-get res :strategy) (length results)
                                         (plist-get (aref results 0) :file) (plist-get (aref results 0) :line)))
        (anchorage-fail "search" (format "%S" res))))

    ;; The proposal's hint in api/handlers.go (flymake), and approving it
    ;; with its code action.
    (anchorage-visit "api/handlers.go")
    (let ((diag (anchorage-wait 15 (lambda ()
                                     ;; Flymake defers its start until a
                                     ;; command ends in a window; start it.
                                     (flymake-start nil t)
                                     (accept-process-output nil 0.1)
                                     (seq-find (lambda (d) (string-match-p "Proposed rule" (flymake-diagnostic-text d)))
                                               (flymake-diagnostics (point-min) (point-max)))))))
      (if (not diag)
          (anchorage-fail "proposal-hint" (format "flymake: %S" (mapcar #'flymake-diagnostic-text (flymake-diagnostics))))
        (anchorage-ok "proposal-hint" (flymake-diagnostic-text diag))
        (let* ((actions (jsonrpc-request
                         server :textDocument/codeAction
                         `(:textDocument ,(eglot--TextDocumentIdentifier)
                                         :range (:start (:line 0 :character 0) :end (:line 0 :character 0))
                                         :context (:diagnostics ,(vconcat (mapcar (lambda (d) (alist-get 'eglot-lsp-diag (flymake-diagnostic-data d)))
                                                                                  (list diag)))))))
               (approve (seq-find (lambda (a) (string-prefix-p "Approve rule: " (plist-get a :title))) actions))
               (command (and approve (plist-get approve :command))))
          (if (not command)
              (anchorage-fail "approve-code-action" (format "%S" actions))
            (eglot-execute-command server (intern (plist-get command :command)) (plist-get command :arguments))
            (let* ((rules (plist-get (anchorage-command server "anchorage.memory.list") :rules))
                   (rule (seq-find (lambda (r) (eql (plist-get r :id) 2)) rules)))
              (if (and rule (equal (plist-get rule :anchor_status) "anchored"))
                  (anchorage-ok "approve-code-action"
                                (format "%s → rule 2 anchored on %s"
                                        (mapconcat (lambda (a) (plist-get a :title)) actions ", ")
                                        (plist-get (plist-get rule :anchor) :symbol)))
                (anchorage-fail "approve-code-action" (format "%S" rules))))
            (let ((gone (anchorage-wait 10 (lambda ()
                                             (flymake-start nil t)
                                             (accept-process-output nil 0.1)
                                             (not (seq-find (lambda (d) (string-match-p "Proposed rule" (flymake-diagnostic-text d)))
                                                            (flymake-diagnostics (point-min) (point-max))))))))
              (if gone
                  (anchorage-ok "hint-cleared" "the proposal's hint is gone after the approval")
                (anchorage-fail "hint-cleared" "the hint is still shown"))))))))
  (ignore-errors (eglot-shutdown (eglot-current-server)))
  (anchorage-finish))

(condition-case err
    (anchorage-run)
  (error (anchorage-fail "script" (error-message-string err))
         (anchorage-finish)))
