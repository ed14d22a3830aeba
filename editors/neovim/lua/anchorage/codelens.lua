-- Code lenses: refreshed on BufEnter, InsertLeave and BufWritePost in the
-- buffers Anchorage is attached to. The refresh asks only when an
-- Anchorage client of the buffer advertises codeLensProvider: until the
-- server has code lenses the autocommands do nothing (Neovim 0.7 would
-- otherwise report "method textDocument/codeLens is not supported").
local compat = require('anchorage.compat')

local M = {}

local group_name = 'anchorage_codelens'

local function group()
  return vim.api.nvim_create_augroup(group_name, { clear = false })
end

--- The Anchorage client of the buffer that provides code lenses, or nil.
function M.provider(bufnr)
  for _, client in ipairs(compat.get_clients({ name = require('anchorage').name, bufnr = bufnr })) do
    local caps = client.server_capabilities
    if type(caps) == 'table' and caps.codeLensProvider and caps.codeLensProvider ~= vim.NIL then
      return client
    end
  end
  return nil
end

--- Refreshes the code lenses of a buffer when the server provides them.
--- Returns whether a refresh was asked for.
---@param bufnr integer|nil
---@return boolean
function M.refresh(bufnr)
  if bufnr == nil or bufnr == 0 then
    bufnr = vim.api.nvim_get_current_buf()
  end
  if not vim.api.nvim_buf_is_valid(bufnr) or not M.provider(bufnr) then
    return false
  end
  local codelens = vim.lsp.codelens
  if compat.has('0.10') and codelens.refresh then
    codelens.refresh({ bufnr = bufnr })
    return true
  end
  if codelens.refresh then
    -- Before 0.10 refresh() works on the current buffer only.
    if bufnr ~= vim.api.nvim_get_current_buf() then
      return false
    end
    codelens.refresh()
    return true
  end
  if codelens.enable then
    codelens.enable(true, { bufnr = bufnr })
    return true
  end
  return false
end

--- Sets the refresh autocommands of a buffer (replacing its earlier ones)
--- and refreshes it now.
function M.attach(_, bufnr)
  local g = group()
  vim.api.nvim_clear_autocmds({ group = g, buffer = bufnr })
  vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'BufWritePost' }, {
    group = g,
    buffer = bufnr,
    desc = 'Anchorage: refresh code lenses',
    callback = function(args)
      M.refresh(args.buf)
    end,
  })
  vim.schedule(function()
    M.refresh(bufnr)
  end)
end

M.group_name = group_name

return M
