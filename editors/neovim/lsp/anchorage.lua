-- Neovim 0.11+: the 'anchorage' configuration for vim.lsp.config, found on
-- 'runtimepath' like nvim-lspconfig's. With this plugin installed:
--
--   vim.lsp.config('anchorage', { settings = { anchorage = { logLevel = 'info' } } })  -- optional
--   vim.lsp.enable('anchorage')
--   require('anchorage').setup{ autostart = false }  -- the :Anchorage* commands only
--
-- (or let require('anchorage').setup{} start the server: use one or the
-- other, not both).
local anchorage = require('anchorage')
local defaults = anchorage.defaults()

return {
  cmd = defaults.cmd,
  filetypes = defaults.filetypes,
  -- The plugin's root detection: markers by priority (the repository's
  -- root first), nested lists of equal priority, also before 0.11.3. It
  -- honours root_markers given with vim.lsp.config('anchorage', {...}).
  root_dir = function(bufnr, on_dir)
    local markers = defaults.root_markers
    local ok, resolved = pcall(function()
      return vim.lsp.config.anchorage
    end)
    if ok and type(resolved) == 'table' and type(resolved.root_markers) == 'table' and #resolved.root_markers > 0 then
      markers = resolved.root_markers
    end
    local root = anchorage.find_root(vim.api.nvim_buf_get_name(bufnr), markers)
    if root then
      on_dir(root)
    end
  end,
  settings = { anchorage = vim.empty_dict() },
}
