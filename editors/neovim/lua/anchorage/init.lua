-- Anchorage for Neovim: starts `anchorage serve` (one client per project
-- root, shared by every buffer under it) and adds the :Anchorage* commands.
--
--   require('anchorage').setup{
--     cmd = { 'anchorage', 'serve' },
--     filetypes = { 'go', 'python', ... },
--     root_markers = { '.git', { 'go.mod', 'package.json', ... } },
--     settings = { anchorage = { logLevel = 'info' } },
--     on_attach = function(client, bufnr) end,
--   }
--
-- Neovim 0.8+ starts the server with vim.lsp.start, 0.7 with
-- vim.lsp.start_client + vim.lsp.buf_attach_client. See :help anchorage.
local compat = require('anchorage.compat')

local uv = vim.uv or vim.loop

local M = {}

--- The client's name: also the name nvim-lspconfig and vim.lsp.config use
--- for the server, so the commands work with clients they start.
M.name = 'anchorage'

M.install_command = 'go install github.com/anchorage-dev/anchorage@latest'
M.install_hint = M.install_command
  .. ' (needs Go 1.26+ and a C compiler; the binary lands in $(go env GOPATH)/bin)'

local default_config = {
  cmd = { 'anchorage', 'serve' },
  filetypes = {
    'go',
    'python',
    'javascript',
    'javascriptreact',
    'javascript.jsx',
    'typescript',
    'typescriptreact',
    'typescript.tsx',
    'rust',
    'java',
  },
  -- In order of priority: the repository's root when there is one (the
  -- code graph spans the whole repository), else the nearest project file.
  root_markers = {
    '.git',
    { 'go.mod', 'package.json', 'pyproject.toml', 'setup.py', 'Cargo.toml', 'pom.xml', 'build.gradle', 'build.gradle.kts' },
  },
  settings = { anchorage = {} },
  init_options = nil, -- default: the settings' anchorage section
  capabilities = nil, -- default: vim.lsp.protocol.make_client_capabilities()
  on_attach = nil,
  on_exit = nil,
  autostart = true,
  commands = true,
  codelens = true,
  search = { top_k = nil }, -- nil: the server's default (10)
  graph = { output = 'quickfix', depth = nil, open = true },
  -- :AnchorageInject: the register (nil: '+' with a clipboard, else '"')
  -- and the token budget (nil: the server's default, 1500).
  inject = { register = nil, budget = nil },
  -- Files of the Go toolchain, the module cache, site-packages or
  -- node_modules: attached to the running client (an outline, quietly),
  -- never a server of their own, unless this is true.
  index_dependencies = false,
  -- Neovim before 0.11 shows one server's hover: Anchorage's rules are
  -- added to the other servers' hover (gopls, pyright, ...) in one float.
  merge_hover = true,
}

--- The defaults of setup()'s options.
function M.defaults()
  return vim.deepcopy(default_config)
end

local state = {
  config = vim.deepcopy(default_config),
  configured = false,
  clients = {}, -- root -> client id, for the clients this plugin started
  reasons = {}, -- bufnr -> why no client is attached
  warned = {}, -- messages shown once
}

local function notify(msg, level)
  vim.notify('anchorage: ' .. msg, level or vim.log.levels.INFO)
end
M.notify = notify

local function notify_once(key, msg, level)
  if state.warned[key] then
    return
  end
  state.warned[key] = true
  notify(msg, level)
end

-- Options ------------------------------------------------------------------

