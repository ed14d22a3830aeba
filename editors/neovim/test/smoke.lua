-- Headless Neovim smoke test for the Anchorage language server.
--
--   ANCHORAGE_BIN=... ANCHORAGE_ROOT=... ANCHORAGE_DATA=... ANCHORAGE_RESULT=... \
--     nvim --headless -u NONE -c 'luafile editors/neovim/test/smoke.lua'
--
-- ANCHORAGE_BIN    the built anchorage binary
-- ANCHORAGE_ROOT   a copy of testdata/sampleapp (the workspace folder)
-- ANCHORAGE_DATA   a temporary data directory for the index
-- ANCHORAGE_RESULT the file that receives one line per check:
--                  "ok <name>" or "FAIL <name>: <details>"
-- ANCHORAGE_LOG    (optional) the server writes its log there (--log-file)
--
-- Works with Neovim 0.7 (vim.lsp.start_client + buf_attach_client) and with
-- current Neovim (vim.lsp.start). Every wait has a deadline, and a timer quits
-- with :cq after 60 s whatever happens, so the script never hangs.

local uv = vim.uv or vim.loop

local OVERALL_MS = 60000 -- the whole script
local INIT_MS = 15000 -- initialize handshake
local INDEX_MS = 20000 -- background indexing / edits reaching the index
local REQUEST_MS = 5000 -- one request

local result_path = os.getenv('ANCHORAGE_RESULT')
local out = result_path and io.open(result_path, 'w') or nil
local failed = false
local finished = false

local function emit(line)
  if out then
    out:write(line, '\n')
    out:flush()
  end
  io.stderr:write('[smoke] ', line, '\n')
end

local function ok(name)
  emit('ok ' .. name)
end

local function fail(name, details)
  failed = true
  details = tostring(details or ''):gsub('\n', ' ')
  if #details > 1500 then
    details = details:sub(1, 1500) .. '...'
  end
  emit('FAIL ' .. name .. ': ' .. details)
end

local function encode(v)
  local okk, s = pcall(function()
    return (vim.json and vim.json.encode or vim.fn.json_encode)(v)
  end)
  return okk and s or vim.inspect(v)
end

local function finish()
  if finished then
    return
  end
  finished = true
  if out then
    out:close()
    out = nil
  end
  if failed then
    vim.cmd('cq')
  else
    vim.cmd('qa!')
  end
end

-- Overall watchdog: whatever is pending, quit with an error after 60 s.
-- (vim.wait and request_sync run the event loop, so the timer fires even
-- while the script is waiting.)
local watchdog = uv.new_timer()
watchdog:start(OVERALL_MS, 0, vim.schedule_wrap(function()
  if not finished then
    fail('timeout', 'the smoke test did not finish within ' .. OVERALL_MS .. ' ms')
    finish()
  end
end))

local function has(feature)
  return vim.fn.has(feature) == 1
end

-- Client methods: called with ':' from Neovim 0.11 on (the '.' form is
-- deprecated there), with '.' before.
local function client_call(client, method, ...)
  if has('nvim-0.11') then
    return client[method](client, ...)
  end
  return client[method](...)
end

local function is_null(v)
  return v == nil or v == vim.NIL
end

