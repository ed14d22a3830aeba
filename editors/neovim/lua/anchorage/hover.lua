-- Hover beside other servers. Neovim 0.11 and later show every server's
-- hover in one float. Before, each server's answer opens its own float:
-- the last one replaces the others (gopls's signature disappears behind
-- Anchorage's rules), and when a float is already open the next answer
-- moves the cursor into it. On those versions this handler, installed for
-- every client, collects the answers to one hover request and shows them
-- in one float, the other servers' first and Anchorage's rules after,
-- without taking the cursor.
local compat = require('anchorage.compat')

local M = {}

--- The float being shown: the request it answers (buffer and position),
--- its window, and the lines of each client that answered.
local shown = nil

local function markdown_lines(result)
  if not (result and result.contents) then
    return {}
  end
  local lines = vim.lsp.util.convert_input_to_markdown_lines(result.contents)
  return vim.lsp.util.trim_empty_lines(lines)
end

--- Conceals inline code's backticks in a float (Neovim 0.7's markdown
--- syntax shows them: `db.Open` rather than db.Open).
local function conceal_backticks(buf)
  pcall(vim.api.nvim_buf_call, buf, function()
    vim.cmd([[syntax region anchorageInlineCode matchgroup=markdownCodeDelimiter start="`" end="`" oneline keepend concealends containedin=ALL]])
    vim.cmd('highlight default link anchorageInlineCode markdownCode')
  end)
end

--- The lines of the merged float: each client's answer, Anchorage's last,
--- separated by a rule.
function M.merge(parts, anchorage_ids)
  local ids = vim.tbl_keys(parts)
  table.sort(ids, function(a, b)
    local aa, ab = anchorage_ids[a] and 1 or 0, anchorage_ids[b] and 1 or 0
    if aa ~= ab then
      return aa < ab
    end
    return a < b
  end)
  local out = {}
  for i, id in ipairs(ids) do
    if i > 1 then
      table.insert(out, '---')
    end
    vim.list_extend(out, parts[id])
  end
  return out
end

local function anchorage_ids()
  local out = {}
  for _, c in ipairs(compat.get_clients({ name = require('anchorage').name })) do
    out[c.id] = true
  end
  return out
end

--- The textDocument/hover handler (err, result, ctx, config).
function M.handle(_, result, ctx, config)
  local bufnr, pos = ctx.bufnr, ctx.params and ctx.params.position
  if not bufnr or not pos or vim.api.nvim_get_current_buf() ~= bufnr then
    return -- the user moved on
  end
  local lines = markdown_lines(result)
  if #lines == 0 then
    return
  end
  local key = string.format('%d:%d:%d', bufnr, pos.line, pos.character)
  local open = shown and shown.win and vim.api.nvim_win_is_valid(shown.win)
  if open and shown.key == key and shown.parts[ctx.client_id] then
    -- K again on the same place: into the float, as Neovim does.
    vim.api.nvim_set_current_win(shown.win)
    return
  end
  if not open or shown.key ~= key then
    shown = { key = key, parts = {} }
  end
  shown.parts[ctx.client_id] = lines
  local opts = vim.tbl_extend('force', config or {}, { focus_id = 'textDocument/hover', focus = false })
  -- Replaces the float of this buffer (the earlier answers') in place.
  local buf, win = vim.lsp.util.open_floating_preview(M.merge(shown.parts, anchorage_ids()), 'markdown', opts)
  shown.win = win
  if buf then
    conceal_backticks(buf)
  end
  return buf, win
end

local installed = false

--- The handler for Anchorage's client, or nil on Neovim 0.11 and later
--- (which merges hovers itself). Installs it for the other clients too.
function M.handler()
  if compat.has('0.11') then
    return nil
  end
  if not installed then
    installed = true
    vim.lsp.handlers['textDocument/hover'] = M.handle
  end
  return M.handle
end

return M
