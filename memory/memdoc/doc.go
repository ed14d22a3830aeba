// Package memdoc reads memory documents: Markdown files kept under a
// workspace (by default .anchorage/memory/**/*.md and
// specs/**/memory/*.md) whose optional YAML front matter describes them
// (title, description, trigger_phrases, importance_tier, contextType) and
// whose sections are marked by HTML comments:
//
//	<!-- ANCHOR:summary -->
//	The service retries idempotent calls only.
//	<!-- /ANCHOR:summary -->
//
// ParseSections extracts the sections in one linear pass and reports the
// markers that do not pair up as Warnings; Select returns only the
// sections a caller asks for, and Metrics the tokens that saves. A Store
// keeps the documents of each workspace in the user's memory database, so
// that memory search can rank them.
package memdoc