local function ends_with(s, suffix)
  return type(s) == 'string' and s:sub(-#suffix) == suffix
end

local function run()
  local bin = os.getenv('ANCHORAGE_BIN')
  local root = os.getenv('ANCHORAGE_ROOT')
  local data = os.getenv('ANCHORAGE_DATA')
  if not result_path or result_path == '' then
    error('ANCHORAGE_RESULT is not set')
  end
  for name, v in pairs({ ANCHORAGE_BIN = bin, ANCHORAGE_ROOT = root, ANCHORAGE_DATA = data }) do
    if not v or v == '' then
      fail('setup', name .. ' is not set')
      return
    end
  end
  if vim.fn.executable(bin) ~= 1 then
    fail('setup', 'ANCHORAGE_BIN is not executable: ' .. bin)
    return
  end
  root = vim.fn.fnamemodify(root, ':p'):gsub('/$', '')
  local file = root .. '/users/repo.go'
  if vim.fn.filereadable(file) ~= 1 then
    fail('setup', 'missing ' .. file)
    return
  end

  -- Open the file first: vim.lsp.start attaches the current buffer.
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].filetype = 'go' -- -u NONE: no filetype detection; sets languageId

  local cmd = { bin, '--data-dir', data, 'serve' }
  local log = os.getenv('ANCHORAGE_LOG')
  if log and log ~= '' then
    vim.list_extend(cmd, { '--log-file', log })
  end

  local init_done, exited, exit_code = false, false, nil
  local config = {
    name = 'anchorage',
    cmd = cmd,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = vim.fn.fnamemodify(root, ':t') } },
    on_init = function()
      init_done = true
    end,
    on_exit = function(code)
      exited, exit_code = true, code
    end,
  }

  local client_id
  if vim.lsp.start then
    client_id = vim.lsp.start(config, { bufnr = buf })
  else
    client_id = vim.lsp.start_client(config)
  end
  if not client_id then
    fail('initialize', 'could not start the server: ' .. table.concat(cmd, ' '))
    return
  end
  -- Idempotent when vim.lsp.start already attached the buffer.
  vim.lsp.buf_attach_client(buf, client_id)

  vim.wait(INIT_MS, function()
    return init_done or exited
  end, 20)
  local client = vim.lsp.get_client_by_id(client_id)
  if not init_done or not client then
    fail('initialize', exited and ('server exited with code ' .. tostring(exit_code))
      or ('no initialize answer within ' .. INIT_MS .. ' ms'))
    return
  end
  ok('initialize')

  -- One request with a timeout: returns result, error-string.
  local function request(method, params)
    if exited then
      return nil, 'server exited with code ' .. tostring(exit_code)
    end
    local resp, err = client_call(client, 'request_sync', method, params, REQUEST_MS, buf)
    if not resp then
      return nil, 'no answer: ' .. tostring(err or 'request failed')
    end
    if resp.err then
      return nil, 'error: ' .. encode(resp.err)
    end
    return resp.result, nil
  end

  -- Repeats a request until check(result) returns true or the deadline
  -- passes; returns the matching result or nil plus the last details.
  local function poll(method, params, check)
    uv.update_time()
    local start = uv.now()
    local deadline = start + INDEX_MS
    local last
    local attempts = 0
    while true do
      attempts = attempts + 1
      local res, err = request(method, params)
      uv.update_time()
      if err then
        last = err
      else
        local good, why = check(res)
        if good then
          if attempts > 1 then
            io.stderr:write(string.format('[smoke] %s: %d attempts, %d ms\n', method, attempts, uv.now() - start))
          end
          return res
        end
        last = why or ('last answer: ' .. encode(res))
      end
      if exited or uv.now() >= deadline then
        return nil, last
      end
      vim.wait(250)
    end
  end

  local function find_symbol(list, name, uri_suffix)
    if is_null(list) then
      return nil
    end
    for _, s in ipairs(list) do
      local uri = type(s.location) == 'table' and s.location.uri or nil
      if s.name == name and (not uri_suffix or ends_with(uri, uri_suffix)) then
        return s
      end
    end
  end

  -- 1. workspace/symbol "FindByID" (indexing runs in the background: retry)
  local _, why = poll('workspace/symbol', { query = 'FindByID' }, function(res)
    if find_symbol(res, 'FindByID', '/users/repo.go') then
      return true
    end
    return false, 'no symbol FindByID in users/repo.go; last answer: ' .. encode(res)
  end)
  if why then
    fail('workspace-symbol', why)
  else
    ok('workspace-symbol')
  end

  -- 2. textDocument/documentSymbol: UserRepository and FindByID, any depth
  local function names_in(list, acc)
    acc = acc or {}
    if is_null(list) then
      return acc
    end
    for _, s in ipairs(list) do
      if type(s.name) == 'string' then
        acc[s.name] = true
      end
      names_in(s.children, acc)
    end
    return acc
  end
  local params = { textDocument = { uri = vim.uri_from_bufnr(buf) } }
  local res, err = request('textDocument/documentSymbol', params)
  if err then
    fail('document-symbol', err)
  else
    local names = names_in(res)
    local missing = {}
    for _, n in ipairs({ 'UserRepository', 'FindByID' }) do
      if not names[n] then
        table.insert(missing, n)
      end
    end
    if #missing > 0 then
      fail('document-symbol', 'missing ' .. table.concat(missing, ', ') .. '; answer: ' .. encode(res))
    else
      ok('document-symbol')
    end
  end

  -- 3. workspace/executeCommand anchorage.callers UserRepository.FindByID.
  --    The server answers from what is indexed so far, and the open
  --    document alone satisfied check 1, so retry until the background
  --    indexing has reached users/service.go (or the deadline passes).
  local function has_caller(res, name)
    local defs = type(res) == 'table' and res.definitions or nil
    if is_null(defs) then
      return false
    end
    for _, d in ipairs(defs) do
      if type(d) == 'table' and type(d.result) == 'table' then
        for _, site in ipairs(d.result) do
          local c = type(site) == 'table' and site.caller or nil
          if type(c) == 'table' and (c.name == name or c.qualified_name == 'Service.' .. name) then
            return true
          end
        end
      end
    end
    return false
  end
  _, why = poll('workspace/executeCommand', {
    command = 'anchorage.callers',
    arguments = { { symbol = 'UserRepository.FindByID' } },
  }, function(r)
    if has_caller(r, 'GetUser') then
      return true
    end
    return false, 'no caller GetUser of UserRepository.FindByID; last answer: ' .. encode(r)
  end)
  if why then
    fail('callers', why)
  else
    ok('callers')
  end

  -- 4. an edit: append a function; Neovim sends an incremental didChange
  --    (flushed before the next request), and the index must follow it.
  local n = vim.api.nvim_buf_line_count(buf)
  vim.api.nvim_buf_set_lines(buf, n, n, false, { '', 'func AddedInNeovim() {}' })
  _, why = poll('workspace/symbol', { query = 'AddedInNeovim' }, function(r)
    if find_symbol(r, 'AddedInNeovim', '/users/repo.go') then
      return true
    end
    return false, 'no symbol AddedInNeovim in users/repo.go after the edit; last answer: ' .. encode(r)
  end)
  if why then
    fail('edit-workspace-symbol', why)
  else
    ok('edit-workspace-symbol')
  end

  -- The outline follows the edit too, and the earlier symbols survive it.
  res, err = request('textDocument/documentSymbol', params)
  if err then
    fail('edit-document-symbol', err)
  else
    local names = names_in(res)
    if names.AddedInNeovim and names.FindByID and names.UserRepository then
      ok('edit-document-symbol')
    else
      fail('edit-document-symbol', 'want AddedInNeovim, FindByID, UserRepository; answer: ' .. encode(res))
    end
  end

  -- Shut the server down cleanly (bounded wait).
  client_call(client, 'stop')
  vim.wait(5000, function()
    return exited
  end, 20)
end

local okk, perr = xpcall(run, debug.traceback)
if not okk then
  fail('script', perr)
end
finish()
