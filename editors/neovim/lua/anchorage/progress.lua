-- Work done progress of the server ($/progress): Neovim before 0.10 has
-- no place that shows it. This handler keeps what is in progress for
-- require('anchorage.progress').status() (a statusline component), fires
-- the User AnchorageProgress autocommand, and says with vim.notify when
-- indexing ends.
local M = {}

--- What is in progress: client id → token → { title, message, percentage }.
local running = {}

--- The $/progress handler (err, result, ctx, config): Neovim's own, then
--- ours.
function M.handler(err, result, ctx, config)
  local default = vim.lsp.handlers['$/progress']
  if default and default ~= M.handler then
    pcall(default, err, result, ctx, config)
  end
  local value = result and result.value
  if type(value) ~= 'table' then
    return
  end
  local id, token = ctx.client_id, tostring(result.token)
  running[id] = running[id] or {}
  local cur = running[id][token] or {}
  if value.kind == 'begin' then
    cur = { title = value.title, message = value.message, percentage = value.percentage }
  elseif value.kind == 'report' then
    cur.message = value.message or cur.message
    cur.percentage = value.percentage or cur.percentage
  elseif value.kind == 'end' then
    running[id][token] = nil
    local title = cur.title or 'work'
    require('anchorage').notify(string.format('%s: %s', title, value.message or 'done'), vim.log.levels.INFO)
    pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = 'AnchorageProgress', modeline = false })
    return
  end
  running[id][token] = cur
  pcall(vim.api.nvim_exec_autocmds, 'User', { pattern = 'AnchorageProgress', modeline = false })
end

--- A short text for the statusline: "⚓ Indexing app 40%" while the
--- server works, else "".
function M.status()
  for _, tokens in pairs(running) do
    for _, p in pairs(tokens) do
      local s = '⚓ ' .. (p.title or 'working')
      if p.percentage then
        s = s .. string.format(' %d%%', p.percentage)
      elseif p.message then
        s = s .. ' ' .. p.message
      end
      return s
    end
  end
  return ''
end

--- Forgets a client's progress (it exited).
function M.forget(client_id)
  running[client_id] = nil
end

return M