local function is_list_of_strings(v, allow_empty)
  if type(v) ~= 'table' or (not allow_empty and #v == 0) then
    return false
  end
  for k, s in pairs(v) do
    if type(k) ~= 'number' or type(s) ~= 'string' or s == '' then
      return false
    end
  end
  return true
end

local function is_markers(v)
  if type(v) ~= 'table' or #v == 0 then
    return false
  end
  for k, m in pairs(v) do
    if type(k) ~= 'number' then
      return false
    end
    if type(m) ~= 'string' and not is_list_of_strings(m) then
      return false
    end
  end
  return true
end

local known_options = {}
for k in pairs(default_config) do
  known_options[k] = true
end
for _, k in ipairs({ 'init_options', 'capabilities', 'on_attach', 'on_exit' }) do
  known_options[k] = true
end

local function validate(opts)
  local v = compat.validate
  v('opts', opts, 'table')
  v('cmd', opts.cmd, function(c)
    return is_list_of_strings(c)
  end, true, "a non-empty list of strings, e.g. { 'anchorage', 'serve' }")
  v('filetypes', opts.filetypes, function(f)
    return is_list_of_strings(f, true)
  end, true, "a list of filetypes, e.g. { 'go', 'python' }")
  v('root_markers', opts.root_markers, is_markers, true,
    "a list of file names, or of lists of file names of equal priority, e.g. { '.git', { 'go.mod', 'package.json' } }")
  v('settings', opts.settings, 'table', true)
  v('init_options', opts.init_options, 'table', true)
  v('capabilities', opts.capabilities, 'table', true)
  v('on_attach', opts.on_attach, 'function', true)
  v('on_exit', opts.on_exit, 'function', true)
  v('autostart', opts.autostart, 'boolean', true)
  v('commands', opts.commands, 'boolean', true)
  v('codelens', opts.codelens, 'boolean', true)
  v('index_dependencies', opts.index_dependencies, 'boolean', true)
  v('merge_hover', opts.merge_hover, 'boolean', true)
  v('search', opts.search, 'table', true)
  v('graph', opts.graph, 'table', true)
  v('inject', opts.inject, 'table', true)
  if opts.inject then
    v('inject.register', opts.inject.register, function(r)
      return type(r) == 'string' and #r == 1 and r:match('^[%w"%*+%-]$') ~= nil
    end, true, "a writable register name, e.g. '+', 'a' or '\"'")
    v('inject.budget', opts.inject.budget, function(n)
      return type(n) == 'number' and n > 0
    end, true, 'a positive number of tokens')
  end
  if opts.search then
    v('search.top_k', opts.search.top_k, function(n)
      return type(n) == 'number' and n > 0
    end, true, 'a positive number')
  end
  if opts.graph then
    v('graph.output', opts.graph.output, function(o)
      return o == 'quickfix' or o == 'select'
    end, true, "'quickfix' or 'select'")
    v('graph.depth', opts.graph.depth, function(n)
      return type(n) == 'number' and n > 0
    end, true, 'a positive number')
    v('graph.open', opts.graph.open, 'boolean', true)
  end
end

-- JSON: Lua's empty table is encoded as [] and the server wants objects for
-- its settings. Empty tables become {} except the lists.
local list_settings = { excludedDirectories = true }

local function as_objects(t, key)
  if type(t) ~= 'table' then
    return t
  end
  if next(t) == nil then
    return list_settings[key] and {} or vim.empty_dict()
  end
  local out = {}
  for k, val in pairs(t) do
    out[k] = as_objects(val, k)
  end
  return setmetatable(out, getmetatable(t))
end

-- settings: lspconfig's shape { anchorage = {...} }; a table of settings
-- without that key is taken as the section itself.
local function normalize_settings(settings)
  settings = settings or {}
  if settings.anchorage == nil and next(settings) ~= nil then
    settings = { anchorage = settings }
  end
  settings = vim.deepcopy(settings)
  settings.anchorage = settings.anchorage or {}
  return as_objects(settings)
end

-- Root detection ------------------------------------------------------------

local function exists(path)
  return uv.fs_stat(path) ~= nil
end

local function is_dir(path)
  local st = uv.fs_stat(path)
  return st ~= nil and st.type == 'directory'
end

local function parent(dir)
  local p = vim.fn.fnamemodify(dir, ':h')
  if p == dir or p == '' then
    return nil
  end
  return p
end

local function normalize(path)
  path = vim.fn.fnamemodify(path, ':p')
  if #path > 1 then
    path = path:gsub('/+$', '')
  end
  return path
end

-- The nearest directory at or above dir that holds one of names.
local function search_up(dir, names)
  while dir do
    for _, name in ipairs(names) do
      if exists((dir == '/' and '' or dir) .. '/' .. name) then
        return dir
      end
    end
    dir = parent(dir)
  end
  return nil
end

--- The project root of a file: markers are tried in order, the first one
--- found above the file decides (a nested list holds markers of equal
--- priority: the nearest of them wins), as vim.fs.root does in Neovim 0.11.
--- Works as nvim-lspconfig's root_dir(fname).
---@param path string a file or directory
---@param markers table|nil default: setup()'s root_markers
---@return string|nil
function M.find_root(path, markers)
  if type(path) ~= 'string' or path == '' then
    return nil
  end
  markers = markers or state.config.root_markers
  path = normalize(path)
  local dir = is_dir(path) and path or vim.fn.fnamemodify(path, ':h')
  for _, group in ipairs(markers) do
    local root = search_up(dir, type(group) == 'table' and group or { group })
    if root then
      return root
    end
  end
  return nil
end

local function under(path, root)
  if root == '/' then
    return path:sub(1, 1) == '/'
  end
  return path == root or path:sub(1, #root + 1) == root .. '/'
end

--- The root folder of a client: its root_dir, else its first workspace
--- folder.
function M.client_root(client)
  local root = client.config and client.config.root_dir
  if (not root or root == '') and type(client.workspace_folders) == 'table' and client.workspace_folders[1] then
    root = vim.uri_to_fname(client.workspace_folders[1].uri)
  end
  if root and root ~= '' then
    return normalize(root)
  end
  return nil
end

local function live_client(id)
  local client = id and vim.lsp.get_client_by_id(id)
  if client and not compat.is_stopped(client) then
    return client
  end
  return nil
end

-- Every Anchorage client: those this plugin started (also while they
-- initialize) and those started by nvim-lspconfig or vim.lsp.enable.
local function all_clients()
  local seen, out = {}, {}
  for root, id in pairs(state.clients) do
    local client = live_client(id)
    if client then
      seen[id] = true
      table.insert(out, client)
    else
      state.clients[root] = nil
    end
  end
  for _, client in ipairs(compat.get_clients({ name = M.name })) do
    if not seen[client.id] and not compat.is_stopped(client) then
      seen[client.id] = true
      table.insert(out, client)
    end
  end
  return out
end
M.clients = all_clients

-- The client whose root holds path (the deepest, when roots nest).
local function covering_client(path)
  local best, best_len
  for _, client in ipairs(all_clients()) do
    local root = M.client_root(client)
    if root and under(path, root) and (not best_len or #root > best_len) then
      best, best_len = client, #root
    end
  end
  return best
end

local function buffer_path(bufnr)
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == '' or name:match('^%a[%w+.-]*://') then
    return nil -- unnamed, or not a file (fugitive://, oil://, ...)
  end
  return normalize(name)
end

--- The Anchorage client of a buffer: one attached to it, else the one
--- whose root holds its file, else the only one running. Returns nil and
--- the reason when there is none.
---@return table|nil client, string|nil reason
function M.get_client(bufnr)
  if bufnr == nil or bufnr == 0 then
    bufnr = vim.api.nvim_get_current_buf()
  end
  local clients = all_clients()
  for _, client in ipairs(clients) do
    if compat.is_attached(bufnr, client.id) then
      return client
    end
  end
  local path = buffer_path(bufnr)
  if path then
    local client = covering_client(path)
    if client then
      return client
    end
  end
  if #clients == 1 then
    return clients[1]
  end
  if #clients > 1 then
    return nil, 'several Anchorage servers are running and none is attached to this buffer'
  end
  local reason = state.reasons[bufnr]
  if not reason and not state.configured then
    reason = "require('anchorage').setup{} was not called"
  end
  return nil, 'no Anchorage server for this buffer' .. (reason and (': ' .. reason) or '')
end

--- The buffer's Anchorage client; without one, warns why and returns nil.
function M.client_or_warn(bufnr)
  local client, reason = M.get_client(bufnr)
  if not client then
    notify(reason, vim.log.levels.WARN)
  end
  return client
end

--- Runs a server command through workspace/executeCommand; on_result gets
--- its result. An error goes to on_error first, if given: when on_error
--- returns true it was handled, otherwise it is shown.
function M.exec_command(client, command, args, bufnr, on_result, on_error)
  local params = { command = command, arguments = args ~= nil and { args } or {} }
  local sent = compat.request(client, 'workspace/executeCommand', params, function(err, result)
    if err then
      if on_error and on_error(err) then
        return
      end
      local msg = type(err) == 'table' and err.message or tostring(err)
      notify(command .. ' failed: ' .. tostring(msg), vim.log.levels.ERROR)
      return
    end
    on_result(M.val(result))
  end, bufnr)
  if not sent then
    notify(command .. ': the language server is not running (:AnchorageStatus)', vim.log.levels.ERROR)
  end
end

--- A value of a server's answer: JSON null (vim.NIL) is nil.
function M.val(x)
  if x == vim.NIL then
    return nil
  end
  return x
end

--- s when it is a non-empty string, else nil.
function M.nonempty(s)
  s = M.val(s)
  if type(s) == 'string' and s ~= '' then
    return s
  end
  return nil
end

-- Starting ------------------------------------------------------------------

local function has_lsp_attach()
  return vim.fn.exists('##LspAttach') == 1
end

--- The client configuration for a root, as vim.lsp.start takes it.
---@param root string
function M.lsp_config(root)
  local cfg = state.config
  local settings = normalize_settings(cfg.settings)
  local init_options = cfg.init_options and as_objects(cfg.init_options) or settings.anchorage
  if next(init_options) == nil then
    init_options = nil
  end
  local codelens = require('anchorage.codelens')
  local config = {
    name = M.name,
    cmd = vim.deepcopy(cfg.cmd),
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fn.fnamemodify(root, ':t') } },
    init_options = init_options,
    settings = settings,
    capabilities = cfg.capabilities
      and vim.tbl_deep_extend('force', vim.lsp.protocol.make_client_capabilities(), cfg.capabilities) or nil,
    handlers = {
      ['$/progress'] = require('anchorage.progress').handler,
      ['textDocument/hover'] = cfg.merge_hover and require('anchorage.hover').handler() or nil,
    },
    on_attach = function(client, bufnr)
      -- From 0.8 on the LspAttach autocommand of setup() does it, for
      -- every Anchorage client (also those lspconfig starts).
      if cfg.codelens and not has_lsp_attach() then
        codelens.attach(client, bufnr)
      end
      if cfg.on_attach then
        cfg.on_attach(client, bufnr)
      end
    end,
    on_exit = function(code, signal, client_id)
      require('anchorage.progress').forget(client_id)
      if state.clients[root] == client_id then
        state.clients[root] = nil
      end
      -- A crash, not a stop (SIGTERM is how a forced stop ends it).
      if code ~= 0 or (signal and signal ~= 0 and signal ~= 15) then
        vim.schedule(function()
          notify(string.format('the language server for %s exited (code %s, signal %s); see %s',
            root, tostring(code), tostring(signal), vim.lsp.get_log_path()), vim.log.levels.WARN)
        end)
      end
      if cfg.on_exit then
        cfg.on_exit(code, signal, client_id)
      end
    end,
  }
  return config
end

local function buffer_filetype_ok(bufnr)
  local ft = vim.bo[bufnr].filetype
  for _, f in ipairs(state.config.filetypes) do
    if f == ft then
      return true
    end
  end
  return false, string.format("filetype '%s' is not in filetypes", ft)
end

--- What a file's directory is when it holds code a project depends on:
--- the Go toolchain (GOROOT, or a directory with VERSION, src/runtime and
--- pkg/tool), the Go module cache, a Python site-packages, a node_modules,
--- Cargo's registry or a Rust toolchain; nil for any other. The server
--- never indexes such a directory unless asked (see dependencyDir in
--- lsp/dependency.go).
---@param path string
---@return string|nil
function M.dependency_dir(path)
  path = normalize(path)
  local goroot = os.getenv('GOROOT')
  if goroot and goroot ~= '' and under(path, normalize(goroot)) then
    return 'the Go toolchain (GOROOT)'
  end
  local caches = { os.getenv('GOMODCACHE') }
  for _, gp in ipairs(vim.split(os.getenv('GOPATH') or '', ':', { plain = true })) do
    if gp ~= '' then
      table.insert(caches, gp .. '/pkg/mod')
    end
  end
  local home = uv.os_homedir()
  if home then
    table.insert(caches, home .. '/go/pkg/mod')
  end
  for _, c in pairs(caches) do
    if c and c ~= '' and under(path, normalize(c)) then
      return 'the Go module cache'
    end
  end
  local parts = vim.split(path, '/', { plain = true })
  for i, part in ipairs(parts) do
    if part == 'node_modules' then
      return 'a node_modules directory'
    elseif part == 'site-packages' or part == 'dist-packages' then
      return 'a Python ' .. part .. ' directory'
    elseif part == 'registry' and parts[i - 1] == '.cargo' then
      return "Cargo's registry"
    elseif part == 'toolchains' and parts[i - 1] == '.rustup' then
      return 'a Rust toolchain'
    elseif part == 'mod' and parts[i - 1] == 'pkg' and table.concat(parts, '/', i + 1):find('@', 1, true) then
      return 'the Go module cache'
    end
  end
  local dir = is_dir(path) and path or vim.fn.fnamemodify(path, ':h')
  while dir and dir ~= '' do
    if vim.fn.filereadable(dir .. '/VERSION') == 1 and is_dir(dir .. '/src/runtime') and is_dir(dir .. '/pkg/tool') then
      return 'a Go toolchain'
    end
    local up = parent(dir)
    if not up or up == dir then
      break
    end
    dir = up
  end
  return nil
end

--- The client a file outside every client's root goes to: that of the
--- buffer the user came from, else the only one running.
local function borrowed_client()
  local alt = vim.fn.bufnr('#')
  if alt > 0 then
    for _, client in ipairs(compat.get_clients({ name = M.name, bufnr = alt })) do
      return client
    end
  end
  local running = all_clients()
  if #running == 1 then
    return running[1]
  end
  return nil
end

local function home_or_top(root)
  local home = uv.os_homedir()
  return root == '/' or (home and root == normalize(home))
end

--- Attaches a buffer to the Anchorage client of its root, starting the
--- server when no running client holds the file. Returns the client id,
--- or nil (the reason is kept for :AnchorageStatus).
---@param bufnr integer|nil
---@return integer|nil
function M.attach(bufnr)
  if bufnr == nil or bufnr == 0 then
    bufnr = vim.api.nvim_get_current_buf()
  end
  if not vim.api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].buftype ~= '' then
    return nil
  end
  local path = buffer_path(bufnr)
  if not path then
    state.reasons[bufnr] = 'the buffer is not a file'
    return nil
  end
  local ok_ft, why = buffer_filetype_ok(bufnr)
  if not ok_ft then
    state.reasons[bufnr] = why
    return nil
  end

  local client = covering_client(path)
  if client then
    vim.lsp.buf_attach_client(bufnr, client.id)
    state.reasons[bufnr] = nil
    return client.id
  end

  -- A file of the Go toolchain or a dependency (jumped to from a
  -- project): answered quietly by the project's server, as gopls does,
  -- never a server indexing the whole toolchain.
  local dependency = not state.config.index_dependencies and M.dependency_dir(path)
  if dependency then
    local borrowed = borrowed_client()
    if borrowed then
      vim.lsp.buf_attach_client(bufnr, borrowed.id)
      state.reasons[bufnr] = nil
      return borrowed.id
    end
    state.reasons[bufnr] = string.format('the file is in %s, which is not indexed (index_dependencies = true to index it)',
      dependency)
    return nil
  end

  local root = M.find_root(path)
  if not root then
    local names = {}
    for _, m in ipairs(state.config.root_markers) do
      table.insert(names, type(m) == 'table' and table.concat(m, ', ') or m)
    end
    state.reasons[bufnr] = string.format('no root marker (%s) above %s', table.concat(names, ', '),
      vim.fn.fnamemodify(path, ':h'))
    return nil
  end
  if home_or_top(root) then
    state.reasons[bufnr] = 'the root found is ' .. root .. ', which is not indexed whole'
    notify_once('root:' .. root, string.format('not starting in %s (a root marker is there): open a file of a'
      .. ' project, or set root_markers', root), vim.log.levels.WARN)
    return nil
  end

  local exe = state.config.cmd[1]
  if vim.fn.executable(exe) ~= 1 then
    state.reasons[bufnr] = string.format("'%s' is not an executable", exe)
    -- One message, after the autocommand: an error there would stop
    -- start-up with "Error detected while processing FileType
    -- Autocommands" and a press-Enter prompt.
    if not state.warned['exe:' .. exe] then
      state.warned['exe:' .. exe] = true
      vim.schedule(function()
        notify(string.format("'%s' was not found%s: install it with %s, or set cmd in setup() (:help anchorage-setup)",
          exe, exe:find('/') and '' or ' on PATH', M.install_command), vim.log.levels.WARN)
      end)
    end
    return nil
  end

  local config = M.lsp_config(root)
  local ok, id = pcall(function()
    if vim.lsp.start then
      -- In the buffer: 0.8.0's vim.lsp.start attaches the current buffer
      -- (opts.bufnr came in 0.8.1).
      return vim.api.nvim_buf_call(bufnr, function()
        return vim.lsp.start(config, { bufnr = bufnr })
      end)
    end
    return vim.lsp.start_client(config)
  end)
  if not ok or not id then
    state.reasons[bufnr] = 'the server did not start: ' .. tostring(id)
    notify(string.format('could not start %s for %s: %s', table.concat(config.cmd, ' '), root, tostring(id)),
      vim.log.levels.ERROR)
    return nil
  end
  if not compat.is_attached(bufnr, id) then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  state.clients[root] = id
  state.reasons[bufnr] = nil
  return id
end

-- Setup ---------------------------------------------------------------------

local function merge(opts)
  local cfg = M.defaults()
  for k, v in pairs(opts) do
    if k == 'search' or k == 'graph' or k == 'inject' then
      cfg[k] = vim.tbl_extend('force', cfg[k], v)
    else
      cfg[k] = v
    end
  end
  return cfg
end

--- Configures the plugin: starts the server for buffers of the filetypes
--- (unless autostart = false) and defines the :Anchorage* commands. Returns
--- false, after a message, when an option is invalid. See :help
--- anchorage-setup.
---@param opts table|nil
---@return boolean
function M.setup(opts)
  opts = opts or {}
  local ok, err = pcall(validate, opts)
  if not ok then
    notify('invalid setup option: ' .. tostring(err):gsub('^.-:%d+: ', ''), vim.log.levels.ERROR)
    return false
  end
  local unknown = {}
  for k in pairs(opts) do
    if not known_options[k] then
      table.insert(unknown, k)
    end
  end
  if #unknown > 0 then
    table.sort(unknown)
    notify('unknown setup option(s) ignored: ' .. table.concat(unknown, ', '), vim.log.levels.WARN)
    for _, k in ipairs(unknown) do
      opts[k] = nil
    end
  end

  state.config = merge(opts)
  state.configured = true
  state.warned = {}

  local group = vim.api.nvim_create_augroup('anchorage', { clear = true })
  if state.config.autostart and #state.config.filetypes > 0 then
    vim.api.nvim_create_autocmd('FileType', {
      group = group,
      pattern = state.config.filetypes,
      desc = 'Anchorage: attach the language server',
      callback = function(args)
        M.attach(args.buf)
      end,
    })
    -- Buffers opened before setup() (lazy loading).
    for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(bufnr) and vim.bo[bufnr].filetype ~= '' and buffer_filetype_ok(bufnr) then
        M.attach(bufnr)
      end
    end
  end
  if state.config.codelens and has_lsp_attach() then
    vim.api.nvim_create_autocmd('LspAttach', {
      group = group,
      desc = 'Anchorage: refresh code lenses',
      callback = function(args)
        local client = args.data and vim.lsp.get_client_by_id(args.data.client_id)
        if client and client.name == M.name then
          require('anchorage.codelens').attach(client, args.buf)
        end
      end,
    })
  end
  if state.config.commands then
    require('anchorage.commands').create()
  end
  return true
end

--- What the server is doing, for a statusline ("⚓ Indexing app 40%"), or
--- "" when it is idle.
function M.status()
  return require('anchorage.progress').status()
end

--- The options in force (after setup()).
function M.config()
  return state.config
end

return M
