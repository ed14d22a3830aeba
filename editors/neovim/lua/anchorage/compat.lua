-- Differences between Neovim versions, in one place: the plugin runs on
-- Debian's 0.7 (vim.lsp.start_client) and on current Neovim (vim.lsp.start,
-- client methods called with ':', vim.lsp.get_clients, vim.validate's new
-- form).
local M = {}

--- Whether this Neovim is at least `version` ("0.8", "0.10", ...).
---@param version string
---@return boolean
function M.has(version)
  return vim.fn.has('nvim-' .. version) == 1
end

--- Calls a client method: with ':' from Neovim 0.11 on (the '.' form is
--- deprecated there), with '.' before.
function M.call(client, method, ...)
  if M.has('0.11') then
    return client[method](client, ...)
  end
  return client[method](...)
end

--- client.request(method, params, handler, bufnr)
function M.request(client, method, params, handler, bufnr)
  return M.call(client, 'request', method, params, handler, bufnr)
end

--- client.request_sync(method, params, timeout_ms, bufnr)
function M.request_sync(client, method, params, timeout_ms, bufnr)
  return M.call(client, 'request_sync', method, params, timeout_ms, bufnr)
end

---@return boolean
function M.is_stopped(client)
  return M.call(client, 'is_stopped')
end

--- Whether the buffer is attached to the client.
function M.is_attached(bufnr, client_id)
  return vim.lsp.buf_is_attached(bufnr, client_id) and true or false
end

--- The running clients, filtered by name and buffer (either may be nil).
---@param filter { name: string|nil, bufnr: integer|nil }
function M.get_clients(filter)
  filter = filter or {}
  if vim.lsp.get_clients then
    return vim.lsp.get_clients(filter)
  end
  local out = {}
  -- 0.7 to 0.9: vim.lsp.get_active_clients() (the filter argument came in
  -- 0.8, so filter here).
  for _, client in ipairs(vim.lsp.get_active_clients()) do
    if (not filter.name or client.name == filter.name)
      and (not filter.bufnr or M.is_attached(filter.bufnr, client.id)) then
      table.insert(out, client)
    end
  end
  return out
end

--- Position parameters of the cursor in the current window, in the
--- client's position encoding.
function M.position_params(client)
  return vim.lsp.util.make_position_params(0, client and client.offset_encoding or 'utf-16')
end

--- vim.validate for one value: the new form (name, value, validator,
--- optional, message) from 0.11 on, the table form before. `expected` is a
--- type name, a list of type names, or a function returning true when the
--- value is good.
function M.validate(name, value, expected, optional, message)
  if M.has('0.11') then
    vim.validate(name, value, expected, optional, message)
    return
  end
  if type(expected) == 'function' then
    local fn = expected
    vim.validate({
      [name] = {
        value,
        function(v)
          return (optional and v == nil) or fn(v)
        end,
        message,
      },
    })
  else
    vim.validate({ [name] = { value, expected, optional } })
  end
end

return M
